#include "reagent/memory/episodic_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>

#include "utf8.hpp"

namespace reagent::memory {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using std::chrono::system_clock;

constexpr std::size_t kSnippetRadius = 40;
// Timestamps `record` can write: after the epoch (it writes "now" for the epoch) and up to 9999-12-31.
constexpr std::int64_t kLastValidMs = 253402300799999;

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

// The columns of the `episodes` table, in order, as `PRAGMA table_info` lists them.
constexpr const char* kTableColumns = "id,action,tool,input,result,timestamp";

constexpr const char* kColumns = "id, action, tool, input, result, timestamp";

MemoryError storageError(const std::string& path, std::string_view what, sqlite3* db) {
    std::string message = std::string(what) + " in episodic store '" + path + "'";
    MemoryErrc code = MemoryErrc::storage_error;
    if (db != nullptr) {
        message += ": ";
        message += sqlite3_errmsg(db);
        const int primary = sqlite3_extended_errcode(db) & 0xFF;
        if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
            code = MemoryErrc::busy;
        } else if (primary == SQLITE_NOTADB) {
            code = MemoryErrc::not_a_store;
        }
    }
    return {code, std::move(message)};
}

MemoryError notAStore(const std::string& path, std::string_view why) {
    return {MemoryErrc::not_a_store,
            "'" + path + "' is not a reagent episodic store: " + std::string(why) + " (it was left unchanged)"};
}

// A symbolic link whose target is missing: SQLite would create the target, wherever it points.
expected<void, MemoryError> refuseDanglingLink(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (ec || !std::filesystem::is_symlink(status) || std::filesystem::exists(path, ec)) {
        return {};
    }
    const auto target = std::filesystem::read_symlink(path, ec);
    return unexpected(MemoryError{
        MemoryErrc::storage_error, "episodic store '" + path + "' is a symbolic link to '" +
                                       (ec ? std::string("?") : target.string()) +
                                       "', which does not exist; its target is not created (create it, or "
                                       "give the path of a regular file)"});
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
    const std::int64_t ms = sqlite3_column_int64(stmt, 5);
    if (sqlite3_column_type(stmt, 5) == SQLITE_INTEGER && ms > 0 && ms <= kLastValidMs) {
        episode.timestamp = system_clock::time_point(milliseconds(ms));
    } else if (sqlite3_column_type(stmt, 5) == SQLITE_INTEGER) {
        episode.invalidTimestamp = std::to_string(ms);
    } else {
        // Text, a real or a blob (NULL cannot be stored): shown as SQL would quote it.
        episode.invalidTimestamp = sqlite3_column_type(stmt, 5) == SQLITE_TEXT
                                       ? "'" + columnText(stmt, 5) + "'"
                                       : columnText(stmt, 5);
    }
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
    const auto ms = std::chrono::duration_cast<milliseconds>(when.time_since_epoch()).count();
    if (ms < 0 || ms > kLastValidMs) {
        return "invalid timestamp (" + std::to_string(ms) + ")";
    }
    const std::time_t seconds = system_clock::to_time_t(when);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string formatTimestamp(const Episode& episode) {
    if (episode.invalidTimestamp) {
        return "invalid timestamp (" + *episode.invalidTimestamp + ")";
    }
    return formatTimestamp(episode.timestamp);
}

struct EpisodicStore::Impl {
    std::string path;
    sqlite3* db = nullptr;
    mutable std::mutex mutex;
    // How long the statement in progress may wait for a lock (guarded by `mutex`).
    milliseconds lockWait = kBusyTimeout;
    // When the wait for the current lock began (set on the busy handler's first call for it).
    steady_clock::time_point busySince;

    ~Impl() { sqlite3_close_v2(db); }

    // SQLite's busy handler: sleeps in short steps until the lock is free or `lockWait` has passed since
    // this lock's first refusal. (sqlite3_busy_timeout would fix one wait for every statement.)
    static int onBusy(void* self, int attempt) {
        auto* impl = static_cast<Impl*>(self);
        const auto now = steady_clock::now();
        if (attempt == 0) {
            impl->busySince = now;
        }
        const auto left = impl->busySince + impl->lockWait - now;
        if (left <= steady_clock::duration::zero()) {
            return 0;
        }
        const milliseconds step(attempt < 4 ? 1 << attempt : 10);
        std::this_thread::sleep_for(std::min<steady_clock::duration>(step, left));
        return 1;
    }

    [[nodiscard]] expected<void, MemoryError> exec(const char* sql, std::string_view what) const {
        if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
            return unexpected(explained(storageError(path, what, db)));
        }
        return {};
    }

    // SQLite's "file is not a database" (SQLITE_NOTADB) said as what it means for the user.
    [[nodiscard]] MemoryError explained(MemoryError error) const {
        if (error.code != MemoryErrc::not_a_store) {
            return error;
        }
        return notAStore(path, std::string("it is not an SQLite database (SQLite: ") + sqlite3_errmsg(db) + ")");
    }

    // The first column of the first row of `sql` as an integer, or as text.
    [[nodiscard]] expected<std::int64_t, MemoryError> integer(const char* sql) const;
    [[nodiscard]] expected<std::string, MemoryError> text(const char* sql) const;

    enum class Kind { empty, ours, legacy };
    // What the file holds; an error (`not_a_store`) for anything that is not ours.
    [[nodiscard]] expected<Kind, MemoryError> inspect() const;
    // `inspect` in a read transaction of its own: its several reads see one state of the file, never a
    // schema half created by a concurrent opener.
    [[nodiscard]] expected<Kind, MemoryError> inspectSnapshot() const {
        if (auto begun = exec("BEGIN", "could not start reading"); !begun) {
            return unexpected(begun.error());
        }
        auto kind = inspect();
        sqlite3_exec(db, kind ? "COMMIT" : "ROLLBACK", nullptr, nullptr, nullptr);
        return kind;
    }
    // Creates or marks the schema as needed, in one write transaction.
    [[nodiscard]] expected<void, MemoryError> initialise();
    [[nodiscard]] expected<void, MemoryError> switchToWal() const;

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

expected<std::int64_t, MemoryError> EpisodicStore::Impl::integer(const char* sql) const {
    Statement query;
    if (auto ok = prepare(query, sql); !ok) {
        return unexpected(ok.error());
    }
    if (sqlite3_step(query.stmt) != SQLITE_ROW) {
        return unexpected(storageError(path, "could not read the file", db));
    }
    return sqlite3_column_int64(query.stmt, 0);
}

expected<std::string, MemoryError> EpisodicStore::Impl::text(const char* sql) const {
    Statement query;
    if (auto ok = prepare(query, sql); !ok) {
        return unexpected(ok.error());
    }
    std::string out;
    for (int rc = sqlite3_step(query.stmt); rc != SQLITE_DONE; rc = sqlite3_step(query.stmt)) {
        if (rc != SQLITE_ROW) {
            return unexpected(storageError(path, "could not read the file", db));
        }
        out += (out.empty() ? "" : ",") + columnText(query.stmt, 0);
    }
    return out;
}

expected<EpisodicStore::Impl::Kind, MemoryError> EpisodicStore::Impl::inspect() const {
    // Reading the header first turns a file that is not SQLite into SQLITE_NOTADB here.
    auto tables = text("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                       "ORDER BY name");
    if (!tables) {
        return unexpected(explained(tables.error()));
    }
    auto application = integer("PRAGMA application_id");
    auto version = integer("PRAGMA user_version");
    if (!application || !version) {
        return unexpected(!application ? application.error() : version.error());
    }
    if (*application != 0 && *application != kApplicationId) {
        return unexpected(notAStore(path, "it belongs to another application (application_id " +
                                              std::to_string(*application) + ")"));
    }
    if (*application == kApplicationId) {
        if (*version > kSchemaVersion) {
            return unexpected(notAStore(path, "it was written by a newer reagent (schema version " +
                                                  std::to_string(*version) + ", this one reads up to " +
                                                  std::to_string(kSchemaVersion) + ")"));
        }
        return Kind::ours;
    }
    if (tables->empty() && *version == 0) {
        return Kind::empty;
    }
    // Stores written before they were marked hold the episodes table alone, with these columns.
    auto columns = text("SELECT name FROM pragma_table_info('episodes') ORDER BY cid");
    if (!columns) {
        return unexpected(columns.error());
    }
    if (*tables == "episodes" && *columns == kTableColumns && *version == 0) {
        return Kind::legacy;
    }
    return unexpected(notAStore(path, "it is an SQLite database of another application (tables: " +
                                          (tables->empty() ? std::string("none") : *tables) +
                                          ", user_version " + std::to_string(*version) + ")"));
}

expected<void, MemoryError> EpisodicStore::Impl::initialise() {
    // A complete store needs no write lock: opening it never waits for a writer in another process.
    if (auto kind = inspectSnapshot(); !kind || *kind == Kind::ours) {
        return kind ? expected<void, MemoryError>() : unexpected(kind.error());
    }
    // BEGIN IMMEDIATE takes the write lock before anything is read, a wait the busy handler covers; one
    // opener of a new file creates the schema and every other one then finds it complete.
    if (auto ok = exec("BEGIN IMMEDIATE", "could not lock the file to check its schema"); !ok) {
        return ok;
    }
    auto kind = inspect();
    expected<void, MemoryError> done;
    if (!kind) {
        done = unexpected(kind.error());
    } else if (*kind != Kind::ours) {
        const std::string mark = "PRAGMA application_id = " + std::to_string(kApplicationId) +
                                 "; PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";";
        const std::string sql = (*kind == Kind::empty ? std::string(kSchema) : std::string()) + mark;
        done = exec(sql.c_str(), "could not create the schema");
    }
    if (done) {
        done = exec("COMMIT", "could not commit the schema");
    }
    if (!done) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    return done;
}

expected<void, MemoryError> EpisodicStore::Impl::switchToWal() const {
    // The switch reads the header under a shared lock and then upgrades it to an exclusive one; SQLite
    // never calls the busy handler for an upgrade (two upgraders would deadlock), so while any other
    // connection reads the file (another opener, say) the switch fails at once with SQLITE_BUSY. It is
    // retried here until the busy timeout; once any connection has switched, the mode is in the file and
    // the switch is a no-op.
    const auto deadline = steady_clock::now() + kBusyTimeout;
    for (int attempt = 0;; ++attempt) {
        Statement wal;
        if (auto ok = prepare(wal, "PRAGMA journal_mode=WAL"); !ok) {
            return ok;
        }
        const int rc = sqlite3_step(wal.stmt);
        if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
            return {};
        }
        const int primary = rc & 0xFF;
        if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || steady_clock::now() >= deadline) {
            return unexpected(storageError(path, "could not switch to WAL journaling", db));
        }
        std::this_thread::sleep_for(milliseconds(attempt < 4 ? 1 << attempt : 10));
    }
}

expected<EpisodicStore, MemoryError> EpisodicStore::open(const std::string& path) {
    if (auto ok = refuseDanglingLink(path); !ok) {
        return unexpected(ok.error());
    }
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK) {
        return unexpected(storageError(path, "could not open the file (check that its directory exists and "
                                             "is writable)", impl->db));
    }
    sqlite3_extended_result_codes(impl->db, 1);
    sqlite3_busy_handler(impl->db, &Impl::onBusy, impl.get());
    // SQLite silently opens a write-protected file read-only; every episode would then be lost.
    if (sqlite3_db_readonly(impl->db, "main") == 1) {
        return unexpected(MemoryError{MemoryErrc::storage_error,
                                      "episodic store '" + path + "' is read-only: episodes cannot be written "
                                                                  "(check the file's permissions)"});
    }
    if (auto ok = impl->initialise(); !ok) {
        return unexpected(ok.error());
    }
    // WAL lets readers in other connections and processes proceed while one writes.
    if (auto ok = impl->switchToWal(); !ok) {
        return unexpected(ok.error());
    }
    // In WAL mode NORMAL syncs at checkpoints rather than on every commit: a logged episode survives a
    // crash of the process, and only a power loss can drop the last few, for a tenth of the cost.
    if (auto ok = impl->exec("PRAGMA synchronous=NORMAL", "could not set the synchronous mode"); !ok) {
        return unexpected(ok.error());
    }
    return EpisodicStore(std::move(impl));
}

expected<EpisodicStore, MemoryError> EpisodicStore::openReadOnly(const std::string& path) {
    if (auto ok = refuseDanglingLink(path); !ok) {
        return unexpected(ok.error());
    }
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        return unexpected(MemoryError{MemoryErrc::storage_error, "no episodic store at '" + path +
                                                                     "': the file does not exist"});
    }
    if (std::filesystem::is_directory(path, ec)) {
        return unexpected(notAStore(path, "it is a directory"));
    }
    if (std::filesystem::file_size(path, ec) == 0 && !ec) {
        return unexpected(notAStore(path, "the file is empty"));
    }
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK) {
        return unexpected(storageError(path, "could not open the file for reading", impl->db));
    }
    sqlite3_extended_result_codes(impl->db, 1);
    sqlite3_busy_handler(impl->db, &Impl::onBusy, impl.get());
    auto kind = impl->inspectSnapshot();
    if (!kind) {
        return unexpected(kind.error());
    }
    if (*kind == Impl::Kind::empty) {
        return unexpected(notAStore(path, "it is an SQLite database without an episodes table"));
    }
    return EpisodicStore(std::move(impl));
}

expected<std::int64_t, MemoryError> EpisodicStore::record(const Episode& episode) {
    return record(episode, kBusyTimeout);
}

expected<std::int64_t, MemoryError> EpisodicStore::record(const Episode& episode, milliseconds lockWait) {
    const std::lock_guard lock(impl_->mutex);
    impl_->lockWait = std::max(lockWait, milliseconds(0));
    struct RestoreWait {
        Impl& impl;
        ~RestoreWait() { impl.lockWait = kBusyTimeout; }
    } restore{*impl_};
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
