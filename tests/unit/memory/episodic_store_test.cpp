#include "reagent/memory/episodic_store.hpp"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "temp_dir.hpp"

using reagent::memory::Episode;
using reagent::memory::EpisodicStore;
using reagent::memory::MemoryErrc;
using reagent::test::TempDir;

namespace {

Episode episode(std::string tool, std::string input, std::string result, std::int64_t ms) {
    Episode e;
    e.action = "tool_call";
    e.tool = std::move(tool);
    e.input = std::move(input);
    e.result = std::move(result);
    e.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
    return e;
}

}  // namespace

TEST_CASE("EpisodicStore records and reads back through a second store", "[memory][episodic]") {
    const TempDir dir;
    const auto path = dir.file("episodes.db");
    {
        auto store = EpisodicStore::open(path);
        REQUIRE(store.has_value());
        CHECK(store->count().value() == 0);
        CHECK(store
                  ->record(episode("github.list_commits", R"({"repo":"acme/reagent"})",
                                   "[{\"sha\":\"e255a5d\"}]", 1000))
                  .value() == 1);
        CHECK(
            store->record(episode("fs.read", R"({"path":"README.md"})", "# Reagent\nAn agent runtime", 2000))
                .value() == 2);
        CHECK(
            store->record(episode("http.get", R"({"url":"https://example.com"})", "<html>", 1500)).value() ==
            3);
    }
    auto reopened = EpisodicStore::open(path);
    REQUIRE(reopened.has_value());
    CHECK(reopened->count().value() == 3);

    const auto recent = reopened->recent(2).value();
    REQUIRE(recent.size() == 2);
    CHECK(recent[0].tool == "fs.read");  // newest by timestamp, not by insertion
    CHECK(recent[0].input == R"({"path":"README.md"})");
    CHECK(recent[0].result == "# Reagent\nAn agent runtime");
    CHECK(recent[0].action == "tool_call");
    CHECK(recent[0].timestamp.time_since_epoch() == std::chrono::milliseconds(2000));
    CHECK(recent[1].tool == "http.get");

    SECTION("search is case-insensitive over tool, input and result, newest first, with snippets") {
        const auto hits = reopened->search("REAGENT", 10).value();
        REQUIRE(hits.size() == 2);
        CHECK(hits[0].episode.tool == "fs.read");
        CHECK(hits[0].snippet == "# Reagent An agent runtime");
        CHECK(hits[1].episode.tool == "github.list_commits");
        CHECK(hits[1].snippet == R"({"repo":"acme/reagent"})");
        CHECK(reopened->search("reagent", 1).value().size() == 1);
        CHECK(reopened->search("HTTP.GET", 10).value().at(0).episode.id == 3);
    }
    SECTION("wildcards in the keyword are literal and an empty keyword matches nothing") {
        CHECK(reopened->search("%", 10).value().empty());
        CHECK(reopened->search("_", 10).value().size() == 1);  // only the tool name list_commits
        CHECK(reopened->search("", 10).value().empty());
        CHECK(reopened->search("'; DROP TABLE episodes; --", 10).value().empty());
        CHECK(reopened->count().value() == 3);
    }
    SECTION("a default timestamp means now") {
        const auto before = std::chrono::system_clock::now();
        REQUIRE(reopened->record(episode("clock", "{}", "tick", 0)).has_value());
        const auto newest = reopened->recent(1).value().at(0);
        CHECK(newest.tool == "clock");
        CHECK(newest.timestamp >= before - std::chrono::milliseconds(1));
    }
}

TEST_CASE("EpisodicStore uses WAL journaling", "[memory][episodic]") {
    const TempDir dir;
    const auto path = dir.file("wal.db");
    auto store = EpisodicStore::open(path);
    REQUIRE(store.has_value());
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))) == "wal");
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

TEST_CASE("EpisodicStore recalls episodes written by another process", "[memory][episodic]") {
    const TempDir dir;
    const auto path = dir.file("shared.db");
    auto parent = EpisodicStore::open(path);
    REQUIRE(parent.has_value());
    REQUIRE(parent->record(episode("parent.tool", "{}", "from the parent", 1)).has_value());

    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // The child opens its own connection (never one inherited across fork) and exits without
        // running the parent's destructors.
        int failures = 0;
        auto child = EpisodicStore::open(path);
        for (int i = 0; child && i < 5; ++i) {
            failures += child->record(episode("child.tool", "{\"i\":" + std::to_string(i) + "}",
                                              "written by the child", 100 + i))
                            ? 0
                            : 1;
        }
        ::_exit(child && failures == 0 ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);

    CHECK(parent->count().value() == 6);
    const auto hits = parent->search("written by the CHILD", 10).value();
    REQUIRE(hits.size() == 5);
    CHECK(hits[0].episode.input == R"({"i":4})");
    CHECK(hits[4].episode.input == R"({"i":0})");
}

TEST_CASE("EpisodicStore takes concurrent writers, each with its own store", "[memory][episodic]") {
    const TempDir dir;
    const auto path = dir.file("concurrent.db");
    constexpr int kThreads = 4;
    constexpr int kEach = 50;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::string> openErrors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&failures, &openErrors, &path, t] {
            auto store = EpisodicStore::open(path);
            if (!store) {
                failures[t] = kEach;
                openErrors[t] = store.error().describe();
                return;
            }
            for (int i = 0; i < kEach; ++i) {
                const auto tool = "writer" + std::to_string(t);
                if (!store->record(episode(tool, "{}", "step " + std::to_string(i), 1 + i))) {
                    ++failures[t];
                }
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(openErrors == std::vector<std::string>(kThreads));
    CHECK(failures == std::vector<int>(kThreads, 0));
    auto reader = EpisodicStore::open(path);
    REQUIRE(reader.has_value());
    CHECK(reader->count().value() == kThreads * kEach);
    CHECK(reader->search("writer3", 1000).value().size() == kEach);
}

TEST_CASE("EpisodicStore shares one store between threads", "[memory][episodic]") {
    const TempDir dir;
    auto store = EpisodicStore::open(dir.file("one.db"));
    REQUIRE(store.has_value());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&store] {
            for (int i = 0; i < 25; ++i) {
                (void)store->record(episode("shared", "{}", "x", 1));
                (void)store->count();
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(store->count().value() == 100);
}

TEST_CASE("EpisodicStore reports a bad path with the file and SQLite's reason", "[memory][episodic]") {
    const auto missing = EpisodicStore::open("/nonexistent-dir-reagent/sub/episodes.db");
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().code == MemoryErrc::storage_error);
    CHECK_THAT(missing.error().message, Catch::Contains("/nonexistent-dir-reagent/sub/episodes.db") &&
                                            Catch::Contains("unable to open database file"));
    CHECK_THAT(missing.error().describe(), Catch::StartsWith("storage_error: "));

    const TempDir dir;
    const auto notDb = dir.file("text.db");
    std::FILE* file = std::fopen(notDb.c_str(), "w");
    REQUIRE(file != nullptr);
    std::fputs("this is not a database, it is plain text that is long enough to look like a header", file);
    std::fclose(file);
    const auto garbage = EpisodicStore::open(notDb);
    REQUIRE_FALSE(garbage.has_value());
    CHECK(garbage.error().code == MemoryErrc::not_a_store);
    CHECK_THAT(garbage.error().message, Catch::Contains("not a database"));
}

TEST_CASE("EpisodicStore finds an episode by id", "[memory][episodic]") {
    const TempDir dir;
    auto store = EpisodicStore::open(dir.file("find.db"));
    REQUIRE(store.has_value());
    const auto id = store->record(episode("fs.read", R"({"path":"a"})", "alpha", 10)).value();
    (void)store->record(episode("fs.read", R"({"path":"b"})", "beta", 20)).value();
    const auto found = store->find(id);
    REQUIRE(found.has_value());
    CHECK(found->result == "alpha");
    CHECK(found->input == R"({"path":"a"})");
    CHECK(found->timestamp == std::chrono::system_clock::time_point(std::chrono::milliseconds(10)));
    const auto missing = store->find(99);
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().code == MemoryErrc::not_found);
    CHECK(missing.error().message.find("no episode #99") == 0);
}
