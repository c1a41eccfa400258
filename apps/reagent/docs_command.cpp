// `reagent docs`: ingest into, search and list a SQLite document index.

#include "docs_command.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "docs_embedder.hpp"
#include "reagent/documents/documents.hpp"
#include "reagent/documents/sqlite_document_index.hpp"
#include "run_to_end.hpp"

namespace reagent::cli {

namespace {

using nlohmann::ordered_json;

using IngestOutcome = expected<documents::IngestReport, documents::DocumentError>;
using SearchOutcome = expected<std::vector<documents::Passage>, documents::DocumentError>;
using ListOutcome = expected<std::vector<documents::IndexedSource>, documents::DocumentError>;

documents::DocumentError interrupted() {
    return documents::DocumentError{documents::DocumentErrc::cancelled, "interrupted"};
}

int ingest(boost::asio::io_context& io, const std::shared_ptr<documents::DocumentIndex>& index,
           const DocsOptions& options, std::shared_ptr<llm::Embedder> embedder) {
    documents::IngestOptions ingestOptions;
    ingestOptions.include = options.include;
    ingestOptions.exclude = options.exclude;
    ingestOptions.chunking.maxChars = options.chunkChars;
    ingestOptions.chunking.overlapChars = options.overlapChars;
    ingestOptions.maxFileBytes = options.maxFileBytes;
    documents::Documents docs(index, std::move(ingestOptions), std::move(embedder));
    std::vector<std::filesystem::path> paths(options.paths.begin(), options.paths.end());
    const auto started = std::chrono::steady_clock::now();
    const IngestOutcome report =
        runToEnd<IngestOutcome>(io, docs.ingest(std::move(paths)), fail(interrupted()));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!report) {
        std::cerr << "reagent: " << report.error().describe() << "\n";
        return kExitRunFailed;
    }
    bool namedSkipped = false;
    for (const documents::SkippedFile& skipped : report->skipped) {
        std::cerr << "skipped " << skipped.path << ": " << skipped.error.message << "\n";
        namedSkipped = namedSkipped || skipped.named;
    }
    if (options.json) {
        ordered_json out;
        out["added"] = report->added;
        out["replaced"] = report->replaced;
        out["unchanged"] = report->unchanged;
        out["removed"] = report->removed;
        out["chunks"] = report->chunks;
        out["bytes"] = report->bytes;
        out["seconds"] = seconds;
        ordered_json skipped = ordered_json::array();
        for (const documents::SkippedFile& each : report->skipped) {
            skipped.push_back({{"path", each.path},
                               {"code", documents::toString(each.error.code)},
                               {"message", each.error.message}});
        }
        out["skipped"] = std::move(skipped);
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << "ingested into " << options.index << ": " << report->added << " added, "
                  << report->replaced << " replaced, " << report->unchanged << " unchanged, "
                  << report->removed << " removed; " << report->chunks << " chunks from " << report->bytes
                  << " bytes in " << seconds << " s\n";
    }
    return namedSkipped ? kExitRunFailed : kExitSuccess;
}

documents::Ranking rankingOf(const std::string& name) {
    using documents::Ranking;
    return name == "text"         ? Ranking::text
           : name == "embeddings" ? Ranking::embeddings
           : name == "hybrid"     ? Ranking::hybrid
                                  : Ranking::automatic;
}

int search(boost::asio::io_context& io, const std::shared_ptr<documents::DocumentIndex>& index,
           const DocsOptions& options, std::shared_ptr<llm::Embedder> embedder) {
    documents::Documents docs(index, {}, std::move(embedder));
    const SearchOutcome passages = runToEnd<SearchOutcome>(
        io, docs.search(options.query, options.limit, rankingOf(options.ranking)), fail(interrupted()));
    if (!passages) {
        std::cerr << "reagent: " << passages.error().describe() << "\n";
        return kExitRunFailed;
    }
    if (options.json) {
        ordered_json out = ordered_json::array();
        for (const documents::Passage& passage : *passages) {
            ordered_json item;
            item["citation"] = passage.citation();
            item["source"] = passage.source;
            item["lineStart"] = passage.lineStart;
            item["lineEnd"] = passage.lineEnd;
            if (passage.page > 0) {
                item["page"] = passage.page;
            }
            item["heading"] = passage.heading;
            item["score"] = passage.score;
            item["text"] = passage.text;
            out.push_back(std::move(item));
        }
        std::cout << out.dump(2) << "\n";
        return kExitSuccess;
    }
    if (passages->empty()) {
        std::cout << "no passage matches\n";
    }
    for (std::size_t i = 0; i < passages->size(); ++i) {
        const documents::Passage& passage = (*passages)[i];
        std::cout << "[" << i + 1 << "] " << passage.citation() << "\n" << passage.text << "\n\n";
    }
    return kExitSuccess;
}

int list(boost::asio::io_context& io, const std::shared_ptr<documents::DocumentIndex>& index,
         const DocsOptions& options) {
    const ListOutcome sources = runToEnd<ListOutcome>(io, index->sources(), fail(interrupted()));
    if (!sources) {
        std::cerr << "reagent: " << sources.error().describe() << "\n";
        return kExitRunFailed;
    }
    if (options.json) {
        ordered_json out = ordered_json::array();
        for (const documents::IndexedSource& source : *sources) {
            out.push_back({{"source", source.source}, {"chunks", source.chunks}});
        }
        std::cout << out.dump(2) << "\n";
        return kExitSuccess;
    }
    for (const documents::IndexedSource& source : *sources) {
        std::cout << source.source << " (" << source.chunks << " chunks)\n";
    }
    std::cout << sources->size() << " documents\n";
    return kExitSuccess;
}

}  // namespace

int docsCommand(boost::asio::io_context& io, const DocsOptions& options) {
    std::error_code error;
    if (options.action != "ingest" && !std::filesystem::exists(options.index, error)) {
        std::cerr << "reagent: no document index at '" << options.index
                  << "' (make one with `reagent docs ingest "
                  << "PATH... --index " << options.index << "`)\n";
        return kExitRunFailed;
    }
    auto index = documents::SqliteDocumentIndex::open(options.index);
    if (!index) {
        std::cerr << "reagent: " << index.error().describe() << "\n";
        return kExitRunFailed;
    }
    std::string warning;
    auto embedder = options.action == "list" ? expected<std::shared_ptr<llm::Embedder>, std::string>()
                                             : embedderFor(options.embedder, **index, warning);
    if (!embedder) {
        std::cerr << "reagent: " << embedder.error() << "\n";
        return kExitUsage;
    }
    if (!warning.empty()) {
        std::cerr << "reagent: " << warning << "\n";
    }
    if (options.action == "ingest") {
        return ingest(io, *index, options, std::move(*embedder));
    }
    if (options.action == "search") {
        return search(io, *index, options, std::move(*embedder));
    }
    return list(io, *index, options);
}

}  // namespace reagent::cli
