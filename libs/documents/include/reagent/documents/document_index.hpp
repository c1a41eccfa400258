#pragma once
/// \file
/// \brief `DocumentIndex`: where chunks of documents are kept and searched (SQLite FTS5,
/// `SqliteDocumentIndex`), and `Passage`, what a search returns.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/documents/chunking.hpp"
#include "reagent/documents/document_error.hpp"

namespace reagent::documents {

/// \brief One chunk as the index keeps it.
struct IndexedChunk {
    std::string text;
    std::size_t lineStart = 1;
    std::size_t lineEnd = 1;
    /// The PDF page the chunk starts on; 0 for a text without pages.
    std::size_t page = 0;
    /// The Markdown heading path ("Install > From source"); empty for none.
    std::string heading;
    /// The chunk's embedding (`Documents` with an embedder); empty: none.
    std::vector<float> embedding;
};

/// \brief A chunk a search found, with where it comes from.
struct Passage {
    /// The document: a path as it was ingested (`docs/tools.md`), or the name given to a text.
    std::string source;
    std::size_t lineStart = 1;
    std::size_t lineEnd = 1;
    std::size_t page = 0;
    std::string heading;
    std::string text;
    /// Higher is better, comparable within one search: BM25 negated (text), the cosine similarity
    /// (embeddings), or the reciprocal rank fusion of both (hybrid).
    double score = 0;
    /// The chunk's id in the index.
    std::int64_t chunk = 0;

    /// \brief How to cite it: `docs/tools.md:12-40 (Install > From source)`, `report.pdf, page 3`.
    [[nodiscard]] std::string citation() const;
};

/// \brief What an index holds.
struct IndexStats {
    std::int64_t sources = 0;
    std::int64_t chunks = 0;
    /// The characters of the chunks' texts, in bytes.
    std::int64_t bytes = 0;
};

/// \brief One indexed document: its source and the content hash it was indexed from.
struct IndexedSource {
    std::string source;
    std::string hash;
    std::int64_t chunks = 0;
};

/// \brief A store of document chunks with full-text search. Implementations are safe to use from several
/// coroutines and threads at once, and return errors as values (no exception escapes).
class DocumentIndex {
  public:
    DocumentIndex() = default;
    DocumentIndex(const DocumentIndex&) = delete;
    DocumentIndex& operator=(const DocumentIndex&) = delete;
    virtual ~DocumentIndex() = default;

    /// \brief The content hash `source` was indexed from; empty when the index does not have it.
    [[nodiscard]] virtual Task<expected<std::string, DocumentError>> hashOf(std::string source) = 0;
    /// \brief Replaces everything indexed for `source` by `chunks`, all at once (a reader sees the old
    /// chunks or the new ones, never a mix). `hash` is what `hashOf` returns afterwards.
    [[nodiscard]] virtual Task<expected<void, DocumentError>> replace(std::string source, std::string hash,
                                                                      std::vector<IndexedChunk> chunks) = 0;
    /// \brief Removes `source`; false when the index did not have it.
    [[nodiscard]] virtual Task<expected<bool, DocumentError>> remove(std::string source) = 0;
    /// \brief Up to `limit` passages for `query` (words, not a query language: every word counts, any of
    /// them may match), best first by BM25.
    [[nodiscard]] virtual Task<expected<std::vector<Passage>, DocumentError>> search(std::string query,
                                                                                     std::size_t limit) = 0;
    /// \brief Up to `limit` passages whose embeddings are nearest `query` by cosine similarity (its score),
    /// best first; chunks without an embedding, or with one of another dimension, are not considered.
    [[nodiscard]] virtual Task<expected<std::vector<Passage>, DocumentError>> searchNear(
        std::vector<float> query, std::size_t limit) = 0;
    /// \brief A setting kept with the index (`Documents` keeps the embedder's "name:model" under
    /// "embedder"); empty when unset.
    [[nodiscard]] virtual Task<expected<std::string, DocumentError>> property(std::string key) = 0;
    [[nodiscard]] virtual Task<expected<void, DocumentError>> setProperty(std::string key,
                                                                          std::string value) = 0;
    /// \brief Every indexed source, in name order.
    [[nodiscard]] virtual Task<expected<std::vector<IndexedSource>, DocumentError>> sources() = 0;
    [[nodiscard]] virtual Task<expected<IndexStats, DocumentError>> stats() = 0;
};

}  // namespace reagent::documents
