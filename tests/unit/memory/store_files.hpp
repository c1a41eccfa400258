#pragma once
// Test helpers for episodic store files: their bytes, SQL run on a connection of the test's own, and
// damage done to them.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

namespace reagent::test {

/// The file's bytes (empty when missing).
inline std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Runs `statements` on a connection of the test's own, creating the file when missing.
inline void runSql(const std::string& path, const std::string& statements) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &error);
    INFO((error != nullptr ? error : ""));
    sqlite3_free(error);
    sqlite3_close(db);
    REQUIRE(rc == SQLITE_OK);
}

/// The integer the first row of `query` starts with, read on a read-only connection of the test's own.
inline std::int64_t queryInteger(const std::string& path, const std::string& query) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
    const std::int64_t value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

/// Writes garbage over page 2 of a store (the episodes table's root): the schema still reads, every
/// insert fails with "database disk image is malformed".
inline void corruptEpisodesTable(const std::string& path) {
    std::fstream bytes(path, std::ios::in | std::ios::out | std::ios::binary);
    bytes.seekp(4096);
    const std::string garbage(4096, '\xFF');
    bytes.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

/// Another connection holding the write lock of a store (`BEGIN EXCLUSIVE`), as another process would.
class LockHolder {
  public:
    explicit LockHolder(const std::string& path) {
        REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK);
        REQUIRE(sqlite3_exec(db_, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);
    }
    LockHolder(const LockHolder&) = delete;
    LockHolder& operator=(const LockHolder&) = delete;
    ~LockHolder() { sqlite3_close(db_); }
    /// Commits, letting writers in.
    void release() { sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr); }

  private:
    sqlite3* db_ = nullptr;
};

}  // namespace reagent::test
