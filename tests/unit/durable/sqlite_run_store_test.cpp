// What only the SQLite engine does: its file (kept across opens, shared by stores as by processes), its
// schema's version, files that are not its own, and the locks of other connections.

#include "reagent/durable/sqlite_run_store.hpp"

#include <sqlite3.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <thread>

#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace durable = reagent::durable;
using durable::DurableErrc;
using nlohmann::json;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

// A connection of the test's own, to hold locks and read or write the header.
struct RawConnection {
    sqlite3* db = nullptr;
    explicit RawConnection(const std::string& path) { REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK); }
    ~RawConnection() { sqlite3_close(db); }
    void exec(const char* sql) const {
        REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    }
    [[nodiscard]] std::int64_t integer(const char* sql) const {
        sqlite3_stmt* stmt = nullptr;
        REQUIRE(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK);
        REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
        const auto value = sqlite3_column_int64(stmt, 0);
        sqlite3_finalize(stmt);
        return value;
    }
};

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("sqlite run store: runs and journals outlive the store, and two stores on a file share it",
          "[durable][sqlite]") {
    reagent::test::TempDir dir;
    const std::string path = dir.file("runs.db");
    {
        auto store = durable::SqliteRunStore::open(path);
        REQUIRE(store);
        REQUIRE(runCoro((*store)->submit(durable::Submission{"r1", json{{"prompt", "a"}}})));
        REQUIRE(runCoro((*store)->submit(durable::Submission{"r2", json{{"prompt", "b"}}})));
        auto claimed = runCoro((*store)->claim("w", 60s));
        REQUIRE(claimed);
        durable::JournalEntry entry{0, "model:1", "model_reply", json{{"text", "kept"}}, 0, 0};
        REQUIRE(runCoro((*store)->append((*claimed)->lease, entry)));
    }
    RawConnection raw(path);
    CHECK(raw.integer("PRAGMA application_id") == durable::SqliteRunStore::kApplicationId);
    CHECK(raw.integer("PRAGMA user_version") == durable::SqliteRunStore::kSchemaVersion);

    auto first = durable::SqliteRunStore::open(path);
    auto second = durable::SqliteRunStore::open(path);
    REQUIRE(first);
    REQUIRE(second);
    auto journal = runCoro((*second)->journal("r1"));
    REQUIRE(journal);
    REQUIRE(journal->size() == 1);
    CHECK((*journal)[0].payload == json{{"text", "kept"}});
    // r1 is leased for a minute still: each store claims, and only one gets r2.
    auto a = runCoro((*first)->claim("a", 60s));
    auto b = runCoro((*second)->claim("b", 60s));
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->has_value() != b->has_value());
    CHECK(runCoro((*first)->run("r2"))->epoch == 1);
}

TEST_CASE("sqlite run store: a store of a newer schema, and files that are not stores, are refused unchanged",
          "[durable][sqlite]") {
    reagent::test::TempDir dir;
    const std::string newer = dir.file("newer.db");
    REQUIRE(durable::SqliteRunStore::open(newer));
    {
        RawConnection raw(newer);
        raw.exec("PRAGMA user_version = 99");
    }
    const std::string before = contents(newer);
    auto refused = durable::SqliteRunStore::open(newer);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == DurableErrc::schema_too_new);
    CHECK(refused.error().message.find("schema version 99") != std::string::npos);
    CHECK(contents(newer) == before);

    const std::string text = dir.file("notes.txt");
    std::ofstream(text) << "these are notes, not a database, and they are long enough to have a header";
    auto notDb = durable::SqliteRunStore::open(text);
    REQUIRE_FALSE(notDb);
    CHECK(notDb.error().code == DurableErrc::not_a_store);
    CHECK(contents(text).rfind("these are notes", 0) == 0);

    const std::string foreign = dir.file("foreign.db");
    {
        RawConnection raw(foreign);
        raw.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY)");
    }
    const std::string foreignBefore = contents(foreign);
    auto other = durable::SqliteRunStore::open(foreign);
    REQUIRE_FALSE(other);
    CHECK(other.error().code == DurableErrc::not_a_store);
    CHECK(contents(foreign) == foreignBefore);

    auto nowhere = durable::SqliteRunStore::open(dir.file("missing/dir/runs.db"));
    REQUIRE_FALSE(nowhere);
    CHECK(nowhere.error().code == DurableErrc::storage_error);
    CHECK(nowhere.error().message.find("missing/dir/runs.db") != std::string::npos);
    CHECK(durable::SqliteRunStore::open("").error().code == DurableErrc::invalid_input);
}

TEST_CASE("sqlite run store: a write waits on timers for another connection's lock, then fails busy",
          "[durable][sqlite]") {
    reagent::test::TempDir dir;
    const std::string path = dir.file("runs.db");
    durable::SqliteOptions options;
    options.lockWait = 200ms;
    auto store = durable::SqliteRunStore::open(path, options);
    REQUIRE(store);

    RawConnection holder(path);
    holder.exec("BEGIN IMMEDIATE");
    const auto started = std::chrono::steady_clock::now();
    auto blocked = runCoro((*store)->submit(durable::Submission{"r", json::object()}));
    const auto waited = std::chrono::steady_clock::now() - started;
    REQUIRE_FALSE(blocked);
    CHECK(blocked.error().code == DurableErrc::busy);
    CHECK(waited >= 150ms);
    CHECK(waited < 5s);
    // Reads go on beside the writer (WAL).
    auto listed = runCoro((*store)->list(durable::RunFilter{}));
    REQUIRE(listed);
    CHECK(listed->empty());

    // The lock given up while the write waits: the write goes through.
    boost::asio::io_context io;
    auto pending = boost::asio::co_spawn(io, (*store)->submit(durable::Submission{"r", json::object()}),
                                         boost::asio::use_future);
    std::thread releaser([&holder] {
        std::this_thread::sleep_for(50ms);
        holder.exec("COMMIT");
    });
    io.run();
    releaser.join();
    auto submitted = pending.get();
    REQUIRE(submitted);
    CHECK(submitted->created);
}
