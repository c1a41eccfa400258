// SIGINT and SIGTERM cancel the run in flight; the CLI reports the cancelled result and exits with 1.

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_process.hpp"

using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("a signal cancels the run and the cancelled result is reported", "[cli][signal]") {
    const int number = GENERATE(SIGINT, SIGTERM);
    INFO("signal " << number);
    const auto start = std::chrono::steady_clock::now();
    // Each demo turn waits 10 s: the signal arrives during the first model call.
    reagent::test::CliProcess process({"run", "--json", "--demo-latency", "10000", "What is 6*7?"});
    // Its start-up takes over a second under the sanitizers: the signal comes once it is handled.
    REQUIRE(process.waitUntilCatching(number, 20s));
    process.signal(number);
    const auto outcome = process.wait();
    const auto elapsed = std::chrono::steady_clock::now() - start;

    INFO("stdout: " << outcome.out << "\nstderr: " << outcome.err);
    CHECK(outcome.status == 1);
    CHECK(elapsed < 5s);  // far less than the scripted 10 s: the wait was cancelled
    CHECK(outcome.err.find("cancelling the run") != std::string::npos);
    const json result = json::parse(outcome.out, nullptr, false);
    REQUIRE_FALSE(result.is_discarded());
    CHECK(result["success"] == false);
    CHECK(result["terminatedBy"] == "cancelled");
    CHECK(result["error"]["code"] == "cancelled");
    CHECK(result["toolCalls"].empty());
}
