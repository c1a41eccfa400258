#pragma once
/// \file
/// \brief `SqliteDocumentIndex`: documents in a SQLite file (or in memory), searched with FTS5's BM25.

#include <chrono>
#include <memory>
#include <string>

#include "reagent/documents/document_index.hpp"

namespace reagent::documents {

/// \brief A `DocumentIndex` in one SQLite file, in WAL mode: one writer and any number of readers, in
/// this process or others. Its tables are named `doc_*`, so the file may be the episodic memory's too.
///
/// Operations run synchronously on the caller's thread, under a mutex: a search of a 100,000-chunk index
/// takes a few milliseconds (docs/documents.md has the figures). A write waits for another process's
/// write for at most `lockWait`, then fails with `storage_failed`.
class SqliteDocumentIndex final : public DocumentIndex {
  public:
    /// \brief Opens (creating it and its tables when missing) the index in `path`; ":memory:" for one
    /// that lives as long as the object.
    ///
    /// \par Errors
    /// `invalid_argument` for an empty path; `storage_failed` for a file SQLite cannot open or write, a
    /// file that is not a database, or an index made by a newer reagent (it is left unchanged).
    [[nodiscard]] static expected<std::shared_ptr<SqliteDocumentIndex>, DocumentError> open(
        const std::string& path, std::chrono::milliseconds lockWait = std::chrono::seconds(5));

    ~SqliteDocumentIndex() override;

    Task<expected<std::string, DocumentError>> hashOf(std::string source) override;
    Task<expected<void, DocumentError>> replace(std::string source, std::string hash,
                                                std::vector<IndexedChunk> chunks) override;
    Task<expected<bool, DocumentError>> remove(std::string source) override;
    Task<expected<std::vector<Passage>, DocumentError>> search(std::string query, std::size_t limit) override;
    Task<expected<std::vector<Passage>, DocumentError>> searchNear(std::vector<float> query,
                                                                   std::size_t limit) override;
    Task<expected<std::string, DocumentError>> property(std::string key) override;
    Task<expected<void, DocumentError>> setProperty(std::string key, std::string value) override;
    Task<expected<std::vector<IndexedSource>, DocumentError>> sources() override;
    Task<expected<IndexStats, DocumentError>> stats() override;

    /// \brief The schema version this reagent writes.
    static constexpr int kSchemaVersion = 1;

    struct Db;

  private:
    explicit SqliteDocumentIndex(std::unique_ptr<Db> db);
    std::unique_ptr<Db> db_;
};

}  // namespace reagent::documents
