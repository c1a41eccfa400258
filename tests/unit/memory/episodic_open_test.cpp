// How EpisodicStore opens files: read-only opens change nothing, foreign files are refused untouched,
// dangling links are not followed, invalid stored timestamps are shown as such, lock waits are bounded.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "read_only_file.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "store_files.hpp"
#include "temp_dir.hpp"

using reagent::memory::Episode;
using reagent::memory::EpisodicStore;
using reagent::memory::MemoryErrc;
using reagent::test::contents;
using reagent::test::runSql;
using reagent::test::TempDir;

namespace {

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

Episode step(std::string result) {
    Episode e;
    e.action = "tool_call";
    e.tool = "t";
    e.input = "{}";
    e.result = std::move(result);
    return e;
}

}  // namespace

TEST_CASE("openReadOnly refuses what is not a store and leaves it byte for byte",
          "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("file.db");
    std::string expected;
    std::string reason;
    MemoryErrc code = MemoryErrc::not_a_store;
    bool walStore = false;  // reading a WAL store may leave SQLite's empty -wal and -shm side files
    SECTION("an empty file") {
        writeFile(path, "");
        reason = "the file is empty";
    }
    SECTION("a text file") {
        writeFile(path, std::string(200, 'x'));
        reason = "not an SQLite database";
    }
    SECTION("another application's SQLite database") {
        runSql(
            path,
            "CREATE TABLE accounts(id INTEGER PRIMARY KEY, owner TEXT); INSERT INTO accounts VALUES(1,'a');");
        reason = "another application (tables: accounts";
    }
    SECTION("an SQLite database without tables") {
        runSql(path, "PRAGMA user_version = 0; VACUUM;");
        reason = "without an episodes table";
    }
    SECTION("a database marked by another application") {
        runSql(path, "PRAGMA application_id = 42; CREATE TABLE episodes(id);");
        reason = "application_id 42";
    }
    SECTION("a store of a newer reagent") {
        {
            auto store = EpisodicStore::open(path);
            REQUIRE(store.has_value());
        }
        runSql(path, "PRAGMA user_version = 99;");
        walStore = true;
        reason = "newer reagent (schema version 99";
    }
    SECTION("a missing file") {
        code = MemoryErrc::storage_error;
        reason = "does not exist";
    }
    const bool existed = std::filesystem::exists(path);
    expected = contents(path);
    const auto opened = EpisodicStore::openReadOnly(path);
    REQUIRE_FALSE(opened.has_value());
    CHECK(opened.error().code == code);
    CHECK_THAT(opened.error().message, Catch::Contains(path) && Catch::Contains(reason));
    CHECK(std::filesystem::exists(path) == existed);
    CHECK(contents(path) == expected);
    CHECK(std::filesystem::exists(path + "-wal") == walStore);
    CHECK_FALSE(std::filesystem::exists(path + "-journal"));

    if (code == MemoryErrc::not_a_store && reason.find("empty") == std::string::npos &&
        reason.find("without") == std::string::npos) {
        // A writable open refuses them too (an empty file or database is taken as new).
        const auto writable = EpisodicStore::open(path);
        REQUIRE_FALSE(writable.has_value());
        CHECK(writable.error().code == MemoryErrc::not_a_store);
        CHECK_THAT(writable.error().message, Catch::Contains(path) && Catch::Contains(reason));
        CHECK(contents(path) == expected);
    }
}

TEST_CASE("openReadOnly reads a store without writing to it", "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("store.db");
    {
        auto store = EpisodicStore::open(path);
        REQUIRE(store.has_value());
        REQUIRE(store->record(step("kept")).has_value());
    }
    const auto before = contents(path);
    auto reader = EpisodicStore::openReadOnly(path);
    REQUIRE(reader.has_value());
    CHECK(reader->count().value() == 1);
    CHECK(reader->recent(5).value().at(0).result == "kept");
    CHECK(reader->search("kep", 5).value().size() == 1);
    const auto refused = reader->record(step("not kept"));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == MemoryErrc::storage_error);
    CHECK(contents(path) == before);
}

TEST_CASE("a store written before stores were marked is read, and marked when opened for writing",
          "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("legacy.db");
    runSql(path,
           "CREATE TABLE episodes (id INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT NOT NULL, tool TEXT "
           "NOT NULL, input TEXT NOT NULL, result TEXT NOT NULL, timestamp INTEGER NOT NULL);"
           "INSERT INTO episodes(action, tool, input, result, timestamp) VALUES('a','t','{}','old',5000);");
    CHECK(EpisodicStore::openReadOnly(path).value().count().value() == 1);
    auto store = EpisodicStore::open(path);
    REQUIRE(store.has_value());
    CHECK(store->count().value() == 1);
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &stmt, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
    CHECK(sqlite3_column_int(stmt, 0) == EpisodicStore::kApplicationId);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

TEST_CASE("a writable open refuses a read-only file instead of losing every episode",
          "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("ro.db");
    {
        auto store = EpisodicStore::open(path);
        REQUIRE(store.has_value());
    }
    const reagent::test::ReadOnlyFile readOnly(path);
    if (!readOnly.active()) {
        WARN("cannot make a file read-only here; skipped");
        return;
    }
    const auto opened = EpisodicStore::open(path);
    REQUIRE_FALSE(opened.has_value());
    CHECK(opened.error().code == MemoryErrc::storage_error);
    CHECK_THAT(opened.error().message, Catch::Contains(path) && Catch::Contains("read-only"));
    CHECK(EpisodicStore::openReadOnly(path).has_value());
}

TEST_CASE("a dangling symbolic link is refused and its target never created", "[memory][episodic][open]") {
    const TempDir dir;
    const auto link = dir.file("memory.db");
    const auto target = dir.file("elsewhere/target.db");
    std::filesystem::create_directory(dir.file("elsewhere"));
    std::filesystem::create_symlink(target, link);
    for (const bool readOnly : {false, true}) {
        const auto opened = readOnly ? EpisodicStore::openReadOnly(link) : EpisodicStore::open(link);
        REQUIRE_FALSE(opened.has_value());
        CHECK(opened.error().code == MemoryErrc::storage_error);
        CHECK_THAT(opened.error().message, Catch::Contains(link) && Catch::Contains("symbolic link") &&
                                               Catch::Contains(target) && Catch::Contains("does not exist"));
        CHECK_FALSE(std::filesystem::exists(target));
    }
    // A link to an existing store works as the store itself.
    REQUIRE(EpisodicStore::open(target).has_value());
    CHECK(EpisodicStore::open(link).has_value());
}

TEST_CASE("stored timestamps that record could not have written are shown as invalid",
          "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("times.db");
    {
        auto store = EpisodicStore::open(path);
        REQUIRE(store.has_value());
    }
    runSql(path,
           "INSERT INTO episodes(action, tool, input, result, timestamp) VALUES"
           "('a','zero','{}','r',0), ('a','negative','{}','r',-5), ('a','huge','{}','r',9223372036854775807),"
           "('a','text','{}','r','yesterday'), ('a','good','{}','r',1764000000000);");
    auto store = EpisodicStore::openReadOnly(path);
    REQUIRE(store.has_value());
    const auto shown = [&store](const std::string& tool) {
        return reagent::memory::formatTimestamp(store->search(tool, 1).value().at(0).episode);
    };
    CHECK(shown("zero") == "invalid timestamp (0)");
    CHECK(shown("negative") == "invalid timestamp (-5)");
    CHECK(shown("huge") == "invalid timestamp (9223372036854775807)");
    CHECK(shown("text") == "invalid timestamp ('yesterday')");
    CHECK(shown("good") == "2025-11-24T16:00:00Z");
    CHECK_FALSE(store->search("good", 1).value().at(0).episode.invalidTimestamp.has_value());
    CHECK(reagent::memory::formatTimestamp(std::chrono::system_clock::time_point(std::chrono::hours(-1))) ==
          "invalid timestamp (-3600000)");
}

TEST_CASE("record waits for another connection's lock no longer than asked", "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("locked.db");
    auto store = EpisodicStore::open(path);
    REQUIRE(store.has_value());
    reagent::test::LockHolder holder(path);

    using std::chrono::milliseconds;
    const auto timed = [&store](milliseconds wait) {
        const auto started = std::chrono::steady_clock::now();
        auto recorded = store->record(step("waiting"), wait);
        return std::make_pair(std::move(recorded), std::chrono::steady_clock::now() - started);
    };
    auto [once, onceTook] = timed(milliseconds(0));
    REQUIRE_FALSE(once.has_value());
    CHECK(once.error().code == MemoryErrc::busy);
    CHECK_THAT(once.error().message, Catch::Contains(path));
    CHECK(onceTook < milliseconds(100));
    auto [waited, waitedTook] = timed(milliseconds(300));
    REQUIRE_FALSE(waited.has_value());
    CHECK(waited.error().code == MemoryErrc::busy);
    CHECK(waitedTook >= milliseconds(290));
    CHECK(waitedTook < milliseconds(1500));

    holder.release();
    CHECK(store->record(step("after"), milliseconds(0)).has_value());
    CHECK(store->count().value() == 1);
}

TEST_CASE("opening a complete store does not wait for another connection's write lock",
          "[memory][episodic][open]") {
    const TempDir dir;
    const auto path = dir.file("held.db");
    REQUIRE(EpisodicStore::open(path).has_value());
    const reagent::test::LockHolder holder(path);
    const auto started = std::chrono::steady_clock::now();
    auto store = EpisodicStore::open(path);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(500));
    REQUIRE(store.has_value());
    CHECK(store->count().value() == 0);
    CHECK(EpisodicStore::openReadOnly(path).has_value());
}
