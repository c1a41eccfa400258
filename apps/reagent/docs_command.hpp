#pragma once
/// \file
/// \brief `reagent docs ingest|search|list`: a document index built and searched from the command line
/// (docs/documents.md).

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace reagent::cli {

/// \brief What `reagent docs` was asked to do.
struct DocsOptions {
    /// "ingest", "search" or "list".
    std::string action;
    /// `--index FILE`: the SQLite index. Required.
    std::string index;
    /// ingest: the files and folders.
    std::vector<std::string> paths;
    /// search: the words.
    std::string query;
    std::size_t limit = 5;
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    std::size_t chunkChars = 1500;
    std::size_t overlapChars = 200;
    std::uint64_t maxFileBytes = 32ull << 20;
    /// `--embedder KIND[:MODEL]`: ingest embeds the chunks; search embeds the query. Empty: the embedder
    /// the index was made with, if any.
    std::string embedder;
    /// search: `--ranking` text, embeddings or hybrid; empty: hybrid with an embedder, else text.
    std::string ranking;
    bool json = false;
};

/// \brief Runs `reagent docs` on `io`; the exit status (1 when a named file was skipped or the index failed).
[[nodiscard]] int docsCommand(boost::asio::io_context& io, const DocsOptions& options);

}  // namespace reagent::cli
