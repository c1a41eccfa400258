// `reagent submit`, `reagent worker` and `reagent runs` on a store shared by processes, SQLite and
// PostgreSQL (a database of its own in the private cluster ctest starts): runs submitted, worked on by
// separate worker processes, one killed with SIGKILL mid-run and its run finished by another from the
// journal; the runs listed, shown and cancelled; bad input refused.

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_process.hpp"
#include "postgres_cluster.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::CliProcess;
using reagent::test::runCli;
using reagent::test::TempDir;
using namespace std::chrono_literals;

namespace {

// A new, empty store of `engine` for one test: an SQLite file in `dir`, or a PostgreSQL database of its own.
std::string newStore(const std::string& engine, const TempDir& dir) {
    if (engine == "sqlite") {
        return dir.file("runs.db");
    }
    return reagent::test::newTestDatabase();
}

json showRun(const std::string& db, const std::string& id) {
    const auto shown = runCli({"runs", "show", id, "--db", db, "--json"});
    REQUIRE(shown.status == 0);
    return json::parse(shown.out);
}

}  // namespace

TEST_CASE("reagent submit, worker and runs: runs worked on by worker processes, listed and shown",
          "[cli][durable]") {
    const std::string engine = GENERATE(as<std::string>{}, "sqlite", "postgres");
    INFO(engine);
    const TempDir dir;
    const std::string db = newStore(engine, dir);
    const auto first = runCli({"submit", "--db", db, "What is 6*7?"});
    REQUIRE(first.status == 0);
    const std::string id = first.out.substr(0, first.out.find('\n'));
    CHECK(id.size() == 32);
    const std::string asUrl = engine == "sqlite" ? "sqlite://" + db : db;
    REQUIRE(runCli({"submit", "--db", asUrl, "--id", "second", "What is (2+3)*4?"}).status == 0);
    // Submitting again is a no-op; with another prompt, a usage error.
    CHECK(runCli({"submit", "--db", db, "--id", "second", "What is (2+3)*4?"}).status == 0);
    const auto conflict = runCli({"submit", "--db", db, "--id", "second", "Something else"});
    CHECK(conflict.status == 2);
    CHECK(conflict.err.find("conflict") != std::string::npos);

    const auto queued = runCli({"runs", "list", "--db", db, "--status", "queued", "--json"});
    REQUIRE(queued.status == 0);
    CHECK(json::parse(queued.out).size() == 2);

    const auto worked = runCli({"worker", "--db", db, "--until-idle", "--name", "w1"});
    INFO(worked.err);
    REQUIRE(worked.status == 0);
    CHECK(worked.err.find("finished 2 run(s)") != std::string::npos);
    const json run = showRun(db, "second");
    CHECK(run["status"] == "completed");
    CHECK(run["outcome"]["output"].get<std::string>().rfind("(2+3)*4 = 20.", 0) == 0);
    CHECK(run["owner"] == "w1");
    // The demo model's plan (three tools), their records, its answer (through final-answer).
    REQUIRE(run["journal"].size() == 6);
    CHECK(run["journal"][0]["step"] == "model:0");
    CHECK(run["journal"][1]["kind"] == "tool_call");
    CHECK(run["journal"][4]["step"] == "model:1");
    CHECK(run["journal"][5]["step"].get<std::string>().rfind("tool:1:", 0) == 0);
    const auto text = runCli({"runs", "show", id, "--db", db});
    CHECK(text.out.find("completed") != std::string::npos);
    CHECK(text.out.find("calculator") != std::string::npos);

    // A run cancelled before any worker took it.
    REQUIRE(runCli({"submit", "--db", db, "--id", "third", "What is 1+1?"}).status == 0);
    REQUIRE(runCli({"runs", "cancel", "third", "--db", db}).status == 0);
    CHECK(showRun(db, "third")["status"] == "cancelled");
    const auto again = runCli({"runs", "cancel", "third", "--db", db});
    CHECK(again.status == 2);  // it has ended
}

TEST_CASE(
    "reagent worker: a worker killed mid-run leaves the run to the next, which goes on from the journal",
    "[cli][durable]") {
    const std::string engine = GENERATE(as<std::string>{}, "sqlite", "postgres");
    INFO(engine);
    const TempDir dir;
    const std::string db = newStore(engine, dir);
    REQUIRE(runCli({"submit", "--db", db, "--id", "r1", "What is 6*7?"}).status == 0);
    CliProcess doomed(
        {"worker", "--db", db, "--name", "doomed", "--lease-seconds", "2", "--demo-latency", "1500"});
    // Killed once the model's first reply and some of its tool calls are journaled, while the model writes
    // its next reply (each of its turns takes 1.5 s).
    for (const auto deadline = std::chrono::steady_clock::now() + 20s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(50ms)) {
        if (showRun(db, "r1")["journal"].size() >= 2) {
            break;
        }
    }
    doomed.signal(SIGKILL);
    CHECK(doomed.wait().status == -1);
    const json killed = showRun(db, "r1");
    CHECK(killed["status"] == "running");  // still leased to the dead worker
    const json& before = killed["journal"];
    REQUIRE(before.size() >= 2);

    std::this_thread::sleep_for(2100ms);  // its lease expires
    const auto next =
        runCli({"worker", "--db", db, "--until-idle", "--name", "next", "--lease-seconds", "2"});
    INFO(next.err);
    REQUIRE(next.status == 0);
    const json run = showRun(db, "r1");
    CHECK(run["status"] == "completed");
    CHECK(run["outcome"]["output"].get<std::string>().rfind("6*7 = 42.", 0) == 0);
    CHECK(run["owner"] == "next");
    CHECK(run["attempts"] == run["epoch"]);
    CHECK(run["epoch"].get<int>() > killed["epoch"].get<int>());
    // What the dead worker journaled stays as it was, and was not done again; the rest was done by the
    // next worker, under its own epoch.
    REQUIRE(run["journal"].size() > before.size());
    for (std::size_t i = 0; i < run["journal"].size(); ++i) {
        INFO("step " << run["journal"][i]["step"]);
        if (i < before.size()) {
            CHECK(run["journal"][i] == before[i]);
        } else {
            CHECK(run["journal"][i]["epoch"] == run["epoch"]);
        }
    }
}

TEST_CASE("reagent submit --wait prints the steps and the answer a worker process gives", "[cli][durable]") {
    const TempDir dir;
    const std::string db = dir.file("runs.db");
    CliProcess waiting({"submit", "--db", db, "--wait", "What is 6*7?"});
    // The worker starts once the run is in the store: one started before would find nothing and stop.
    const std::string submitted = waiting.readErrUntil(" submitted\n", 20s);
    REQUIRE(submitted.find(" submitted\n") != std::string::npos);
    const auto worked = runCli({"worker", "--db", db, "--until-idle"});
    REQUIRE(worked.status == 0);
    const auto waited = waiting.wait();
    INFO(waited.err);
    CHECK(waited.status == 0);
    CHECK(waited.out.rfind("6*7 = 42.", 0) == 0);
    CHECK(waited.err.find("model:0 asked for calculator") != std::string::npos);
}

TEST_CASE("reagent worker, submit and runs: a store that cannot be used is a usage error", "[cli][durable]") {
    const TempDir dir;
    const auto none = runCli({"runs", "list"});
    CHECK(none.status == 2);
    CHECK(none.err.find("--db") != std::string::npos);
    // Nothing listens on port 1; the password is never shown.
    const auto postgres = runCli({"submit", "--db", "postgresql://someone:hunter2@127.0.0.1:1/runs", "hi"});
    CHECK(postgres.status == 2);
    CHECK(postgres.err.find("postgresql://someone@127.0.0.1:1/runs") != std::string::npos);
    CHECK(postgres.err.find("hunter2") == std::string::npos);
    const auto missing = runCli({"runs", "show", "nope", "--db", dir.file("runs.db")});
    CHECK(missing.status == 2);
    CHECK(missing.err.find("no run 'nope'") != std::string::npos);
    const auto status = runCli({"runs", "list", "--db", dir.file("runs.db"), "--status", "sleeping"});
    CHECK(status.status == 2);
    const auto elsewhere = runCli({"worker", "--db", dir.file("no/such/dir/runs.db"), "--until-idle"});
    CHECK(elsewhere.status == 2);
    CHECK(elsewhere.err.find("no/such/dir/runs.db") != std::string::npos);
}
