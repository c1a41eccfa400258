// Documents on SQLite against the floor of their index, measured in the same run:
// - ingestion throughput (MB/s): a generated corpus of Markdown files read, chunked and indexed by
//   `Documents::ingest`, against a bare loop inserting the same chunks' texts into a bare FTS5 table
//   (one transaction per file, as ingest makes);
// - query latency at 10,000 and 100,000 chunks: `Documents::search` (BM25, passages with their sources)
//   against a bare FTS5 query of the same words on the same index returning the same columns.
// A plain program:   documents_bench [queries]   (default 200)

#include <sqlite3.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <reagent/reagent.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_on.hpp"

using namespace reagent;
using Clock = std::chrono::steady_clock;
using bench::runOn;
namespace fs = std::filesystem;

namespace {

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// Words with a Zipf-like frequency, as prose has: a few common, most rare.
class Words {
  public:
    explicit Words(std::size_t vocabulary) {
        std::mt19937 make(7);
        for (std::size_t i = 0; i < vocabulary; ++i) {
            std::string word;
            const std::size_t length = 3 + make() % 8;
            for (std::size_t c = 0; c < length; ++c) {
                word.push_back(static_cast<char>('a' + make() % 26));
            }
            words_.push_back(std::move(word));
        }
    }
    const std::string& next(std::mt19937& random) const {
        const double u = std::uniform_real_distribution<double>(0, 1)(random);
        return words_[static_cast<std::size_t>(std::pow(u, 3) * static_cast<double>(words_.size()))];
    }

  private:
    std::vector<std::string> words_;
};

// `files` Markdown files of `sections` sections of about 900 characters: one chunk each.
std::uint64_t writeCorpus(const fs::path& dir, std::size_t files, std::size_t sections, const Words& words) {
    std::mt19937 random(11);
    std::uint64_t bytes = 0;
    fs::create_directories(dir);
    for (std::size_t f = 0; f < files; ++f) {
        std::string text = "# File " + std::to_string(f) + "\n\n";
        for (std::size_t s = 0; s < sections; ++s) {
            text += "## Section " + std::to_string(s) + "\n\n";
            std::size_t line = 0;
            while (line < 900) {
                const std::string& word = words.next(random);
                text += word + " ";
                line += word.size() + 1;
            }
            text += "\n\n";
        }
        std::ofstream(dir / ("f" + std::to_string(f) + ".md")) << text;
        bytes += text.size();
    }
    return bytes;
}

void check(int rc, sqlite3* db, const char* what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
    }
}

// The floor of ingestion: the chunks' texts inserted into a bare FTS5 table, a transaction per file.
double bareIngest(const fs::path& file, const std::vector<std::vector<std::string>>& chunksPerFile) {
    sqlite3* db = nullptr;
    check(sqlite3_open(file.c_str(), &db), db, "open");
    check(sqlite3_exec(
              db,
              "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
              "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')",
              nullptr, nullptr, nullptr),
          db, "schema");
    sqlite3_stmt* insert = nullptr;
    check(sqlite3_prepare_v2(db, "INSERT INTO t(text) VALUES (?1)", -1, &insert, nullptr), db, "prepare");
    const auto started = Clock::now();
    for (const auto& chunks : chunksPerFile) {
        check(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), db, "begin");
        for (const std::string& text : chunks) {
            sqlite3_bind_text(insert, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
            check(sqlite3_step(insert), db, "insert");
            sqlite3_reset(insert);
        }
        check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
    }
    const double elapsed = seconds(started);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return elapsed;
}

// The floor of a query: FTS5's BM25 over the same index, the same columns, the same words (quoted, OR'ed).
double bareQueries(const fs::path& index, const std::vector<std::string>& queries, std::size_t limit) {
    sqlite3* db = nullptr;
    check(sqlite3_open_v2(index.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), db, "open");
    sqlite3_stmt* select = nullptr;
    check(
        sqlite3_prepare_v2(
            db,
            "SELECT c.id, s.source, c.line_start, c.line_end, c.page, c.heading, c.text, bm25(doc_fts, 2.0, "
            "1.0) "
            "FROM doc_fts JOIN doc_chunks c ON c.id = doc_fts.rowid JOIN doc_sources s ON s.id = c.source_id "
            "WHERE doc_fts MATCH ?1 ORDER BY bm25(doc_fts, 2.0, 1.0) LIMIT ?2",
            -1, &select, nullptr),
        db, "prepare");
    std::size_t rows = 0;
    const auto started = Clock::now();
    for (const std::string& query : queries) {
        std::string match;
        std::size_t start = 0;
        while (start < query.size()) {
            const std::size_t end = std::min(query.find(' ', start), query.size());
            match += (match.empty() ? "\"" : " OR \"") + query.substr(start, end - start) + "\"";
            start = end + 1;
        }
        sqlite3_bind_text(select, 1, match.data(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int64(select, 2, static_cast<sqlite3_int64>(limit));
        while (sqlite3_step(select) == SQLITE_ROW) {
            rows += sqlite3_column_bytes(select, 6) > 0 ? 1 : 0;
        }
        sqlite3_reset(select);
    }
    const double elapsed = seconds(started);
    sqlite3_finalize(select);
    sqlite3_close(db);
    if (rows == 0) {
        throw std::runtime_error("the bare queries found nothing");
    }
    return elapsed;
}

void measure(std::size_t chunks, std::size_t queryCount, const Words& words) {
    const fs::path dir = fs::temp_directory_path() / ("reagent-documents-bench-" + std::to_string(chunks));
    fs::remove_all(dir);
    const std::size_t sections = 100;
    const std::uint64_t bytes = writeCorpus(dir / "corpus", chunks / sections, sections, words);

    boost::asio::io_context io;
    auto opened = documents::SqliteDocumentIndex::open((dir / "index.db").string());
    if (!opened) {
        throw std::runtime_error(opened.error().describe());
    }
    documents::IngestOptions options;
    options.chunking.overlapChars = 0;  // the bare loop inserts each chunk's text once
    documents::Documents docs(*opened, options);
    const auto started = Clock::now();
    auto report = runOn(io, docs.ingest({dir / "corpus"}));
    const double ingestSeconds = seconds(started);
    if (!report || report->chunks < chunks) {
        throw std::runtime_error("ingestion made too few chunks");
    }

    // The bare floor inserts the same chunks (cut the same way, outside the timing).
    std::vector<std::vector<std::string>> chunksPerFile;
    for (const auto& entry : fs::directory_iterator(dir / "corpus")) {
        std::ifstream in(entry.path());
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::vector<std::string> texts;
        for (auto& chunk : documents::chunkText(text, documents::TextFormat::markdown, options.chunking)) {
            texts.push_back(std::move(chunk.text));
        }
        chunksPerFile.push_back(std::move(texts));
    }
    const double bareSeconds = bareIngest(dir / "bare.db", chunksPerFile);
    const double mb = static_cast<double>(bytes) / 1e6;
    std::printf(
        "%zu chunks (%.1f MB): ingest %.1f MB/s, a bare FTS5 insert loop %.1f MB/s (%.2fx its time)\n",
        report->chunks, mb, mb / ingestSeconds, mb / bareSeconds, ingestSeconds / bareSeconds);

    std::mt19937 random(5);
    std::vector<std::string> queries;
    for (std::size_t q = 0; q < queryCount; ++q) {
        queries.push_back(words.next(random) + " " + words.next(random) + " " + words.next(random));
    }
    const std::size_t limit = 5;
    // Warm both (page cache, statement caches), then alternate rounds so that neither gets the quieter half.
    (void)runOn(io, docs.search(queries.front(), limit));
    (void)bareQueries(dir / "index.db", {queries.front()}, limit);
    double ours = 0;
    double bare = 0;
    for (int round = 0; round < 3; ++round) {
        const auto queried = Clock::now();
        for (const std::string& query : queries) {
            auto found = runOn(io, docs.search(query, limit));
            if (!found) {
                throw std::runtime_error(found.error().describe());
            }
        }
        ours += seconds(queried);
        bare += bareQueries(dir / "index.db", queries, limit);
    }
    const double n = 3.0 * static_cast<double>(queries.size());
    std::printf("%zu chunks: query %.3f ms, a bare FTS5 query %.3f ms (%.2fx)\n", report->chunks,
                ours / n * 1e3, bare / n * 1e3, ours / bare);
    fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t queries = argc > 1 ? std::stoul(argv[1]) : 200;
    const Words words(20000);
    try {
        measure(10'000, queries, words);
        measure(100'000, queries, words);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "documents_bench: %s\n", error.what());
        return 1;
    }
    return 0;
}
