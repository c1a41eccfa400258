// Documents: ingestion that reads, extracts and chunks only what changed, and search.

#include "reagent/documents/documents.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <set>
#include <utility>

#include "file_walk.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/file_read.hpp"
#include "reagent/documents/extraction.hpp"
#include "reagent/llm/attachment.hpp"

namespace reagent::documents {

namespace {

namespace fs = std::filesystem;

// The file's bytes, refused without reading when larger than `limit`.
expected<std::string, DocumentError> readFile(const fs::path& path, std::uint64_t limit) {
    auto bytes = readFileUpTo(path, limit);
    if (bytes) {
        return std::move(*bytes);
    }
    const FileReadFailure& failure = bytes.error();
    if (failure.tooLarge) {
        return fail(DocumentError{DocumentErrc::too_large,
                                  path.string() + " has " + std::to_string(failure.size) +
                                      " bytes, more than the limit of " + std::to_string(limit) +
                                      " (IngestOptions::maxFileBytes, --max-file-bytes)"});
    }
    if (!failure.reason.empty()) {
        return fail(
            DocumentError{DocumentErrc::unreadable, "cannot read " + path.string() + ": " + failure.reason});
    }
    return fail(
        DocumentError{DocumentErrc::unreadable, "cannot read " + path.string() +
                                                    " (check its permissions; it may have shrunk while being "
                                                    "read)"});
}

// What a document's chunks were made from: its bytes and the chunk options (new options re-chunk).
std::string hashOf(std::string_view bytes, const ChunkOptions& chunking, const llm::Embedder* embedder) {
    std::string hash = llm::contentHash(bytes) + "/" + std::to_string(chunking.maxChars) + "/" +
                       std::to_string(chunking.overlapChars);
    if (embedder != nullptr) {
        hash += "/" + std::string(embedder->name()) + ":" +
                std::string(embedder->model());  // a new model re-embeds
    }
    return hash;
}

DocumentError embeddingFailed(const std::string& what, const llm::ProviderError& error) {
    return DocumentError{DocumentErrc::embedding_failed, what + ": " + error.describe()};
}

// Embeds the chunks' texts in batches the embedder takes.
Task<expected<void, DocumentError>> embedChunks(llm::Embedder& embedder, const std::string& source,
                                                std::vector<IndexedChunk>& chunks) {
    const std::size_t batch = std::max<std::size_t>(1, embedder.maxBatch());
    for (std::size_t first = 0; first < chunks.size(); first += batch) {
        const std::size_t end = std::min(chunks.size(), first + batch);
        std::vector<std::string> texts;
        texts.reserve(end - first);
        for (std::size_t i = first; i < end; ++i) {
            texts.push_back(chunks[i].text);
        }
        auto call = embedder.embed(std::move(texts), llm::EmbeddingPurpose::document);
        auto embedded = co_await std::move(call);
        if (!embedded) {
            co_return fail(embeddingFailed("could not embed " + source, embedded.error()));
        }
        if (embedded->vectors.size() != end - first) {
            co_return fail(DocumentError{DocumentErrc::embedding_failed,
                                         "could not embed " + source + ": the embedder returned " +
                                             std::to_string(embedded->vectors.size()) + " vectors for " +
                                             std::to_string(end - first) + " chunks"});
        }
        for (std::size_t i = first; i < end; ++i) {
            chunks[i].embedding = std::move(embedded->vectors[i - first]);
        }
    }
    co_return expected<void, DocumentError>{};
}

// Reciprocal rank fusion (k = 60) of two rankings of chunks, the best `limit`.
std::vector<Passage> fused(std::vector<Passage> text, std::vector<Passage> near, std::size_t limit) {
    constexpr double kK = 60;
    std::vector<Passage> out;
    const auto add = [&](std::vector<Passage>& ranking) {
        for (std::size_t rank = 0; rank < ranking.size(); ++rank) {
            const double score = 1.0 / (kK + static_cast<double>(rank) + 1.0);
            const auto same = std::find_if(out.begin(), out.end(),
                                           [&](const Passage& p) { return p.chunk == ranking[rank].chunk; });
            if (same == out.end()) {
                ranking[rank].score = score;
                out.push_back(std::move(ranking[rank]));
            } else {
                same->score += score;
            }
        }
    };
    add(text);
    add(near);
    std::stable_sort(out.begin(), out.end(),
                     [](const Passage& a, const Passage& b) { return a.score > b.score; });
    if (out.size() > limit) {
        out.resize(limit);
    }
    return out;
}

std::vector<IndexedChunk> indexed(std::vector<TextChunk> chunks) {
    std::vector<IndexedChunk> out;
    out.reserve(chunks.size());
    for (TextChunk& chunk : chunks) {
        out.push_back(IndexedChunk{
            std::move(chunk.text), chunk.lineStart, chunk.lineEnd, chunk.page, std::move(chunk.heading), {}});
    }
    return out;
}

DocumentError cancelled() {
    return DocumentError{DocumentErrc::cancelled,
                         "the ingestion was cancelled; the documents done so far stay in the index"};
}

// Indexes one document's bytes unless the index has them already; an extraction failure is the
// document's (skipped), a storage failure the whole ingestion's.
struct Outcome {
    std::optional<DocumentError> skip;
    std::optional<DocumentError> fatal;
};

Task<Outcome> indexDocument(DocumentIndex& index, const ChunkOptions& chunking, llm::Embedder* embedder,
                            std::string source, std::string bytes, std::optional<TextFormat> format,
                            IngestReport& report) {
    const std::string hash = hashOf(bytes, chunking, embedder);
    auto lookup = index.hashOf(source);
    auto existing = co_await std::move(lookup);
    if (!existing) {
        co_return Outcome{std::nullopt, std::move(existing.error())};
    }
    if (*existing == hash) {
        ++report.unchanged;
        co_return Outcome{};
    }
    ExtractedText extracted;
    if (format) {
        auto checked = extractText(source + ".txt", bytes);  // a text given in code: checked as text
        if (!checked) {
            co_return Outcome{std::move(checked.error()), std::nullopt};
        }
        extracted = ExtractedText{std::move(checked->text), *format};
    } else {
        auto made = extractText(source, bytes);
        if (!made) {
            co_return Outcome{std::move(made.error()), std::nullopt};
        }
        extracted = std::move(*made);
    }
    auto chunks = indexed(chunkText(extracted.text, extracted.format, chunking));
    if (extracted.paged) {
        for (IndexedChunk& chunk : chunks) {
            chunk.page = std::max<std::size_t>(chunk.page, 1);  // one page has no form feed to count
        }
    }
    if (embedder != nullptr) {
        auto embedding = embedChunks(*embedder, source, chunks);
        auto embedded = co_await std::move(embedding);
        if (!embedded) {
            co_return Outcome{std::nullopt, std::move(embedded.error())};
        }
    }
    const std::size_t count = chunks.size();
    auto write = index.replace(source, hash, std::move(chunks));
    auto written = co_await std::move(write);
    if (!written) {
        co_return Outcome{std::nullopt, std::move(written.error())};
    }
    ++(existing->empty() ? report.added : report.replaced);
    report.chunks += count;
    report.bytes += bytes.size();
    co_return Outcome{};
}

// The sources under the walked folders that the walk no longer found.
Task<expected<std::size_t, DocumentError>> removeVanished(DocumentIndex& index,
                                                          const detail::Walked& walked) {
    if (walked.folders.empty()) {
        co_return std::size_t{0};
    }
    auto listing = index.sources();
    auto listed = co_await std::move(listing);
    if (!listed) {
        co_return fail(std::move(listed.error()));
    }
    std::set<std::string> seen;
    for (const detail::FileToRead& file : walked.files) {
        seen.insert(file.source);
    }
    for (const SkippedFile& skipped : walked.skipped) {
        seen.insert(skipped.path);  // unreadable now, perhaps not gone: kept
    }
    std::size_t removed = 0;
    for (const IndexedSource& source : *listed) {
        const bool underFolder = std::any_of(
            walked.folders.begin(), walked.folders.end(),
            [&](const std::string& folder) { return source.source.compare(0, folder.size(), folder) == 0; });
        if (!underFolder || seen.count(source.source) != 0) {
            continue;
        }
        auto drop = index.remove(source.source);
        auto dropped = co_await std::move(drop);
        if (!dropped) {
            co_return fail(std::move(dropped.error()));
        }
        removed += *dropped ? 1 : 0;
    }
    co_return removed;
}

// The index keeps which embedder made its vectors, so that a later search (another process, the CLI) can
// embed its queries with the same model.
Task<expected<void, DocumentError>> rememberEmbedder(DocumentIndex& index, const llm::Embedder& embedder) {
    auto write = index.setProperty(std::string(kEmbedderProperty),
                                   std::string(embedder.name()) + ":" + std::string(embedder.model()));
    co_return co_await std::move(write);
}

}  // namespace

Documents::Documents(std::shared_ptr<DocumentIndex> index, IngestOptions options,
                     std::shared_ptr<llm::Embedder> embedder)
    : index_(std::move(index)), options_(std::move(options)), embedder_(std::move(embedder)) {}

Task<expected<IngestReport, DocumentError>> Documents::ingest(std::vector<fs::path> paths,
                                                              fs::path sourcesRelativeTo) {
    namespace asio = boost::asio;
    co_await asio::this_coro::throw_if_cancelled(
        false);  // a cancellation is checked, and answered as a value
    const detail::Walked walked = detail::walkPaths(paths, options_, sourcesRelativeTo);
    IngestReport report;
    report.skipped = walked.skipped;
    for (const detail::FileToRead& file : walked.files) {
        // Between files the thread is given back: a long ingestion does not starve the others on it, and a
        // cancellation can arrive.
        co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return fail(cancelled());
        }
        auto bytes = readFile(file.path, options_.maxFileBytes);
        if (!bytes) {
            report.skipped.push_back({file.source, std::move(bytes.error()), file.named});
            continue;
        }
        auto step = indexDocument(*index_, options_.chunking, embedder_.get(), file.source, std::move(*bytes),
                                  std::nullopt, report);
        Outcome outcome = co_await std::move(step);
        if (outcome.fatal) {
            co_return fail(std::move(*outcome.fatal));
        }
        if (outcome.skip) {
            report.skipped.push_back({file.source, std::move(*outcome.skip), file.named});
        }
    }
    if (embedder_ && report.chunks > 0) {
        auto remember = rememberEmbedder(*index_, *embedder_);
        if (auto remembered = co_await std::move(remember); !remembered) {
            co_return fail(std::move(remembered.error()));
        }
    }
    auto prune = removeVanished(*index_, walked);
    auto removed = co_await std::move(prune);
    if (!removed) {
        co_return fail(std::move(removed.error()));
    }
    report.removed = *removed;
    co_return report;
}

Task<expected<IngestReport, DocumentError>> Documents::ingestText(std::string source, std::string text,
                                                                  TextFormat format) {
    if (source.empty()) {
        co_return fail(
            DocumentError{DocumentErrc::invalid_argument, "a text needs a source name to be cited by"});
    }
    IngestReport report;
    auto step =
        indexDocument(*index_, options_.chunking, embedder_.get(), source, std::move(text), format, report);
    Outcome outcome = co_await std::move(step);
    if (outcome.fatal) {
        co_return fail(std::move(*outcome.fatal));
    }
    if (outcome.skip) {
        co_return fail(std::move(*outcome.skip));
    }
    if (embedder_ && report.chunks > 0) {
        auto remember = rememberEmbedder(*index_, *embedder_);
        if (auto remembered = co_await std::move(remember); !remembered) {
            co_return fail(std::move(remembered.error()));
        }
    }
    co_return report;
}

Task<expected<std::vector<Passage>, DocumentError>> Documents::search(std::string query, std::size_t limit,
                                                                      Ranking ranking) {
    if (ranking == Ranking::automatic) {
        ranking = embedder_ ? Ranking::hybrid : Ranking::text;
    }
    if (ranking == Ranking::text) {
        auto text = index_->search(std::move(query), limit);
        co_return co_await std::move(text);
    }
    if (!embedder_) {
        co_return fail(
            DocumentError{DocumentErrc::invalid_argument,
                          "ranking by embeddings needs an embedder: give Documents one (reagent docs "
                          "--embedder), or rank by text"});
    }
    auto call = embedder_->embed({query}, llm::EmbeddingPurpose::query);
    auto embedded = co_await std::move(call);
    if (!embedded) {
        co_return fail(embeddingFailed("could not embed the query", embedded.error()));
    }
    if (embedded->vectors.size() != 1) {
        co_return fail(
            DocumentError{DocumentErrc::embedding_failed, "the embedder returned no vector for the query"});
    }
    // Hybrid ranks more candidates of each kind than it returns: a passage second in both beats one first
    // in only one.
    const std::size_t candidates = ranking == Ranking::hybrid ? std::max<std::size_t>(limit * 4, 20) : limit;
    auto nearSearch = index_->searchNear(std::move(embedded->vectors.front()), candidates);
    auto near = co_await std::move(nearSearch);
    if (!near || ranking == Ranking::embeddings) {
        co_return near;
    }
    auto textSearch = index_->search(std::move(query), candidates);
    auto text = co_await std::move(textSearch);
    if (!text) {
        co_return text;
    }
    co_return fused(std::move(*text), std::move(*near), limit);
}

std::string Passage::citation() const {
    std::string out = source;
    if (page > 0) {
        out += ", page " + std::to_string(page);
    } else {
        out += ":" + std::to_string(lineStart);
        if (lineEnd > lineStart) {
            out += "-" + std::to_string(lineEnd);
        }
    }
    if (!heading.empty()) {
        out += " (" + heading + ")";
    }
    return out;
}

}  // namespace reagent::documents
