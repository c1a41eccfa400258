#include "reagent/memory/episodic_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <string_view>

#include "utf8.hpp"

namespace reagent::memory {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

constexpr int kBusyTimeoutMs = 5000;
constexpr std::size_t kSnippetRadius = 40;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS episodes (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    action    TEXT NOT NULL,
    tool      TEXT NOT NULL,
    input     TEXT NOT NULL,
    result    TEXT NOT NULL,
    timestamp INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS episodes_by_time ON episodes(timestamp, id);
)sql";

constexpr const char* kColumns = "id, action, tool, input, result, timestamp";

MemoryError storageError(const std::string& path, std::string_view what, sqlite3* db) {
    std::string message = std::string(what) + " in episodic store '" + path + "'";
    if (db != nullptr) {
        message += ": ";
        message += sqlite3_errmsg(db);
    }
    return {MemoryErrc::storage_error, std::move(message)};
}

// Owns a prepared statement.
struct Statement {
    sqlite3_stmt* stmt = nullptr;
    Statement() = default;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() { sqlite3_finalize(stmt); }
};

void bindText(sqlite3_stmt* stmt, int index, const std::string& text) {
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

std::string columnText(sqlite3_stmt* stmt, int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt, column));
    return text == nullptr ? std::string{} : std::string(text, size);
}

Episode readEpisode(sqlite3_stmt* stmt) {
    Episode episode;
    episode.id = sqlite3_column_int64(stmt, 0);
    episode.action = columnText(stmt, 1);
    episode.tool = columnText(stmt, 2);
    episode.input = columnText(stmt, 3);
    episode.result = columnText(stmt, 4);
    episode.timestamp = system_clock::time_point(milliseconds(sqlite3_column_int64(stmt, 5)));
    return episode;
}

// `keyword` with LIKE's wildcards and the escape character escaped, wrapped in `%`.
std::string likePattern(const std::string& keyword) {
    std::string pattern = "%";
    for (const char c : keyword) {
        if (c == '%' || c == '_' || c == '\\') {
            pattern += '\\';
        }
        pattern += c;
    }
    pattern += '%';
    return pattern;
}

// Position of `keyword` in `text`, ASCII case-insensitive (as SQLite's LIKE), or npos.
std::size_t findNoCase(std::string_view text, std::string_view keyword) {
    const auto it = std::search(text.begin(), text.end(), keyword.begin(), keyword.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    return it == text.end() ? std::string_view::npos : static_cast<std::size_t>(it - text.begin());
}

std::string snippetFor(const Episode& episode, const std::string& keyword) {
    for (const std::string* field : {&episode.tool, &episode.input, &episode.result}) {
        if (const auto pos = findNoCase(*field, keyword); pos != std::string_view::npos) {
            return utf8::snippetAround(*field, pos, pos + keyword.size(), kSnippetRadius);
        }
    }
    return {};
}

}  // namespace

std::string formatTimestamp(std::chrono::system_clock::time_point when) {
    const std::time_t seconds = system_clock::to_time_t(when);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

struct EpisodicStore::Impl {
    std::string path;
    sqlite3* db = nullptr;
    mutable std::mutex mutex;

    ~Impl() { sqlite3_close_v2(db); }

    [[nodiscard]] expected<void, MemoryError> prepare(Statement& statement, const char* sql) const {
        if (sqlite3_prepare_v2(db, sql, -1, &statement.stmt, nullptr) != SQLITE_OK) {
            return unexpected(storageError(path, "could not prepare a statement", db));
        }
        return {};
    }

    // Steps a query to the end, collecting each row.
    template <class Row>
    [[nodiscard]] expected<std::vector<Row>, MemoryError> rows(sqlite3_stmt* stmt, Row (*read)(sqlite3_stmt*),
                                                               std::string_view what) const {
        std::vector<Row> out;
        for (;;) {
            const int rc = sqlite3_step(stmt);
            if (rc == SQLITE_ROW) {
                out.push_back(read(stmt));
            } else if (rc == SQLITE_DONE) {
                return out;
            } else {
                return unexpected(storageError(path, what, db));
            }
        }
    }
};

EpisodicStore::EpisodicStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EpisodicStore::EpisodicStore(EpisodicStore&&) noexcept = default;
EpisodicStore& EpisodicStore::operator=(EpisodicStore&&) noexcept = default;
EpisodicStore::~EpisodicStore() = default;

const std::string& EpisodicStore::path() const noexcept { return impl_->path; }

expected<EpisodicStore, MemoryError> EpisodicStore::open(const std::string& path) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK) {
        return unexpected(storageError(path, "could not open the file (check that its directory exists and "
                                             "is writable)", impl->db));
    }
    sqlite3_extended_result_codes(impl->db, 1);
    sqlite3_busy_timeout(impl->db, kBusyTimeoutMs);
    // WAL lets readers in other connections and processes proceed while one writes.
    {
        Statement wal;
        if (auto ok = impl->prepare(wal, "PRAGMA journal_mode=WAL"); !ok) {
            return unexpected(ok.error());
        }
        const int rc = sqlite3_step(wal.stmt);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            return unexpected(storageError(path, "could not switch to WAL journaling", impl->db));
        }
    }
    // In WAL mode NORMAL syncs at checkpoints rather than on every commit: a logged episode survives a
    // crash of the process, and only a power loss can drop the last few, for a tenth of the cost.
    if (sqlite3_exec(impl->db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr) != SQLITE_OK) {
        return unexpected(storageError(path, "could not set the synchronous mode", impl->db));
    }
    char* message = nullptr;
    if (sqlite3_exec(impl->db, kSchema, nullptr, nullptr, &message) != SQLITE_OK) {
        auto error = storageError(path, "could not create the schema", nullptr);
        error.message += ": ";
        error.message += message != nullptr ? message : sqlite3_errmsg(impl->db);
        sqlite3_free(message);
        return unexpected(std::move(error));
    }
    return EpisodicStore(std::move(impl));
}

expected<std::int64_t, MemoryError> EpisodicStore::record(const Episode& episode) {
    const std::lock_guard lock(impl_->mutex);
    Statement insert;
    if (auto ok = impl_->prepare(
            insert, "INSERT INTO episodes(action, tool, input, result, timestamp) VALUES (?1, ?2, ?3, ?4, ?5)");
        !ok) {
        return unexpected(ok.error());
    }
    const auto when = episode.timestamp == system_clock::time_point{} ? system_clock::now() : episode.timestamp;
    bindText(insert.stmt, 1, episode.action);
    bindText(insert.stmt, 2, episode.tool);
    bindText(insert.stmt, 3, episode.input);
    bindText(insert.stmt, 4, episode.result);
    sqlite3_bind_int64(insert.stmt, 5,
                       std::chrono::duration_cast<milliseconds>(when.time_since_epoch()).count());
    if (sqlite3_step(insert.stmt) != SQLITE_DONE) {
        return unexpected(storageError(impl_->path, "could not record an episode", impl_->db));
    }
    return sqlite3_last_insert_rowid(impl_->db);
}

expected<std::vector<EpisodeHit>, MemoryError> EpisodicStore::search(const std::string& keyword,
                                                                     std::size_t limit) const {
    if (keyword.empty() || limit == 0) {
        return std::vector<EpisodeHit>{};
    }
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    const std::string sql = std::string("SELECT ") + kColumns +
                            " FROM episodes WHERE tool LIKE ?1 ESCAPE '\\' OR input LIKE ?1 ESCAPE '\\'"
                            " OR result LIKE ?1 ESCAPE '\\' ORDER BY timestamp DESC, id DESC LIMIT ?2";
    if (auto ok = impl_->prepare(query, sql.c_str()); !ok) {
        return unexpected(ok.error());
    }
    bindText(query.stmt, 1, likePattern(keyword));
    sqlite3_bind_int64(query.stmt, 2, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, INT64_MAX)));
    auto episodes = impl_->rows(query.stmt, &readEpisode, "could not search");
    if (!episodes) {
        return unexpected(episodes.error());
    }
    std::vector<EpisodeHit> hits;
    hits.reserve(episodes->size());
    for (auto& episode : *episodes) {
        std::string snippet = snippetFor(episode, keyword);
        hits.push_back(EpisodeHit{std::move(episode), std::move(snippet)});
    }
    return hits;
}

expected<std::vector<Episode>, MemoryError> EpisodicStore::recent(std::size_t limit) const {
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    const std::string sql =
        std::string("SELECT ") + kColumns + " FROM episodes ORDER BY timestamp DESC, id DESC LIMIT ?1";
    if (auto ok = impl_->prepare(query, sql.c_str()); !ok) {
        return unexpected(ok.error());
    }
    sqlite3_bind_int64(query.stmt, 1, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, INT64_MAX)));
    return impl_->rows(query.stmt, &readEpisode, "could not read recent episodes");
}

expected<Episode, MemoryError> EpisodicStore::find(std::int64_t id) const {
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    const std::string sql = std::string("SELECT ") + kColumns + " FROM episodes WHERE id = ?1";
    if (auto ok = impl_->prepare(query, sql.c_str()); !ok) {
        return unexpected(ok.error());
    }
    sqlite3_bind_int64(query.stmt, 1, id);
    auto episodes = impl_->rows(query.stmt, &readEpisode, "could not read an episode");
    if (!episodes) {
        return unexpected(episodes.error());
    }
    if (episodes->empty()) {
        return unexpected(MemoryError{MemoryErrc::not_found, "no episode #" + std::to_string(id) + " in '" +
                                                                 impl_->path + "' (search to find ids)"});
    }
    return std::move(episodes->front());
}

expected<std::size_t, MemoryError> EpisodicStore::count() const {
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    if (auto ok = impl_->prepare(query, "SELECT COUNT(*) FROM episodes"); !ok) {
        return unexpected(ok.error());
    }
    if (sqlite3_step(query.stmt) != SQLITE_ROW) {
        return unexpected(storageError(impl_->path, "could not count episodes", impl_->db));
    }
    return static_cast<std::size_t>(sqlite3_column_int64(query.stmt, 0));
}

}  // namespace reagent::memory
