// Opening an SQLite run store: the file checked to be ours, its schema created or migrated, WAL mode.

#include <array>

#include "sqlite_db.hpp"

namespace reagent::durable {

namespace {

// The migrations, one per schema version: kMigrations[v - 1] takes a store from version v - 1 to v.
// Append only; never edit one that has shipped.
constexpr std::array<const char*, SqliteRunStore::kSchemaVersion> kMigrations = {
    // 1: runs, their journals and their inputs.
    R"sql(
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    input TEXT NOT NULL,
    status TEXT NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0,
    owner TEXT NOT NULL DEFAULT '',
    lease_until INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    outcome TEXT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX runs_by_status ON runs (status, created, id);
CREATE INDEX runs_by_age ON runs (created, id);
CREATE TABLE journal (
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    step TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq),
    UNIQUE (run_id, step)
) WITHOUT ROWID;
CREATE TABLE inputs (
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    call_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql",
};

expected<std::int64_t, DurableError> pragma(const SqliteRunStore::Db& db, const char* sql) {
    auto statement = Statement::prepare(db, sql);
    if (!statement) {
        return unexpected(statement.error());
    }
    auto row = statement->step("could not read the store's header");
    if (!row) {
        return unexpected(row.error());
    }
    return *row ? statement->integer(0) : 0;
}

// Whether the file holds this version's schema already, read in a read transaction: the common open (a
// worker's, each CLI command's) takes no write lock, so it never waits for, nor delays, the writers.
expected<bool, DurableError> schemaIsCurrent(const SqliteRunStore::Db& db) {
    return inTransaction(
        db,
        [&]() -> expected<bool, DurableError> {
            auto application = pragma(db, "PRAGMA application_id");
            auto version = pragma(db, "PRAGMA user_version");
            if (!application || !version) {
                return unexpected(!application ? application.error() : version.error());
            }
            return *application == SqliteRunStore::kApplicationId &&
                   *version == SqliteRunStore::kSchemaVersion;
        },
        "BEGIN");
}

// Creates or migrates the schema, in one write transaction that first reads what the file holds (another
// process may have done it meanwhile).
expected<void, DurableError> prepareSchema(const SqliteRunStore::Db& db) {
    return inTransaction(db, [&]() -> expected<void, DurableError> {
        auto application = pragma(db, "PRAGMA application_id");
        auto version = pragma(db, "PRAGMA user_version");
        auto objects = pragma(db, "SELECT count(*) FROM sqlite_master");
        if (!application || !version || !objects) {
            return unexpected(!application ? application.error()
                              : !version   ? version.error()
                                           : objects.error());
        }
        if (*application != SqliteRunStore::kApplicationId) {
            if (*application != 0 || *objects != 0) {
                return unexpected(db.notOurs(*application != 0 ? "it belongs to another application"
                                                               : "it holds tables of another application"));
            }
        }
        if (*version > SqliteRunStore::kSchemaVersion) {
            return unexpected(DurableError{
                DurableErrc::schema_too_new,
                "run store '" + db.path + "' has schema version " + std::to_string(*version) +
                    ", newer than this reagent's " + std::to_string(SqliteRunStore::kSchemaVersion) +
                    ": use a newer reagent, or another store (it was left unchanged)"});
        }
        for (std::int64_t next = *version + 1; next <= SqliteRunStore::kSchemaVersion; ++next) {
            const auto what = "could not migrate to schema version " + std::to_string(next);
            if (auto migrated = db.exec(kMigrations[static_cast<std::size_t>(next - 1)], what); !migrated) {
                return migrated;
            }
        }
        const std::string mark = "PRAGMA application_id = " + std::to_string(SqliteRunStore::kApplicationId) +
                                 "; PRAGMA user_version = " + std::to_string(SqliteRunStore::kSchemaVersion);
        return db.exec(mark.c_str(), "could not mark the store's version");
    });
}

}  // namespace

expected<std::shared_ptr<SqliteRunStore>, DurableError> SqliteRunStore::open(const std::string& path,
                                                                             SqliteOptions options) {
    if (path.empty()) {
        return unexpected(DurableError{DurableErrc::invalid_input, "a run store needs a file path"});
    }
    if (options.lockWait.count() < 0) {
        return unexpected(
            DurableError{DurableErrc::invalid_input, "a run store's lock wait cannot be negative"});
    }
    if (!options.clock) {
        options.clock = nowMillis;
    }
    auto db = std::make_shared<Db>(path, std::move(options));
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db->db, flags, nullptr) != SQLITE_OK) {
        return unexpected(db->failure("could not open"));
    }
    sqlite3_extended_result_codes(db->db, 1);
    // Opening may wait for another opener's schema transaction (a short, one-time wait); afterwards every
    // operation is refused a lock at once and waits on its caller's timers.
    sqlite3_busy_timeout(db->db, static_cast<int>(db->options.lockWait.count()));
    if (sqlite3_db_readonly(db->db, "main") == 1) {
        return unexpected(DurableError{DurableErrc::storage_error,
                                       "run store '" + path + "' can only be read (check its permissions)"});
    }
    // The file is checked (and the schema made) before WAL mode, which would change a file not ours.
    auto current = schemaIsCurrent(*db);
    if (!current) {
        return unexpected(current.error());
    }
    if (!*current) {
        if (auto schema = prepareSchema(*db); !schema) {
            return unexpected(schema.error());
        }
    }
    if (auto wal = db->exec("PRAGMA journal_mode=WAL", "could not switch to WAL mode"); !wal) {
        return unexpected(wal.error());
    }
    const char* sync = db->options.syncEveryCommit ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
    if (auto synced = db->exec(sync, "could not set the commit mode"); !synced) {
        return unexpected(synced.error());
    }
    if (auto keys = db->exec("PRAGMA foreign_keys=ON", "could not enable foreign keys"); !keys) {
        return unexpected(keys.error());
    }
    sqlite3_busy_timeout(db->db, 0);
    return std::shared_ptr<SqliteRunStore>(new SqliteRunStore(std::move(db)));
}

SqliteRunStore::SqliteRunStore(std::shared_ptr<Db> db) : db_(std::move(db)) {}

SqliteRunStore::~SqliteRunStore() = default;

}  // namespace reagent::durable
