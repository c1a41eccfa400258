// `reagent serve --a2a --db`: A2A tasks kept as durable runs, on SQLite and PostgreSQL. A task taken by a
// server that is then killed (SIGKILL) is finished by another server on the same store, which answers for
// it (`tasks/get`) and cancels another; one stopped gracefully leaves its task to go on; a store that cannot
// be opened is a usage error.

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_process.hpp"
#include "loopback_http.hpp"
#include "postgres_cluster.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::CliProcess;
using reagent::test::portOf;
using reagent::test::request;
using reagent::test::runCli;
using reagent::test::TempDir;
using namespace std::chrono_literals;

namespace {

std::string newTaskStore(const std::string& engine, const TempDir& dir) {
    if (engine == "sqlite") {
        return dir.file("tasks.db");
    }
    return reagent::test::newTestDatabase();
}

// A server on `db`: demo turns of `latencyMs`, leases of one second.
CliProcess durableServer(const std::string& db, int latencyMs) {
    return CliProcess({"serve", "--a2a", "--db", db, "--no-auth", "--port", "0", "--lease-seconds", "1",
                       "--demo-latency", std::to_string(latencyMs)});
}

json call(int port, const std::string& method, const json& params) {
    const json body = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}};
    const auto reply = request(port, "POST", "/a2a/jsonrpc", body.dump());
    INFO(reply.body);
    REQUIRE(reply.status == 200);
    return json::parse(reply.body);
}

// A task started without waiting for it: its id.
std::string startTask(int port, const std::string& text) {
    const json message = {{"role", "user"},
                          {"messageId", "m-" + text.substr(0, 4)},
                          {"parts", {{{"kind", "text"}, {"text", text}}}}};
    const json started =
        call(port, "message/send", {{"message", message}, {"configuration", {{"blocking", false}}}});
    INFO(started.dump());
    REQUIRE(started.contains("result"));
    return started["result"]["id"];
}

// The task's state as the server at `port` has it, once it is `state` (or after 30 s).
json taskOnceIn(int port, const std::string& id, const std::string& state) {
    json task;
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
        const json got = call(port, "tasks/get", {{"id", id}});
        REQUIRE(got.contains("result"));
        task = got["result"];
        if (task["status"]["state"] == state) {
            break;
        }
        std::this_thread::sleep_for(100ms);
    }
    return task;
}

}  // namespace

TEST_CASE(
    "serve --a2a --db: a task outlives the server that took it, and any server on the store answers for it",
    "[cli][durable][a2a]") {
    const std::string engine = GENERATE(as<std::string>{}, "sqlite", "postgres");
    INFO(engine);
    const TempDir dir;
    const std::string db = newTaskStore(engine, dir);

    CliProcess first = durableServer(db, 1500);
    const int firstPort = portOf(first, "Ctrl-C stops");
    CliProcess second = durableServer(db, 200);
    const int secondPort = portOf(second, "Ctrl-C stops");

    // Taken by the first server (the second one's worker may take it too: whichever claims first).
    const std::string id = startTask(firstPort, "What is 2+2?");
    const json seen = call(secondPort, "tasks/get", {{"id", id}});
    REQUIRE(seen.contains("result"));
    CHECK(seen["result"]["history"][0]["parts"][0]["text"] == "What is 2+2?");
    std::this_thread::sleep_for(300ms);
    first.signal(SIGKILL);
    (void)first.wait();

    const json done = taskOnceIn(secondPort, id, "completed");
    INFO(done.dump());
    REQUIRE(done["status"]["state"] == "completed");
    CHECK(done["artifacts"][0]["parts"][0]["text"].get<std::string>().find("= 4") != std::string::npos);
    const auto shown = runCli({"runs", "show", id, "--db", db, "--json"});
    REQUIRE(shown.status == 0);
    CHECK(json::parse(shown.out)["status"] == "completed");

    // A task cancelled through a server that did not start it; cancelling it again is refused.
    CliProcess third = durableServer(db, 5000);
    const int thirdPort = portOf(third, "Ctrl-C stops");
    const std::string slow = startTask(thirdPort, "What is 3+3?");
    const json cancelled = call(secondPort, "tasks/cancel", {{"id", slow}});
    INFO(cancelled.dump());
    REQUIRE(cancelled.contains("result"));
    CHECK(taskOnceIn(thirdPort, slow, "canceled")["status"]["state"] == "canceled");
    const json again = call(secondPort, "tasks/cancel", {{"id", slow}});
    REQUIRE(again.contains("error"));
    CHECK(again["error"]["code"] == -32002);
    CHECK(call(secondPort, "tasks/get", {{"id", "no-such-task"}})["error"]["code"] == -32001);

    // A server stopped gracefully leaves its tasks to go on.
    const std::string left = startTask(thirdPort, "What is 4+4?");
    std::this_thread::sleep_for(300ms);
    third.signal(SIGTERM);
    CHECK(third.wait().status == 0);
    CHECK(taskOnceIn(secondPort, left, "completed")["status"]["state"] == "completed");
    second.signal(SIGTERM);
    CHECK(second.wait().status == 0);
}

TEST_CASE("serve --a2a --db: a store that cannot be opened is a usage error, said before serving",
          "[cli][durable][a2a]") {
    const TempDir dir;
    const auto refused = runCli({"serve", "--a2a", "--no-auth", "--db", dir.file("missing/dir/tasks.db")});
    CHECK(refused.status == 2);
    CHECK(refused.err.find("tasks.db") != std::string::npos);
    CHECK(refused.err.find("serving") == std::string::npos);
}
