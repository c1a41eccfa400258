// The SQLite index: chunks in doc_chunks, their words in an FTS5 table over them (external content, kept
// in step by triggers), ranked by FTS5's BM25 with a chunk's heading path counting twice its text.

#include "reagent/documents/sqlite_document_index.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

#include "fts_query.hpp"
#include "sqlite_statement.hpp"

namespace reagent::documents {

struct SqliteDocumentIndex::Db {
    std::string path;
    sqlite3* db = nullptr;
    std::mutex mutex;  // held for each operation
    // The embeddings, unit length, loaded for the first search by embedding and kept while nobody writes:
    // a search by embedding compares the query with all of them (brute force; see docs/documents.md).
    struct Vectors {
        bool loaded = false;
        std::int64_t dataVersion =
            -1;  // SQLite's data_version when loaded: another process's write changes it
        std::vector<std::int64_t> ids;
        std::vector<std::size_t> offsets;  // into data, one per id, and one past the last
        std::vector<float> data;
    } vectors;

    explicit Db(std::string file) : path(std::move(file)) {}
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    ~Db() { sqlite3_close_v2(db); }

    [[nodiscard]] expected<detail::SqliteStatement, DocumentError> prepare(std::string_view sql) const {
        return detail::SqliteStatement::prepare(db, path, sql);
    }
    [[nodiscard]] expected<void, DocumentError> exec(const char* sql, std::string_view what) const {
        return detail::sqliteExec(db, path, sql, what);
    }
};

namespace {

using detail::SqliteStatement;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS doc_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS doc_sources(
    id INTEGER PRIMARY KEY, source TEXT NOT NULL UNIQUE, hash TEXT NOT NULL, indexed_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS doc_chunks(
    id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, position INTEGER NOT NULL,
    line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, page INTEGER NOT NULL,
    heading TEXT NOT NULL, text TEXT NOT NULL, embedding BLOB);
CREATE INDEX IF NOT EXISTS doc_chunks_source ON doc_chunks(source_id);
CREATE VIRTUAL TABLE IF NOT EXISTS doc_fts USING fts5(
    heading, text, content='doc_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS doc_chunks_added AFTER INSERT ON doc_chunks BEGIN
    INSERT INTO doc_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
END;
CREATE TRIGGER IF NOT EXISTS doc_chunks_removed AFTER DELETE ON doc_chunks BEGIN
    INSERT INTO doc_fts(doc_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
END;
INSERT OR IGNORE INTO doc_meta(key, value) VALUES ('schema', '1');
)sql";

// `attempt` in a write transaction: committed when it succeeds, rolled back otherwise.
template <class Attempt>
auto inTransaction(const SqliteDocumentIndex::Db& db, Attempt&& attempt) -> decltype(attempt()) {
    if (auto begun = db.exec("BEGIN IMMEDIATE", "could not start a write"); !begun) {
        return fail(std::move(begun.error()));
    }
    auto outcome = attempt();
    if (!outcome) {
        (void)db.exec("ROLLBACK", "could not roll back");
        return outcome;
    }
    if (auto committed = db.exec("COMMIT", "could not commit"); !committed) {
        (void)db.exec("ROLLBACK", "could not roll back");
        return fail(std::move(committed.error()));
    }
    return outcome;
}

expected<void, DocumentError> checkSchema(const SqliteDocumentIndex::Db& db) {
    auto version = db.prepare("SELECT value FROM doc_meta WHERE key = 'schema'");
    if (!version) {
        return fail(std::move(version.error()));
    }
    auto row = version->step("could not read the schema version");
    if (!row) {
        return fail(std::move(row.error()));
    }
    if (*row && std::stoll("0" + version->text(0)) > SqliteDocumentIndex::kSchemaVersion) {
        return fail(DocumentError{DocumentErrc::storage_failed,
                                  "document index '" + db.path + "' has schema version " + version->text(0) +
                                      ", newer than this reagent's " +
                                      std::to_string(SqliteDocumentIndex::kSchemaVersion) +
                                      ": use a newer reagent, or another index (it was left unchanged)"});
    }
    return {};
}

expected<std::int64_t, DocumentError> sourceId(const SqliteDocumentIndex::Db& db, const std::string& source) {
    auto find = db.prepare("SELECT id FROM doc_sources WHERE source = ?1");
    if (!find) {
        return fail(std::move(find.error()));
    }
    find->bind(1, source);
    auto row = find->step("could not look the document up");
    if (!row) {
        return fail(std::move(row.error()));
    }
    return *row ? find->integer(0) : 0;
}

expected<void, DocumentError> removeChunks(const SqliteDocumentIndex::Db& db, std::int64_t id) {
    auto remove = db.prepare("DELETE FROM doc_chunks WHERE source_id = ?1");
    if (!remove) {
        return fail(std::move(remove.error()));
    }
    return remove->bind(1, id).run("could not remove the document's chunks");
}

expected<void, DocumentError> writeSource(const SqliteDocumentIndex::Db& db, const std::string& source,
                                          const std::string& hash, const std::vector<IndexedChunk>& chunks) {
    auto existing = sourceId(db, source);
    if (!existing) {
        return fail(std::move(existing.error()));
    }
    if (*existing != 0) {
        if (auto removed = removeChunks(db, *existing); !removed) {
            return removed;
        }
    }
    auto upsert = db.prepare(
        "INSERT INTO doc_sources(source, hash, indexed_at) VALUES (?1, ?2, unixepoch()) "
        "ON CONFLICT(source) DO UPDATE SET hash = excluded.hash, indexed_at = excluded.indexed_at RETURNING "
        "id");
    if (!upsert) {
        return fail(std::move(upsert.error()));
    }
    upsert->bind(1, source).bind(2, hash);
    auto row = upsert->step("could not record the document");
    if (!row) {
        return fail(std::move(row.error()));
    }
    const std::int64_t id = upsert->integer(0);
    auto insert = db.prepare(
        "INSERT INTO doc_chunks(source_id, position, line_start, line_end, page, heading, text, embedding) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!insert) {
        return fail(std::move(insert.error()));
    }
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        const IndexedChunk& chunk = chunks[i];
        insert->reset();
        insert->bind(1, id)
            .bind(2, static_cast<std::int64_t>(i))
            .bind(3, static_cast<std::int64_t>(chunk.lineStart))
            .bind(4, static_cast<std::int64_t>(chunk.lineEnd))
            .bind(5, static_cast<std::int64_t>(chunk.page))
            .bind(6, chunk.heading)
            .bind(7, chunk.text)
            .bind(8, chunk.embedding);
        if (auto inserted = insert->run("could not store a chunk"); !inserted) {
            return inserted;
        }
    }
    return {};
}

// The passage of a row whose first columns are c.id, s.source, line_start, line_end, page, heading, text.
Passage passageOf(const SqliteStatement& row) {
    Passage passage;
    passage.chunk = row.integer(0);
    passage.source = row.text(1);
    passage.lineStart = static_cast<std::size_t>(row.integer(2));
    passage.lineEnd = static_cast<std::size_t>(row.integer(3));
    passage.page = static_cast<std::size_t>(row.integer(4));
    passage.heading = row.text(5);
    passage.text = row.text(6);
    return passage;
}

expected<std::int64_t, DocumentError> dataVersion(const SqliteDocumentIndex::Db& db) {
    auto version = db.prepare("PRAGMA data_version");
    if (!version) {
        return fail(std::move(version.error()));
    }
    auto row = version->step("could not read the index's version");
    if (!row) {
        return fail(std::move(row.error()));
    }
    return version->integer(0);
}

void normalise(std::vector<float>& values) {
    double norm = 0;
    for (const float v : values) {
        norm += static_cast<double>(v) * v;
    }
    if (norm > 0) {
        const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
        for (float& v : values) {
            v *= scale;
        }
    }
}

// The embeddings in memory, reloaded when this connection or another process wrote since.
expected<void, DocumentError> loadVectors(SqliteDocumentIndex::Db& db) {
    auto version = dataVersion(db);
    if (!version) {
        return fail(std::move(version.error()));
    }
    auto& cache = db.vectors;
    if (cache.loaded && cache.dataVersion == *version) {
        return {};
    }
    cache = {};
    auto select = db.prepare("SELECT id, embedding FROM doc_chunks WHERE embedding IS NOT NULL ORDER BY id");
    if (!select) {
        return fail(std::move(select.error()));
    }
    cache.offsets.push_back(0);
    while (true) {
        auto row = select->step("could not read the embeddings");
        if (!row) {
            return fail(std::move(row.error()));
        }
        if (!*row) {
            break;
        }
        std::vector<float> values = select->floats(1);
        normalise(values);
        cache.ids.push_back(select->integer(0));
        cache.data.insert(cache.data.end(), values.begin(), values.end());
        cache.offsets.push_back(cache.data.size());
    }
    cache.loaded = true;
    cache.dataVersion = *version;
    return {};
}

}  // namespace

expected<std::shared_ptr<SqliteDocumentIndex>, DocumentError> SqliteDocumentIndex::open(
    const std::string& path, std::chrono::milliseconds lockWait) {
    if (path.empty()) {
        return fail(DocumentError{DocumentErrc::invalid_argument, "a document index needs a file path"});
    }
    auto db = std::make_unique<Db>(path);
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db->db, flags, nullptr) != SQLITE_OK) {
        return fail(detail::sqliteFailure(db->db, path, "could not open"));
    }
    sqlite3_extended_result_codes(db->db, 1);
    sqlite3_busy_timeout(db->db, static_cast<int>(lockWait.count()));
    if (auto wal =
            db->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", "could not switch to WAL mode");
        !wal) {
        return fail(std::move(wal.error()));
    }
    if (auto schema = db->exec(kSchema, "could not create the index's tables"); !schema) {
        return fail(std::move(schema.error()));
    }
    if (auto current = checkSchema(*db); !current) {
        return fail(std::move(current.error()));
    }
    return std::shared_ptr<SqliteDocumentIndex>(new SqliteDocumentIndex(std::move(db)));
}

SqliteDocumentIndex::SqliteDocumentIndex(std::unique_ptr<Db> db) : db_(std::move(db)) {}

SqliteDocumentIndex::~SqliteDocumentIndex() = default;

Task<expected<std::string, DocumentError>> SqliteDocumentIndex::hashOf(std::string source) {
    const std::lock_guard lock(db_->mutex);
    auto find = db_->prepare("SELECT hash FROM doc_sources WHERE source = ?1");
    if (!find) {
        co_return fail(std::move(find.error()));
    }
    find->bind(1, source);
    auto row = find->step("could not look the document up");
    if (!row) {
        co_return fail(std::move(row.error()));
    }
    co_return *row ? find->text(0) : std::string();
}

Task<expected<void, DocumentError>> SqliteDocumentIndex::replace(std::string source, std::string hash,
                                                                 std::vector<IndexedChunk> chunks) {
    if (source.empty()) {
        co_return fail(DocumentError{DocumentErrc::invalid_argument, "a document needs a source name"});
    }
    const std::lock_guard lock(db_->mutex);
    db_->vectors.loaded = false;
    co_return inTransaction(*db_, [&] { return writeSource(*db_, source, hash, chunks); });
}

Task<expected<bool, DocumentError>> SqliteDocumentIndex::remove(std::string source) {
    const std::lock_guard lock(db_->mutex);
    db_->vectors.loaded = false;
    co_return inTransaction(*db_, [&]() -> expected<bool, DocumentError> {
        auto id = sourceId(*db_, source);
        if (!id) {
            return fail(std::move(id.error()));
        }
        if (*id == 0) {
            return false;
        }
        if (auto removed = removeChunks(*db_, *id); !removed) {
            return fail(std::move(removed.error()));
        }
        auto drop = db_->prepare("DELETE FROM doc_sources WHERE id = ?1");
        if (!drop) {
            return fail(std::move(drop.error()));
        }
        if (auto dropped = drop->bind(1, *id).run("could not remove the document"); !dropped) {
            return fail(std::move(dropped.error()));
        }
        return true;
    });
}

Task<expected<std::vector<Passage>, DocumentError>> SqliteDocumentIndex::search(std::string query,
                                                                                std::size_t limit) {
    const std::string match = detail::ftsQuery(query);
    if (match.empty() || limit == 0) {
        co_return std::vector<Passage>{};
    }
    const std::lock_guard lock(db_->mutex);
    auto select = db_->prepare(
        "SELECT c.id, s.source, c.line_start, c.line_end, c.page, c.heading, c.text, bm25(doc_fts, 2.0, 1.0) "
        "FROM doc_fts JOIN doc_chunks c ON c.id = doc_fts.rowid JOIN doc_sources s ON s.id = c.source_id "
        "WHERE doc_fts MATCH ?1 ORDER BY bm25(doc_fts, 2.0, 1.0) LIMIT ?2");
    if (!select) {
        co_return fail(std::move(select.error()));
    }
    select->bind(1, match).bind(2, static_cast<std::int64_t>(limit));
    std::vector<Passage> passages;
    while (true) {
        auto row = select->step("could not search");
        if (!row) {
            co_return fail(std::move(row.error()));
        }
        if (!*row) {
            break;
        }
        Passage passage = passageOf(*select);
        passage.score = -select->real(7);
        passages.push_back(std::move(passage));
    }
    co_return passages;
}

Task<expected<std::vector<Passage>, DocumentError>> SqliteDocumentIndex::searchNear(std::vector<float> query,
                                                                                    std::size_t limit) {
    normalise(query);
    if (query.empty() || limit == 0) {
        co_return std::vector<Passage>{};
    }
    const std::lock_guard lock(db_->mutex);
    if (auto loaded = loadVectors(*db_); !loaded) {
        co_return fail(std::move(loaded.error()));
    }
    const Db::Vectors& cache = db_->vectors;
    std::vector<std::pair<float, std::size_t>> scored;
    for (std::size_t i = 0; i < cache.ids.size(); ++i) {
        const std::size_t begin = cache.offsets[i];
        if (cache.offsets[i + 1] - begin != query.size()) {
            continue;  // another model's vector
        }
        float dot = 0;
        for (std::size_t d = 0; d < query.size(); ++d) {
            dot += cache.data[begin + d] * query[d];
        }
        scored.emplace_back(dot, i);
    }
    const std::size_t keep = std::min(limit, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep), scored.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    auto select = db_->prepare(
        "SELECT c.id, s.source, c.line_start, c.line_end, c.page, c.heading, c.text "
        "FROM doc_chunks c JOIN doc_sources s ON s.id = c.source_id WHERE c.id = ?1");
    if (!select) {
        co_return fail(std::move(select.error()));
    }
    std::vector<Passage> passages;
    for (std::size_t k = 0; k < keep; ++k) {
        select->reset();
        select->bind(1, cache.ids[scored[k].second]);
        auto row = select->step("could not read a passage");
        if (!row) {
            co_return fail(std::move(row.error()));
        }
        if (*row) {
            Passage passage = passageOf(*select);
            passage.score = scored[k].first;
            passages.push_back(std::move(passage));
        }
    }
    co_return passages;
}

Task<expected<std::string, DocumentError>> SqliteDocumentIndex::property(std::string key) {
    const std::lock_guard lock(db_->mutex);
    auto select = db_->prepare("SELECT value FROM doc_meta WHERE key = ?1");
    if (!select) {
        co_return fail(std::move(select.error()));
    }
    select->bind(1, "property:" + key);
    auto row = select->step("could not read a setting");
    if (!row) {
        co_return fail(std::move(row.error()));
    }
    co_return *row ? select->text(0) : std::string();
}

Task<expected<void, DocumentError>> SqliteDocumentIndex::setProperty(std::string key, std::string value) {
    const std::lock_guard lock(db_->mutex);
    auto upsert = db_->prepare(
        "INSERT INTO doc_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = "
        "excluded.value");
    if (!upsert) {
        co_return fail(std::move(upsert.error()));
    }
    upsert->bind(1, "property:" + key).bind(2, value);
    co_return upsert->run("could not write a setting");
}

Task<expected<std::vector<IndexedSource>, DocumentError>> SqliteDocumentIndex::sources() {
    const std::lock_guard lock(db_->mutex);
    auto select = db_->prepare(
        "SELECT s.source, s.hash, (SELECT count(*) FROM doc_chunks c WHERE c.source_id = s.id) "
        "FROM doc_sources s ORDER BY s.source");
    if (!select) {
        co_return fail(std::move(select.error()));
    }
    std::vector<IndexedSource> out;
    while (true) {
        auto row = select->step("could not list the documents");
        if (!row) {
            co_return fail(std::move(row.error()));
        }
        if (!*row) {
            break;
        }
        out.push_back(IndexedSource{select->text(0), select->text(1), select->integer(2)});
    }
    co_return out;
}

Task<expected<IndexStats, DocumentError>> SqliteDocumentIndex::stats() {
    const std::lock_guard lock(db_->mutex);
    auto select = db_->prepare(
        "SELECT (SELECT count(*) FROM doc_sources), count(*), coalesce(sum(length(CAST(text AS BLOB))), 0) "
        "FROM doc_chunks");
    if (!select) {
        co_return fail(std::move(select.error()));
    }
    auto row = select->step("could not count the documents");
    if (!row) {
        co_return fail(std::move(row.error()));
    }
    co_return IndexStats{select->integer(0), select->integer(1), select->integer(2)};
}

}  // namespace reagent::documents
