// A run stopped for a declaration-only call in one process is resumed in another, from the public API
// only: the first program saves RunResult::state to a file and exits; a second one builds the same agent,
// whose model holds only the replies after the pause, and finishes the run with Agent::resume. It ends
// exactly as the same run resumed in one process, and as a run whose tool executed in it. A bad state file
// or bad results are refused by the second process with invalid_state, before any model call.
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "resume_process_scenario.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::agent::ExternalResult;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
namespace scenario = reagent::test::resume_scenario;

namespace {

struct Output {
    /// The program's exit status, or -1 when it did not exit normally (killed by its alarm, ...).
    int status = -1;
    std::string text;
};

// Runs the second program with `args` (each single-quoted for the shell) and collects its stdout.
Output runProgram(const std::vector<std::string>& args) {
    std::string command = REAGENT_RESUME_PROCESS;
    for (const auto& arg : args) {
        command += " '" + arg + "'";
    }
    Output out;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
        out.text += buffer.data();
    }
    const int status = ::pclose(pipe);
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

json parsed(const Output& out) {
    INFO(out.text);
    const json value = json::parse(out.text, nullptr, /*allow_exceptions=*/false);
    REQUIRE_FALSE(value.is_discarded());
    return value;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

// The run stopped and saved by a first process: the state file is ready.
void startInFirstProcess(const std::string& stateFile) {
    const Output started = runProgram({"start", stateFile});
    REQUIRE(started.status == 0);
    const json pending = parsed(started);
    CHECK(pending["iterations"] == 1);
    REQUIRE(pending["pending"].size() == 1);
    CHECK(pending["pending"][0]["id"] == scenario::kHumanCall);
    CHECK(pending["pending"][0]["name"] == "ask_human");
    CHECK(pending["pending"][0]["arguments"] == json{{"question", "Which city?"}});
}

// The same run, paused and resumed in this process by one agent: the comparison for the second process.
json resumedInProcess(std::vector<ExternalResult> results) {
    auto agent = scenario::buildAgent(scenario::provider(true));
    REQUIRE(agent);
    const RunResult paused = reagent::test::runCoro(agent->run(scenario::kPrompt));
    REQUIRE(paused.terminatedBy == TerminatedBy::external_tool_calls);
    const auto resumed = reagent::test::runCoro(agent->resume(paused.state, std::move(results)));
    REQUIRE(resumed);
    return scenario::summary(*resumed);
}

// The error the second process reported, after checking it refused before any model call.
json refusal(const Output& out) {
    CHECK(out.status == 3);
    const json reported = parsed(out);
    CHECK(reported["modelCalls"] == 0);
    CHECK(reported["error"]["code"] == "invalid_state");
    return reported["error"];
}

}  // namespace

TEST_CASE("a run stopped for a declaration-only call is resumed in a second process",
          "[agent][state][process]") {
    const reagent::test::TempDir dir;
    const std::string stateFile = dir.file("state.json");
    startInFirstProcess(stateFile);

    SECTION(
        "with the caller's result it ends as the run resumed in one process, and as an uninterrupted run") {
        const Output out = runProgram({"resume", stateFile, std::string(scenario::kHumanCall) + "=Lyon"});
        INFO(out.text);
        REQUIRE(out.status == 0);
        json resumed = parsed(out);
        // The second process made only the two model calls after the pause, and its script is used up.
        CHECK(resumed["modelCalls"] == 2);
        CHECK(resumed["scriptLeft"] == 0);
        resumed.erase("modelCalls");
        resumed.erase("scriptLeft");

        CHECK(resumed["output"] == "You chose Lyon: the name Lyon comes from Lugdunum.");
        CHECK(resumed["terminatedBy"] == "end_turn");
        CHECK(resumed["iterations"] == 3);
        CHECK(resumed["usage"] == json{11 + 17 + 23, 3 + 5 + 7});
        REQUIRE(resumed["toolCalls"].size() == 2);
        CHECK(resumed["toolCalls"][0]["name"] == "ask_human");
        CHECK(resumed["toolCalls"][0]["outcome"] == "Lyon");
        CHECK(resumed["toolCalls"][1]["name"] == "lookup");
        CHECK(resumed["toolCalls"][1]["tripIndex"] == 1);
        CHECK(resumed["toolCalls"][1]["outcome"] == "the name Lyon comes from Lugdunum");
        // system, user, the ask, its result, the lookup, its result, the answer
        CHECK(resumed["messageCount"] == 7);
        CHECK(resumed["messages"][0]["role"] == "system");
        CHECK(resumed["messages"][3]["text"] == "Lyon");
        CHECK(resumed["pending"] == 0);

        std::vector<ExternalResult> results{ExternalResult{scenario::kHumanCall, std::string("Lyon")}};
        CHECK(resumed == resumedInProcess(std::move(results)));

        // The same run with ask_human executed in it (its handler answers "Lyon"), never paused.
        auto straight = scenario::buildAgent(scenario::provider(true), /*humanRuns=*/true);
        REQUIRE(straight);
        const RunResult uninterrupted = reagent::test::runCoro(straight->run(scenario::kPrompt));
        CHECK(resumed == scenario::summary(uninterrupted));
    }
    SECTION("an error result reaches the model as the call's error, as in one process") {
        const Output out =
            runProgram({"resume", stateFile, std::string(scenario::kHumanCall) + "!nobody answered"});
        INFO(out.text);
        // The script's next turn expects the city: the model call is refused, so the run fails there.
        CHECK(out.status == 5);
        json resumed = parsed(out);
        CHECK(resumed["modelCalls"] == 1);
        resumed.erase("modelCalls");
        resumed.erase("scriptLeft");
        CHECK(resumed["terminatedBy"] == "provider_error");
        REQUIRE(resumed["toolCalls"].size() == 1);
        CHECK_THAT(resumed["toolCalls"][0]["error"].get<std::string>(), Catch::Contains("nobody answered"));
        CHECK(resumed["messages"][3]["isError"] == true);

        std::vector<ExternalResult> results{
            ExternalResult{scenario::kHumanCall, reagent::unexpected(reagent::tools::ToolError{
                                                     reagent::tools::ToolErrc::failed, "nobody answered"})}};
        CHECK(resumed == resumedInProcess(std::move(results)));
    }
    SECTION("the saved state is a value: resumed twice from the same file, it ends the same twice") {
        const std::string result = std::string(scenario::kHumanCall) + "=Lyon";
        const Output first = runProgram({"resume", stateFile, result});
        const Output second = runProgram({"resume", stateFile, result});
        CHECK(first.status == 0);
        CHECK(second.status == 0);
        CHECK(parsed(first) == parsed(second));
    }
}

TEST_CASE("a second process refuses a bad state file or bad results with invalid_state",
          "[agent][state][process]") {
    const reagent::test::TempDir dir;
    const std::string stateFile = dir.file("state.json");
    startInFirstProcess(stateFile);
    const std::string answer = std::string(scenario::kHumanCall) + "=Lyon";
    const json saved = json::parse(readFile(stateFile));

    SECTION("a field of the wrong type: the message names the field") {
        json corrupted = saved;
        corrupted["iterations"] = "three";
        writeFile(stateFile, corrupted.dump());
        const json error = refusal(runProgram({"resume", stateFile, answer}));
        CHECK_THAT(error["message"].get<std::string>(),
                   Catch::Contains("state.iterations has the wrong type"));
    }
    SECTION("a nested field with a bad value: the message names its path and value") {
        json corrupted = saved;
        corrupted["messages"][1]["role"] = "narrator";
        writeFile(stateFile, corrupted.dump());
        const json error = refusal(runProgram({"resume", stateFile, answer}));
        CHECK_THAT(error["message"].get<std::string>(), Catch::Contains("state.messages[1].role 'narrator'"));
    }
    SECTION("a missing field: the message names it") {
        json corrupted = saved;
        corrupted.erase("format");
        writeFile(stateFile, corrupted.dump());
        const json error = refusal(runProgram({"resume", stateFile, answer}));
        CHECK_THAT(error["message"].get<std::string>(), Catch::Contains("state.format is missing"));
    }
    SECTION("a file cut short is not JSON: the program says so before building anything") {
        const std::string text = readFile(stateFile);
        writeFile(stateFile, text.substr(0, text.size() / 2));
        const Output out = runProgram({"resume", stateFile, answer});
        CHECK(out.status == 4);
        CHECK(parsed(out)["error"]["code"] == "not_json");
    }
    SECTION("no result for the pending call") {
        const json error = refusal(runProgram({"resume", stateFile}));
        CHECK_THAT(error["message"].get<std::string>(),
                   Catch::Contains("no result supplied for the pending call(s) c1 (ask_human)"));
    }
    SECTION("a result for a call the run does not wait for") {
        const json error = refusal(runProgram({"resume", stateFile, answer, "c9=Paris"}));
        CHECK_THAT(error["message"].get<std::string>(),
                   Catch::Contains("'c9'") && Catch::Contains("not a pending call of this run"));
    }
    SECTION("a result for the ordinary call the model makes later is not a pending call either") {
        const json error = refusal(runProgram({"resume", stateFile, answer, "c2=Lugdunum"}));
        CHECK_THAT(error["message"].get<std::string>(), Catch::Contains("'c2'"));
    }
}
