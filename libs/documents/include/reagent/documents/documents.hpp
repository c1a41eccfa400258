#pragma once
/// \file
/// \brief `Documents`: ingesting files, folders and texts into a `DocumentIndex`, and searching it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/documents/chunking.hpp"
#include "reagent/documents/document_index.hpp"
#include "reagent/llm/embedder.hpp"

namespace reagent::documents {

/// \brief What `Documents::ingest` reads, and how it cuts it.
struct IngestOptions {
    ChunkOptions chunking;
    /// Globs (`reagent::GlobPattern`) a file under a folder must match, relative to that folder
    /// (`**/*.md`); empty: the extensions of the known text formats (Markdown, text, HTML, PDF, source
    /// code, JSON, YAML, TOML, CSV, reStructuredText, AsciiDoc). A file named on its own is always read.
    std::vector<std::string> include;
    /// Globs of files and folders to leave out, relative to the folder walked; hidden files and folders
    /// (`.git`) and `node_modules` are always left out of a walk.
    std::vector<std::string> exclude;
    /// A larger file is skipped (`too_large`) without being read. Default 32 MiB.
    std::uint64_t maxFileBytes = 32ull << 20;
};

/// \brief A file that was not ingested, and why.
struct SkippedFile {
    std::string path;
    DocumentError error;
    /// It was named in the call (not found in a folder's walk): a caller should treat it as a failure.
    bool named = false;
};

/// \brief What an ingestion did.
struct IngestReport {
    /// Documents indexed for the first time.
    std::size_t added = 0;
    /// Documents whose content changed: their chunks were replaced.
    std::size_t replaced = 0;
    /// Documents whose content had not changed: nothing was done (not even extraction).
    std::size_t unchanged = 0;
    /// Documents under an ingested folder that the folder no longer has: removed from the index.
    std::size_t removed = 0;
    /// Chunks written.
    std::size_t chunks = 0;
    /// Bytes read of the documents added or replaced.
    std::uint64_t bytes = 0;
    std::vector<SkippedFile> skipped;
};

/// \brief The index property (`DocumentIndex::property`) under which `Documents` keeps the embedder that
/// made the index's vectors, as "name:model" ("openai:text-embedding-3-small").
inline constexpr std::string_view kEmbedderProperty = "embedder";

/// \brief How `Documents::search` ranks.
enum class Ranking {
    /// `hybrid` with an embedder, else `text`.
    automatic,
    /// BM25 over the words (the index's full-text search).
    text,
    /// Cosine similarity of the query's embedding to the chunks' (needs an embedder).
    embeddings,
    /// Both, fused by reciprocal rank (k = 60): a passage ranked well by either comes up.
    hybrid,
};

/// \brief Documents in an index: ingestion that only touches what changed, and search.
///
/// A document's source is its path as given (`docs/tools.md`, a folder's files as `folder/relative`), or
/// the name given to a text. Re-ingesting an unchanged document is a no-op (its bytes' SHA-256 and the
/// chunk options are compared); a changed one replaces its chunks at once.
class Documents {
  public:
    /// `embedder`: when given, every chunk ingested is embedded too (in batches of its `maxBatch()`), and
    /// searches rank by `Ranking::hybrid` unless told otherwise; changing the embedder's model re-embeds
    /// each document at its next ingestion.
    explicit Documents(std::shared_ptr<DocumentIndex> index, IngestOptions options = {},
                       std::shared_ptr<llm::Embedder> embedder = nullptr);

    /// \brief Ingests files and folders (walked recursively, `IngestOptions::include`/`exclude`).
    ///
    /// A file that cannot be read, is too large, is not text, or is a PDF that does not parse is skipped and
    /// listed in the report; the others are ingested. Checks for cancellation between files.
    ///
    /// \par Errors
    /// `storage_failed` when the index cannot be read or written (the files already done stay done);
    /// `cancelled` when cancelled; `embedding_failed` when the embedder fails (the document being embedded
    /// is not written).
    ///
    /// `sourcesRelativeTo`: when given, sources are named relative to it (`notes/a.md` for
    /// `/work/notes/a.md` under `/work`) instead of as the paths were given.
    [[nodiscard]] Task<expected<IngestReport, DocumentError>> ingest(
        std::vector<std::filesystem::path> paths, std::filesystem::path sourcesRelativeTo = {});
    /// \brief Ingests a text given in code under the name `source`.
    [[nodiscard]] Task<expected<IngestReport, DocumentError>> ingestText(
        std::string source, std::string text, TextFormat format = TextFormat::markdown);
    /// \brief The `limit` passages that best match `query`, best first, ranked as `ranking` says.
    ///
    /// \par Errors
    /// `invalid_argument` for `embeddings` or `hybrid` without an embedder; `embedding_failed` when the
    /// query cannot be embedded; `storage_failed`.
    [[nodiscard]] Task<expected<std::vector<Passage>, DocumentError>> search(
        std::string query, std::size_t limit = 5, Ranking ranking = Ranking::automatic);

    [[nodiscard]] const std::shared_ptr<DocumentIndex>& index() const noexcept { return index_; }
    [[nodiscard]] const IngestOptions& options() const noexcept { return options_; }

    [[nodiscard]] const std::shared_ptr<llm::Embedder>& embedder() const noexcept { return embedder_; }

  private:
    std::shared_ptr<DocumentIndex> index_;
    IngestOptions options_;
    std::shared_ptr<llm::Embedder> embedder_;
};

}  // namespace reagent::documents
