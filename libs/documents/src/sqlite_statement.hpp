#pragma once
// Private to libs/documents: a prepared SQLite statement with SQLite's failures as `DocumentError`s.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/documents/document_error.hpp"

namespace reagent::documents::detail {

/// SQLite's last failure on `db`, while doing `what` with the index in `path`.
[[nodiscard]] DocumentError sqliteFailure(sqlite3* db, const std::string& path, std::string_view what);

/// Runs `sql` (one or more statements, no rows).
[[nodiscard]] expected<void, DocumentError> sqliteExec(sqlite3* db, const std::string& path, const char* sql,
                                                       std::string_view what);

/// One statement, prepared for one use, bound by position (1-based).
class SqliteStatement {
  public:
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&&) = delete;
    ~SqliteStatement();

    [[nodiscard]] static expected<SqliteStatement, DocumentError> prepare(sqlite3* db,
                                                                          const std::string& path,
                                                                          std::string_view sql);

    SqliteStatement& bind(int index, std::string_view text);
    SqliteStatement& bind(int index, std::int64_t value);
    /// The floats as a blob of their bytes (this machine's float layout: an index is not moved between
    /// machines of different byte order).
    SqliteStatement& bind(int index, const std::vector<float>& values);
    /// The next row (true) or the end (false).
    [[nodiscard]] expected<bool, DocumentError> step(std::string_view what);
    /// Steps a statement that returns no row.
    [[nodiscard]] expected<void, DocumentError> run(std::string_view what);
    /// Back to its first row with the same bindings, for the next use.
    void reset() noexcept;

    [[nodiscard]] std::string text(int column) const;
    [[nodiscard]] std::int64_t integer(int column) const;
    [[nodiscard]] double real(int column) const;
    /// A blob column of floats (`bind(int, const std::vector<float>&)`); empty for NULL.
    [[nodiscard]] std::vector<float> floats(int column) const;

  private:
    SqliteStatement(sqlite3* db, const std::string& path, sqlite3_stmt* stmt)
        : db_(db), path_(&path), stmt_(stmt) {}
    sqlite3* db_;
    const std::string* path_;
    sqlite3_stmt* stmt_;
};

}  // namespace reagent::documents::detail
