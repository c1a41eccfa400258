#pragma once
// Private to libs/durable: the SQLite store's connection, its statements and transactions, and the mapping
// of SQLite's failures to `DurableError`s. Operations run synchronously under `mutex`; SQLite is asked never
// to wait for a lock (its busy timeout is 0), so that the coroutine driver (sqlite_run_store.cpp) waits on
// timers instead of blocking a thread.

#include <sqlite3.h>

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "reagent/core/expected.hpp"
#include "reagent/durable/sqlite_run_store.hpp"

namespace reagent::durable {

struct SqliteRunStore::Db {
    std::string path;
    SqliteOptions options;
    sqlite3* db = nullptr;
    std::mutex mutex;  // held for each operation

    // Statements prepared once and kept, by their SQL: preparing costs more than most steps run. An
    // operation borrows one (`Statement::prepare`) and gives it back reset; one borrowed already is
    // prepared afresh for the second borrower.
    struct Kept {
        sqlite3_stmt* stmt = nullptr;
        bool borrowed = false;
    };
    mutable std::unordered_map<std::string, Kept> kept;

    Db(std::string file, SqliteOptions opened) : path(std::move(file)), options(std::move(opened)) {}
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    ~Db() {
        for (auto& [sql, statement] : kept) {
            sqlite3_finalize(statement.stmt);
        }
        sqlite3_close_v2(db);
    }

    /// SQLite's last failure on this connection, as what went wrong while doing `what`: `busy` for a lock,
    /// `not_a_store` for a file that is not a database, `storage_error` otherwise.
    [[nodiscard]] DurableError failure(std::string_view what) const;
    /// The file is not a run store of ours, for `why`; it was not changed.
    [[nodiscard]] DurableError notOurs(std::string_view why) const;
    /// Runs `sql`, which may hold several statements (a migration), prepared for this call only.
    [[nodiscard]] expected<void, DurableError> exec(const char* sql, std::string_view what) const;
    /// Runs the one statement `sql` (a `BEGIN`, a `COMMIT`), kept prepared.
    [[nodiscard]] expected<void, DurableError> run(const char* sql, std::string_view what) const;
};

/// A prepared statement of `Db`, bound by position (1-based, as SQLite counts).
class Statement {
  public:
    Statement(Statement&& other) noexcept
        : db_(other.db_),
          stmt_(std::exchange(other.stmt_, nullptr)),
          kept_(std::exchange(other.kept_, nullptr)) {}
    Statement& operator=(Statement&&) = delete;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    /// The statement `sql` (one), borrowed from those `db` keeps, prepared on its first use.
    [[nodiscard]] static expected<Statement, DurableError> prepare(const SqliteRunStore::Db& db,
                                                                   const std::string& sql);

    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, std::int64_t value);
    /// The value as JSON text.
    Statement& bindJson(int index, const nlohmann::json& value);
    Statement& bindNull(int index);

    /// The next row (true) or the end (false).
    [[nodiscard]] expected<bool, DurableError> step(std::string_view what);
    /// Steps a statement that returns no row.
    [[nodiscard]] expected<void, DurableError> run(std::string_view what);

    [[nodiscard]] std::string text(int column) const;
    [[nodiscard]] std::int64_t integer(int column) const;
    /// The column's JSON text parsed; `storage_error` naming the column for text that is not JSON.
    [[nodiscard]] expected<nlohmann::json, DurableError> json(int column) const;

  private:
    Statement(const SqliteRunStore::Db& db, sqlite3_stmt* stmt, SqliteRunStore::Db::Kept* kept)
        : db_(&db), stmt_(stmt), kept_(kept) {}
    const SqliteRunStore::Db* db_;
    sqlite3_stmt* stmt_;
    SqliteRunStore::Db::Kept* kept_;  // null: prepared for this use only
};

/// `attempt` in a transaction, a write one (`BEGIN IMMEDIATE`) unless `begin` says otherwise: committed
/// when it succeeds, rolled back when it fails or the commit does.
template <class Attempt>
[[nodiscard]] auto inTransaction(const SqliteRunStore::Db& db, Attempt&& attempt,
                                 const char* begin = "BEGIN IMMEDIATE") -> decltype(attempt()) {
    if (auto begun = db.run(begin, "could not start a transaction"); !begun) {
        return unexpected(begun.error());
    }
    auto outcome = attempt();
    if (!outcome) {
        (void)db.run("ROLLBACK", "could not roll back");
        return outcome;
    }
    if (auto committed = db.run("COMMIT", "could not commit"); !committed) {
        (void)db.run("ROLLBACK", "could not roll back");
        return unexpected(committed.error());
    }
    return outcome;
}

}  // namespace reagent::durable
