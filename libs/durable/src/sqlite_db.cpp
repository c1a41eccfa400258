#include "sqlite_db.hpp"

#include "reagent/core/untrusted_json.hpp"

namespace reagent::durable {

DurableError SqliteRunStore::Db::failure(std::string_view what) const {
    std::string message = std::string(what) + " in run store '" + path + "'";
    if (db == nullptr) {
        return {DurableErrc::storage_error, std::move(message)};
    }
    message += ": ";
    message += sqlite3_errmsg(db);
    const int primary = sqlite3_extended_errcode(db) & 0xFF;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
        return {DurableErrc::busy, std::move(message)};
    }
    if (primary == SQLITE_NOTADB) {
        return notOurs("it is not an SQLite database");
    }
    return {DurableErrc::storage_error, std::move(message)};
}

DurableError SqliteRunStore::Db::notOurs(std::string_view why) const {
    return {DurableErrc::not_a_store,
            "'" + path + "' is not a reagent run store: " + std::string(why) + " (it was left unchanged)"};
}

expected<void, DurableError> SqliteRunStore::Db::exec(const char* sql, std::string_view what) const {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
        return unexpected(failure(what));
    }
    return {};
}

expected<void, DurableError> SqliteRunStore::Db::run(const char* sql, std::string_view what) const {
    auto statement = Statement::prepare(*this, sql);
    if (!statement) {
        return unexpected(statement.error());
    }
    return statement->run(what);
}

expected<Statement, DurableError> Statement::prepare(const SqliteRunStore::Db& db, const std::string& sql) {
    auto [place, added] = db.kept.try_emplace(sql);
    SqliteRunStore::Db::Kept& kept = place->second;
    if (kept.stmt != nullptr && !kept.borrowed) {
        kept.borrowed = true;
        return Statement(db, kept.stmt, &kept);
    }
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db.db, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
        if (added) {
            db.kept.erase(place);
        }
        return unexpected(db.failure("could not prepare a statement"));
    }
    if (kept.stmt == nullptr) {
        kept = {stmt, true};
        return Statement(db, stmt, &kept);
    }
    return Statement(db, stmt, nullptr);  // the kept one is borrowed already
}

Statement::~Statement() {
    if (kept_ == nullptr) {
        sqlite3_finalize(stmt_);
        return;
    }
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    kept_->borrowed = false;
}

Statement& Statement::bind(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
}

Statement& Statement::bindJson(int index, const nlohmann::json& value) {
    const std::string text = value.dump();
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bindNull(int index) {
    sqlite3_bind_null(stmt_, index);
    return *this;
}

expected<bool, DurableError> Statement::step(std::string_view what) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    return unexpected(db_->failure(what));
}

expected<void, DurableError> Statement::run(std::string_view what) {
    auto stepped = step(what);
    if (!stepped) {
        return unexpected(stepped.error());
    }
    return {};
}

std::string Statement::text(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
    return text == nullptr ? std::string{} : std::string(text, size);
}

std::int64_t Statement::integer(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

expected<nlohmann::json, DurableError> Statement::json(int column) const {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) {
        return nlohmann::json();
    }
    auto parsed = parseUntrustedJson(text(column));
    if (!parsed) {
        return unexpected(
            DurableError{DurableErrc::storage_error,
                         "run store '" + db_->path + "' holds a value that is not JSON (column '" +
                             sqlite3_column_name(stmt_, column) + "'): " + parsed.error().message});
    }
    return std::move(*parsed);
}

}  // namespace reagent::durable
