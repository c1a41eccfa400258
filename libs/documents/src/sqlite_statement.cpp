#include "sqlite_statement.hpp"

#include <cstring>
#include <utility>

namespace reagent::documents::detail {

DocumentError sqliteFailure(sqlite3* db, const std::string& path, std::string_view what) {
    const int code = sqlite3_extended_errcode(db);
    std::string message = "document index '" + path + "': " + std::string(what) + ": " + sqlite3_errmsg(db);
    if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
        message += " (another process is writing to the index; try again when it is done)";
    } else if (code == SQLITE_NOTADB) {
        message += " (the file is not a SQLite database: give the index a file of its own)";
    } else if ((code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN) {
        message += " (check the file's and its folder's permissions)";
    }
    return DocumentError{DocumentErrc::storage_failed, std::move(message)};
}

expected<void, DocumentError> sqliteExec(sqlite3* db, const std::string& path, const char* sql,
                                         std::string_view what) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
        return fail(sqliteFailure(db, path, what));
    }
    return {};
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), path_(other.path_), stmt_(std::exchange(other.stmt_, nullptr)) {}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(stmt_);
}

expected<SqliteStatement, DocumentError> SqliteStatement::prepare(sqlite3* db, const std::string& path,
                                                                  std::string_view sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
        return fail(sqliteFailure(db, path, "could not prepare a statement"));
    }
    return SqliteStatement(db, path, stmt);
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
    sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, const std::vector<float>& values) {
    if (values.empty()) {
        sqlite3_bind_null(stmt_, index);
    } else {
        sqlite3_bind_blob64(stmt_, index, values.data(), values.size() * sizeof(float), SQLITE_TRANSIENT);
    }
    return *this;
}

expected<bool, DocumentError> SqliteStatement::step(std::string_view what) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    return fail(sqliteFailure(db_, *path_, what));
}

expected<void, DocumentError> SqliteStatement::run(std::string_view what) {
    auto stepped = step(what);
    if (!stepped) {
        return fail(std::move(stepped.error()));
    }
    return {};
}

void SqliteStatement::reset() noexcept {
    sqlite3_reset(stmt_);
}

std::string SqliteStatement::text(int column) const {
    const auto* bytes = sqlite3_column_text(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return bytes == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(bytes), size);
}

std::int64_t SqliteStatement::integer(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::real(int column) const {
    return sqlite3_column_double(stmt_, column);
}

std::vector<float> SqliteStatement::floats(int column) const {
    const void* bytes = sqlite3_column_blob(stmt_, column);
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
    std::vector<float> values(size / sizeof(float));
    if (bytes != nullptr && !values.empty()) {
        std::memcpy(values.data(), bytes, values.size() * sizeof(float));
    }
    return values;
}

}  // namespace reagent::documents::detail
