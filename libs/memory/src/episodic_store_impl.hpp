#pragma once
// Private to libs/memory: what the episodic store's sources share — its SQLite connection (`Impl`), the
// prepared-statement owner and the error builders.

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "reagent/memory/episodic_store.hpp"

namespace reagent::memory {

/// A failure of SQLite on `db` (or of ours, with a null `db`) as a `MemoryError` naming the file:
/// `busy` for SQLITE_BUSY/SQLITE_LOCKED, `not_a_store` for SQLITE_NOTADB, `storage_error` otherwise.
inline MemoryError storageError(const std::string& path, std::string_view what, sqlite3* db) {
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

inline MemoryError notAStore(const std::string& path, std::string_view why) {
    return {MemoryErrc::not_a_store, "'" + path + "' is not a reagent episodic store: " + std::string(why) +
                                         " (it was left unchanged)"};
}

// Owns a prepared statement.
struct Statement {
    sqlite3_stmt* stmt = nullptr;
    Statement() = default;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() { sqlite3_finalize(stmt); }
};

inline std::string columnText(sqlite3_stmt* stmt, int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt, column));
    return text == nullptr ? std::string{} : std::string(text, size);
}

/// The connection of one store and what its statements share. Every member function expects `mutex`
/// held, except during `open`, before the store is shared.
struct EpisodicStore::Impl {
    std::string path;
    sqlite3* db = nullptr;
    mutable std::mutex mutex;
    // How long the statement in progress may wait for a lock (guarded by `mutex`).
    std::chrono::milliseconds lockWait = kBusyTimeout;
    // When the wait for the current lock began (set on the busy handler's first call for it).
    std::chrono::steady_clock::time_point busySince;

    ~Impl() { sqlite3_close_v2(db); }

    // SQLite's busy handler: sleeps in short steps until the lock is free or `lockWait` has passed since
    // this lock's first refusal. (sqlite3_busy_timeout would fix one wait for every statement.)
    static int onBusy(void* self, int attempt) {
        using std::chrono::milliseconds;
        using std::chrono::steady_clock;
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
        return notAStore(path,
                         std::string("it is not an SQLite database (SQLite: ") + sqlite3_errmsg(db) + ")");
    }

    // The first column of the first row of `sql` as an integer, or as text.
    [[nodiscard]] expected<std::int64_t, MemoryError> integer(const char* sql) const;
    [[nodiscard]] expected<std::string, MemoryError> text(const char* sql) const;

    enum class Kind { empty, ours, older, legacy };
    // Whether the file has the attachment tables (schema version 2): false only for an older store
    // opened read-only.
    bool attachments = true;
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

    // Writing and reading episodes (episodic_store.cpp).
    [[nodiscard]] expected<std::int64_t, MemoryError> insertEpisode(const Episode& episode) const;
    [[nodiscard]] expected<void, MemoryError> insertAttachments(
        std::int64_t id, const std::vector<llm::Attachment>& attachments) const;
    [[nodiscard]] expected<void, MemoryError> loadAttachments(Episode& episode) const;

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

}  // namespace reagent::memory
