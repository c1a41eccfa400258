// Opening an episodic store: for writing (creating, checking and marking the schema, switching to WAL)
// and for reading only.

#include <filesystem>
#include <system_error>

#include "episodic_store_impl.hpp"

namespace reagent::memory {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

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

// Version 2: the attachments of episodes, their bytes kept once per content hash.
constexpr const char* kAttachmentSchema = R"sql(
CREATE TABLE IF NOT EXISTS blobs (
    hash  TEXT PRIMARY KEY,
    bytes BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS episode_attachments (
    episode    INTEGER NOT NULL,
    position   INTEGER NOT NULL,
    media_type TEXT NOT NULL,
    name       TEXT NOT NULL,
    url        TEXT NOT NULL,
    hash       TEXT,
    PRIMARY KEY (episode, position)
) WITHOUT ROWID;
)sql";

// The columns of the `episodes` table, in order, as `PRAGMA table_info` lists them.
constexpr const char* kTableColumns = "id,action,tool,input,result,timestamp";

// A symbolic link whose target is missing: SQLite would create the target, wherever it points.
expected<void, MemoryError> refuseDanglingLink(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (ec || !std::filesystem::is_symlink(status) || std::filesystem::exists(path, ec)) {
        return {};
    }
    const auto target = std::filesystem::read_symlink(path, ec);
    return unexpected(MemoryError{MemoryErrc::storage_error,
                                  "episodic store '" + path + "' is a symbolic link to '" +
                                      (ec ? std::string("?") : target.string()) +
                                      "', which does not exist; its target is not created (create it, or "
                                      "give the path of a regular file)"});
}

}  // namespace

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
    auto tables = text(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
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
        return unexpected(notAStore(
            path, "it belongs to another application (application_id " + std::to_string(*application) + ")"));
    }
    if (*application == kApplicationId) {
        if (*version > kSchemaVersion) {
            return unexpected(notAStore(path, "it was written by a newer reagent (schema version " +
                                                  std::to_string(*version) + ", this one reads up to " +
                                                  std::to_string(kSchemaVersion) + ")"));
        }
        return *version < kSchemaVersion ? Kind::older : Kind::ours;
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
        // A new file gets every table; an unmarked or version-1 store, the tables added since.
        const std::string sql =
            (*kind == Kind::empty ? std::string(kSchema) : std::string()) + kAttachmentSchema + mark;
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
        return unexpected(storageError(path,
                                       "could not open the file (check that its directory exists and "
                                       "is writable)",
                                       impl->db));
    }
    sqlite3_extended_result_codes(impl->db, 1);
    sqlite3_busy_handler(impl->db, &Impl::onBusy, impl.get());
    // SQLite silently opens a write-protected file read-only; every episode would then be lost.
    if (sqlite3_db_readonly(impl->db, "main") == 1) {
        return unexpected(
            MemoryError{MemoryErrc::storage_error, "episodic store '" + path +
                                                       "' is read-only: episodes cannot be written "
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
        return unexpected(MemoryError{MemoryErrc::storage_error,
                                      "no episodic store at '" + path + "': the file does not exist"});
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
    // An older store, read as it is: it has no attachments.
    impl->attachments = *kind == Impl::Kind::ours;
    return EpisodicStore(std::move(impl));
}

}  // namespace reagent::memory
