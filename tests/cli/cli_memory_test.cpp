// `reagent run --memory` and `reagent memory ...` on files that are shared, foreign, unwritable, corrupt or
// hold bad rows: every episode of concurrent runs is stored, reading changes nothing, failures are said.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../unit/memory/read_only_file.hpp"
#include "../unit/memory/store_files.hpp"
#include "cli_process.hpp"
#include "media_fixtures.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "temp_dir.hpp"
#include "utf8_check.hpp"

using nlohmann::json;
using reagent::test::CliOutcome;
using reagent::test::CliProcess;
using reagent::test::contents;
using reagent::test::corruptEpisodesTable;
using reagent::test::runCli;
using reagent::test::runSql;
using reagent::test::TempDir;

namespace {

std::int64_t countRows(const std::string& path, const std::string& where) {
    return reagent::test::queryInteger(path, "SELECT COUNT(*) FROM episodes WHERE " + where);
}

json parsed(const CliOutcome& outcome) {
    INFO("stdout: " << outcome.out << "\nstderr: " << outcome.err);
    json value = json::parse(outcome.out, nullptr, false);
    REQUIRE_FALSE(value.is_discarded());
    return value;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) {
        ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("concurrent runs on one new memory file store every episode of every process", "[cli][memory]") {
    constexpr int kRounds = 4;
    constexpr int kProcesses = 6;
    for (int round = 0; round < kRounds; ++round) {
        const TempDir dir;
        const std::string file = dir.file("shared.db");
        std::vector<std::unique_ptr<CliProcess>> runs;
        for (int p = 0; p < kProcesses; ++p) {
            const std::string prompt = "What is " + std::to_string(100 + p) + "*7?";
            runs.push_back(std::make_unique<CliProcess>(
                std::vector<std::string>{"run", "-q", "--memory", file, prompt}));
        }
        for (int p = 0; p < kProcesses; ++p) {
            const CliOutcome outcome = runs[static_cast<std::size_t>(p)]->wait();
            INFO("round " << round << ", process " << p << ": " << outcome.err);
            CHECK(outcome.status == 0);
            CHECK(outcome.err.find("warning") == std::string::npos);
        }
        // The demo calls calculator, word_count and current_time once each.
        INFO("round " << round);
        CHECK(countRows(file, "1") == 3 * kProcesses);
        for (int p = 0; p < kProcesses; ++p) {
            const std::string expression = std::to_string(100 + p) + "*7";
            CHECK(countRows(file, "tool = 'calculator' AND input LIKE '%" + expression + "%'") == 1);
        }
    }
}

TEST_CASE("memory commands refuse files that are not stores and leave them byte for byte", "[cli][memory]") {
    const TempDir dir;
    const std::string file = dir.file("other.db");
    std::string reason;
    SECTION("another application's SQLite database") {
        runSql(
            file,
            "CREATE TABLE accounts(id INTEGER PRIMARY KEY, owner TEXT); INSERT INTO accounts VALUES(1,'a');");
        reason = "another application";
    }
    SECTION("a text file") {
        std::ofstream(file) << std::string(300, 'x');
        reason = "not an SQLite database";
    }
    SECTION("an empty file") {
        std::ofstream{file};
        reason = "empty";
    }
    const std::string before = contents(file);
    const std::vector<std::vector<std::string>> commands{
        {"memory", "recent"}, {"memory", "search", "a"}, {"memory", "show", "1"}};
    for (auto command : commands) {
        for (const bool asJson : {false, true}) {
            auto args = command;
            args.insert(args.end(), {"--memory", file});
            if (asJson) {
                args.push_back("--json");
            }
            const CliOutcome outcome = runCli(args);
            INFO(command[1] << (asJson ? " --json" : "") << ": " << outcome.err);
            CHECK(outcome.status == 1);
            CHECK(outcome.out.empty());
            CHECK(outcome.err.find(file) != std::string::npos);
            CHECK(outcome.err.find("not a reagent episodic store") != std::string::npos);
            CHECK(outcome.err.find(reason) != std::string::npos);
            CHECK(contents(file) == before);
            CHECK_FALSE(std::filesystem::exists(file + "-wal"));
            CHECK_FALSE(std::filesystem::exists(file + "-journal"));
        }
    }
    // A run refuses to add its table to someone else's database; the empty file is taken as new.
    if (reason != "empty") {
        const CliOutcome run = runCli({"run", "-q", "--memory", file, "What is 6*7?"});
        CHECK(run.status == 1);
        CHECK(run.err.find("not a reagent episodic store") != std::string::npos);
        CHECK(contents(file) == before);
    }
}

TEST_CASE("a dangling --memory link is refused by run and memory, its target not created", "[cli][memory]") {
    const TempDir dir;
    const std::string link = dir.file("memory.db");
    const std::string target = dir.file("target.db");
    std::filesystem::create_symlink(target, link);
    for (const auto& args : {std::vector<std::string>{"run", "-q", "--memory", link, "What is 6*7?"},
                             std::vector<std::string>{"memory", "recent", "--memory", link}}) {
        const CliOutcome outcome = runCli(args);
        INFO(args[0] << ": " << outcome.err);
        CHECK(outcome.status == 1);
        CHECK(outcome.err.find("symbolic link") != std::string::npos);
        CHECK(outcome.err.find(target) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(target));
    }
}

TEST_CASE("run --memory on a read-only file fails before the run, with --json and -q", "[cli][memory]") {
    const TempDir dir;
    const std::string file = dir.file("memory.db");
    REQUIRE(runCli({"run", "-q", "--memory", file, "What is 1+1?"}).status == 0);
    const std::string before = contents(file);
    const reagent::test::ReadOnlyFile readOnly(file);
    if (!readOnly.active()) {
        WARN("cannot make a file read-only here; skipped");
        return;
    }
    for (const char* mode : {"--json", "-q"}) {
        const CliOutcome outcome = runCli({"run", mode, "--memory", file, "What is 6*7?"});
        INFO(mode << ": " << outcome.err);
        CHECK(outcome.status == 1);
        CHECK(outcome.out.empty());
        CHECK(outcome.err.find(file) != std::string::npos);
        CHECK(outcome.err.find("read-only") != std::string::npos);
    }
    CHECK(contents(file) == before);
}

TEST_CASE("run --memory on a corrupt store keeps the answer and reports each lost episode", "[cli][memory]") {
    const TempDir dir;
    const std::string file = dir.file("memory.db");
    REQUIRE(runCli({"run", "-q", "--memory", file, "What is 1+1?"}).status == 0);
    corruptEpisodesTable(file);
    SECTION("--json: the warnings are in the result") {
        const CliOutcome outcome = runCli({"run", "--json", "--memory", file, "What is 6*7?"});
        CHECK(outcome.status == 0);
        const json result = parsed(outcome);
        CHECK(result["success"] == true);
        REQUIRE(result["warnings"].size() == 3);
        for (const auto& warning : result["warnings"]) {
            CHECK_THAT(warning.get<std::string>(), Catch::Contains("was not logged to episodic memory") &&
                                                       Catch::Contains(file) && Catch::Contains("malformed"));
        }
        CHECK(occurrences(outcome.err, "reagent: warning: ") == 3);
    }
    SECTION("-q: the answer on stdout, each warning on stderr") {
        const CliOutcome outcome = runCli({"run", "-q", "--memory", file, "What is 6*7?"});
        CHECK(outcome.status == 0);
        CHECK(outcome.out.find("6*7 = 42.") != std::string::npos);
        CHECK(occurrences(outcome.err, "reagent: warning: ") == 3);
        CHECK(occurrences(outcome.err, "malformed") == 3);
    }
    SECTION("a run without warnings has an empty list") {
        const CliOutcome outcome = runCli({"run", "--json", "What is 6*7?"});
        CHECK(parsed(outcome)["warnings"] == json::array());
    }
}

TEST_CASE("Ctrl-C ends a run whose episodes wait for a locked memory file at once", "[cli][memory][signal]") {
    const TempDir dir;
    const std::string file = dir.file("memory.db");
    REQUIRE(runCli({"run", "-q", "--memory", file, "What is 1+1?"}).status == 0);
    const reagent::test::LockHolder lock(file);
    CliProcess run({"run", "--json", "--memory", file, "What is 6*7?"});
    // The run starts once the CLI catches the signal (its start-up takes over a second under the
    // sanitizers); the demo's tools end within milliseconds, and the episodes then wait for the lock (5 s
    // at most).
    REQUIRE(run.waitUntilCatching(SIGINT, std::chrono::seconds(20)));
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    const auto signalled = std::chrono::steady_clock::now();
    run.signal(SIGINT);
    const CliOutcome outcome = run.wait();
    CHECK(std::chrono::steady_clock::now() - signalled < std::chrono::milliseconds(1000));
    CHECK(outcome.status == 1);
    const json result = parsed(outcome);
    CHECK(result["terminatedBy"] == "cancelled");
    CHECK(result["toolCalls"].size() == 3);
    REQUIRE(result["warnings"].size() == 3);
    for (const auto& warning : result["warnings"]) {
        CHECK_THAT(warning.get<std::string>(), Catch::Contains(file) && Catch::Contains("cancelled"));
    }
}

TEST_CASE("memory commands show invalid UTF-8 and invalid timestamps as what they are", "[cli][memory]") {
    const TempDir dir;
    const std::string file = dir.file("memory.db");
    REQUIRE(runCli({"run", "-q", "--memory", file, "What is 1+1?"}).status == 0);
    // Raw 0xFF, and a 3-byte sequence (U+20AC) cut after two bytes; timestamps of 0 and text.
    runSql(file,
           "INSERT INTO episodes(action, tool, input, result, timestamp) VALUES "
           "('tool_call', 'raw', '{}', CAST(X'6F6BFF20E282' AS TEXT), 0),"
           "('tool_call', 'worded', '{}', 'fine', 'soon');");
    const std::string before = contents(file);
    for (const auto& command : {std::vector<std::string>{"memory", "recent", "--limit", "10"},
                                std::vector<std::string>{"memory", "search", "ok"},
                                std::vector<std::string>{"memory", "show", "4"}}) {
        auto args = command;
        args.insert(args.end(), {"--memory", file, "--json"});
        const CliOutcome asJson = runCli(args);
        INFO(command[1] << ": " << asJson.err);
        REQUIRE(asJson.status == 0);
        const json value = parsed(asJson);
        const json rows = value.is_array() ? value : json::array({value});
        bool sawRaw = false;
        for (const auto& row : rows) {
            if (row["tool"] == "raw") {
                sawRaw = true;
                CHECK(row["result"] == "ok\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD");
                CHECK(row["timestamp"] == "invalid timestamp (0)");
                CHECK(row["timestampValid"] == false);
            } else if (row["tool"] == "worded") {
                CHECK(row["timestamp"] == "invalid timestamp ('soon')");
            } else {
                CHECK(row["timestampValid"] == true);
            }
        }
        CHECK(sawRaw);

        args.pop_back();
        const CliOutcome asText = runCli(args);
        REQUIRE(asText.status == 0);
        CHECK(reagent::test::isValidUtf8(asText.out));
        CHECK(asText.out.find("invalid timestamp (0)") != std::string::npos);
        CHECK(asText.out.find("1970") == std::string::npos);
    }
    CHECK(contents(file) == before);
}

TEST_CASE("memory show lists an episode's attachments, never their bytes", "[cli][memory][attachments]") {
    const TempDir dir;
    const std::string file = dir.file("episodes.db");
    {
        auto store = reagent::memory::EpisodicStore::open(file);
        REQUIRE(store);
        reagent::memory::Episode episode;
        episode.action = "tool_call";
        episode.tool = "file-read";
        episode.input = R"({"path":"dot.png"})";
        episode.result = "an image";
        const std::string png = reagent::test::tinyPng();
        episode.attachments.push_back(reagent::llm::Attachment::fromBytes(png, "dot.png").value());
        episode.attachments.push_back(
            reagent::llm::Attachment::fromUrl("https://example.com/cat.jpg", "image/jpeg").value());
        REQUIRE(store->record(episode));
    }
    const auto text = runCli({"memory", "show", "1", "--memory", file});
    INFO(text.err);
    REQUIRE(text.status == 0);
    CHECK(text.out.find(
              "attachment: image/png 'dot.png', " + std::to_string(reagent::test::tinyPng().size()) +
              " bytes\nattachment: image/jpeg at https://example.com/cat.jpg\n") != std::string::npos);
    const json shown = parsed(runCli({"memory", "show", "1", "--memory", file, "--json"}));
    REQUIRE(shown["attachments"].size() == 2);
    CHECK(shown["attachments"][0]["mediaType"] == "image/png");
    CHECK(shown["attachments"][0]["sha256"] == reagent::llm::contentHash(reagent::test::tinyPng()));
    CHECK_FALSE(shown["attachments"][0].contains("data"));
    CHECK(shown["attachments"][1]["url"] == "https://example.com/cat.jpg");
}
