// Episodic memory across processes: one program logs a tool result, a second one recalls it; another
// connection holding the file's lock neither blocks the run's thread nor outlasts a cancellation; a file
// that cannot be written is reported in the run's result.
#include <sqlite3.h>

#include <array>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <reagent/reagent.hpp>
#include <string>

#include "../memory/store_files.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;
using reagent::agent::Agent;
using reagent::agent::MemoryConfig;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;

namespace {

reagent::Task<reagent::tools::ToolResult> answer(std::string output) {
    co_return output;
}

// An agent with one tool `lookup`, whose model calls it once and then answers "done".
Agent lookupAgent(const std::string& memoryFile) {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("lookup", nlohmann::json{{"city", "Lyon"}}, "c1"))
        .then(ScriptedTurn::text("done"));
    auto tool = reagent::tools::ToolBuilder::create("lookup")
                    .description("Looks a city up")
                    .param("city", "string", "the city")
                    .handler([](nlohmann::json, reagent::tools::ToolContext) { return answer("4242"); })
                    .build();
    REQUIRE(tool.has_value());
    MemoryConfig memory;
    memory.path = memoryFile;
    auto agent = Agent::create().withProvider(provider).withTool(std::move(*tool)).withMemory(memory).build();
    REQUIRE(agent.has_value());
    return std::move(*agent);
}

std::int64_t msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
        .count();
}

struct Output {
    int status = -1;
    std::string text;
};

Output runProgram(const std::string& command) {
    Output out;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
        out.text += buffer.data();
    }
    out.status = ::pclose(pipe);
    return out;
}

}  // namespace

TEST_CASE("Episodic memory written by one process is recalled by a second", "[agent][memory][episodic]") {
    const reagent::test::TempDir dir;
    const std::string file = dir.file("memory.db");
    const std::string program = REAGENT_EPISODIC_PROCESS;

    const Output first = runProgram(program + " write " + file);
    CHECK(first.status == 0);
    CHECK(first.text == "the secret of Lyon is 4242\n");

    const Output second = runProgram(program + " recall " + file);
    CHECK(second.status == 0);
    CHECK(second.text.find("Episodic memory: 1 match, newest first\n#1 ") != std::string::npos);
    CHECK(second.text.find(" lookup: ") != std::string::npos);
    CHECK(second.text.find("the secret of Lyon is 4242") != std::string::npos);
}

TEST_CASE("a locked memory file blocks neither the run's thread nor its cancellation",
          "[agent][memory][episodic][cancel][timing]") {
    namespace asio = boost::asio;
    const reagent::test::TempDir dir;
    const std::string file = dir.file("memory.db");
    Agent agent = lookupAgent(file);  // opens (creates) the store first
    reagent::test::LockHolder lock(file);
    asio::io_context io;
    std::optional<RunResult> result;
    asio::cancellation_signal signal;
    asio::co_spawn(io, agent.run("what is the secret of Lyon?"),
                   asio::bind_cancellation_slot(
                       signal.slot(), [&](std::exception_ptr, RunResult r) { result = std::move(r); }));
    asio::steady_timer timer(io, 300ms);
    const auto start = std::chrono::steady_clock::now();

    SECTION("released on the same thread while the write waits: the episode is logged, the run ends") {
        // Were the write blocking the thread, this timer could only fire after the 5 s busy timeout. The
        // run takes 0.35 s on a quiet machine; on one whose cores are busy with other tests it has taken
        // 1.8-2.4 s, hence a bound that still tells the two apart.
        timer.async_wait([&](boost::system::error_code) { lock.release(); });
        io.run();
        CHECK(msSince(start) < 4000);
        REQUIRE(result);
        CHECK(result->success());
        CHECK(result->output == "done");
        CHECK(result->warnings.empty());
        auto store = reagent::memory::EpisodicStore::openReadOnly(file);
        REQUIRE(store.has_value());
        CHECK(store->count().value() == 1);
    }
    SECTION("cancelled while the write waits: the run returns at once with its result and a warning") {
        timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
        io.run();
        CHECK(msSince(start) < 3000);  // against the 5 s busy timeout a blocked wait would cost
        REQUIRE(result);
        CHECK(result->terminatedBy == TerminatedBy::cancelled);
        REQUIRE(result->toolCalls.size() == 1);
        CHECK(result->toolCalls[0].outcome.value() == "4242");
        REQUIRE(result->warnings.size() == 1);
        CHECK_THAT(result->warnings[0], Catch::Contains("tool call c1 (lookup) was not logged") &&
                                            Catch::Contains(file) && Catch::Contains("cancelled"));
    }
}

TEST_CASE("an episode that cannot be written is a warning in the run's result", "[agent][memory][episodic]") {
    const reagent::test::TempDir dir;
    const std::string file = dir.file("memory.db");
    Agent agent = lookupAgent(file);
    reagent::test::corruptEpisodesTable(file);
    std::vector<std::string> events;
    agent.subscribe([&events](const reagent::agent::AgentEvent& event) {
        if (const auto* warning = std::get_if<reagent::agent::MemoryWarning>(&event)) {
            events.push_back(warning->message);
        }
    });
    const RunResult result = reagent::test::runCoro(agent.run("what is the secret of Lyon?"));
    CHECK(result.success());
    CHECK(result.output == "done");
    REQUIRE(result.warnings.size() == 1);
    CHECK_THAT(result.warnings[0], Catch::Contains("tool call c1 (lookup) was not logged") &&
                                       Catch::Contains(file) && Catch::Contains("malformed"));
    CHECK(events == result.warnings);
}
