// The `reagent` binary as a user runs it: exit statuses, the JSON result, the trace, the tool list.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "cli_process.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::runCli;

namespace {

constexpr const char* kNotice = "no provider configured";

json parseStdout(const reagent::test::CliOutcome& outcome) {
    INFO("stdout: " << outcome.out << "\nstderr: " << outcome.err);
    json parsed = json::parse(outcome.out, nullptr, false);
    REQUIRE_FALSE(parsed.is_discarded());
    return parsed;
}

}  // namespace

TEST_CASE("run --json reports a parallel batch of three tools and a final answer", "[cli][run][json]") {
    const auto outcome = runCli({"run", "--json", "What is 6*7?"});
    REQUIRE(outcome.status == 0);
    CHECK(outcome.err.find(kNotice) != std::string::npos);
    const json result = parseStdout(outcome);

    CHECK(result["success"] == true);
    CHECK(result["terminatedBy"] == "final_answer");
    CHECK(result["iterations"] == 2);
    CHECK(result["error"].is_null());
    CHECK(result["usage"]["inputTokens"] == 0);

    const json& calls = result["toolCalls"];
    REQUIRE(calls.is_array());
    std::vector<json> firstTrip;
    for (const auto& call : calls) {
        if (call["tripIndex"] == 0) {
            firstTrip.push_back(call);
        }
    }
    REQUIRE(firstTrip.size() == 3);
    CHECK(firstTrip[0]["name"] == "calculator");
    CHECK(firstTrip[0]["input"]["expression"] == "6*7");
    CHECK(firstTrip[0]["output"] == "42");
    CHECK(firstTrip[1]["name"] == "word_count");
    CHECK(firstTrip[1]["input"]["text"] == "What is 6*7?");
    CHECK(json::parse(firstTrip[1]["output"].get<std::string>()) ==
          json{{"words", 3}, {"characters", 12}, {"lines", 1}});
    CHECK(firstTrip[2]["name"] == "current_time");
    CHECK(firstTrip[2]["input"]["timezone"] == "UTC");  // the schema default, injected
    const std::string now = firstTrip[2]["output"];
    CHECK(std::regex_match(now, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
    for (const auto& call : firstTrip) {
        CHECK(call["id"].is_string());
        CHECK(call["durationMs"].is_number());
        CHECK(call["durationMs"].get<double>() >= 0.0);
        CHECK_FALSE(call.contains("error"));
    }

    // The answer is composed from the tool results that reached the second model turn.
    const std::string output = result["output"];
    CHECK(output.find("6*7 = 42.") != std::string::npos);
    CHECK(output.find("3 words, 12 characters and 1 line.") != std::string::npos);
    CHECK(output.find("The current time is " + now) != std::string::npos);
    CHECK(result["finalAnswer"]["format"] == "text");
    CHECK(result["finalAnswer"]["output"] == output);
}

TEST_CASE("run prints the answer on stdout and the trace on stderr", "[cli][run]") {
    const auto outcome = runCli({"run", "What", "is", "(2+3)*4?"});  // words are joined into one prompt
    REQUIRE(outcome.status == 0);
    CHECK(outcome.out.rfind("(2+3)*4 = 20. Your prompt has 3 words", 0) == 0);
    CHECK(outcome.out.find("model turn") == std::string::npos);

    CHECK(outcome.err.find(kNotice) != std::string::npos);
    CHECK(outcome.err.find("model turn 1:") != std::string::npos);
    CHECK(outcome.err.find("[3 tool calls: calculator word_count current_time]") != std::string::npos);
    CHECK(outcome.err.find("\u2192 calculator: Calculating (2+3)*4") != std::string::npos);
    CHECK(outcome.err.find("\u2713 calculator (") != std::string::npos);
    CHECK(outcome.err.find("): 20\n") != std::string::npos);
    CHECK(outcome.err.find("model turn 2:") != std::string::npos);
    CHECK(outcome.err.find("done: 2 iterations,") != std::string::npos);
    CHECK(outcome.err.find("terminated by final_answer") != std::string::npos);
}

TEST_CASE("run --quiet prints only the answer", "[cli][run]") {
    const auto outcome = runCli({"run", "--quiet", "What is 6*7?"});
    REQUIRE(outcome.status == 0);
    CHECK(outcome.out.rfind("6*7 = 42.", 0) == 0);
    CHECK(std::count(outcome.out.begin(), outcome.out.end(), '\n') == 1);
    CHECK(outcome.err.find("model turn") == std::string::npos);
    CHECK(outcome.err.find("done:") == std::string::npos);
    CHECK(outcome.err.find(kNotice) != std::string::npos);  // the demo is always labelled
}

TEST_CASE("a calculator error reaches the answer, the run still succeeds", "[cli][run][json]") {
    const auto outcome = runCli({"run", "--json", "What is 1/0?"});
    REQUIRE(outcome.status == 0);
    const json result = parseStdout(outcome);
    CHECK(result["success"] == true);
    const json& calculator = result["toolCalls"][0];
    REQUIRE(calculator.contains("error"));
    CHECK_FALSE(calculator.contains("output"));
    CHECK(calculator["error"]["code"] == "failed");
    CHECK(calculator["error"]["message"] == "division by zero at position 2");
    CHECK(result["output"].get<std::string>().find(
              "1/0 could not be calculated (failed: division by zero at position 2).") != std::string::npos);
}

TEST_CASE("a prompt without arithmetic uses the default expression", "[cli][run][json]") {
    const auto outcome = runCli({"run", "--json", "Hello there"});
    REQUIRE(outcome.status == 0);
    const json result = parseStdout(outcome);
    CHECK(result["toolCalls"][0]["input"]["expression"] == "6*7");
}

TEST_CASE("a run that hits the iteration limit fails with status 1", "[cli][run][json]") {
    const auto outcome = runCli({"run", "--json", "--max-iterations", "1", "What is 6*7?"});
    CHECK(outcome.status == 1);
    const json result = parseStdout(outcome);
    CHECK(result["success"] == false);
    CHECK(result["terminatedBy"] == "max_iterations");
    CHECK(result["iterations"] == 1);
    CHECK(result["error"]["code"] == "max_iterations");
    CHECK(result["toolCalls"].size() == 3);  // the batch of the only iteration still ran

    const auto human = runCli({"run", "--max-iterations", "1", "What is 6*7?"});
    CHECK(human.status == 1);
    CHECK(human.err.find("reagent: the run failed: max_iterations:") != std::string::npos);
    CHECK(human.err.find("failed: 1 iteration,") != std::string::npos);
}

TEST_CASE("usage errors exit with status 2", "[cli][usage]") {
    const std::vector<std::vector<std::string>> wrong{
        {"frobnicate"},                            // unknown command
        {},                                        // no command
        {"run"},                                   // no prompt
        {"run", "--max-iterations", "0", "x"},     // not positive
        {"run", "--max-iterations", "many", "x"},  // not a number
        {"run", "--json", "--quiet", "x"},         // contradictory
        {"run", "--no-such-option", "x"},          // unknown option
        {"tools", "extra"},                        // unexpected argument
    };
    for (const auto& args : wrong) {
        std::string line;
        for (const auto& arg : args) {
            line += arg + " ";
        }
        INFO("reagent " << line);
        const auto outcome = runCli(args);
        CHECK(outcome.status == 2);
        CHECK_FALSE(outcome.err.empty());
        CHECK(outcome.out.find("model turn") == std::string::npos);
    }
}

TEST_CASE("an unknown command is named in the error", "[cli][usage]") {
    const auto outcome = runCli({"frobnicate", "now"});
    CHECK(outcome.status == 2);
    CHECK(outcome.err.find(
              "reagent: unknown command 'frobnicate' (commands: run, chat, tools, memory, docs, mcp, "
              "serve, worker, submit, runs)") != std::string::npos);
    CHECK(outcome.out.empty());

    const auto option = runCli({"--frobnicate"});
    CHECK(option.status == 2);
    CHECK(option.err.find("unknown command") == std::string::npos);
}

TEST_CASE("help works on every command and --version prints the version", "[cli][usage]") {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--help"}, {"run", "--help"}, {"tools", "--help"}}) {
        INFO(args.front());
        const auto outcome = runCli(args);
        CHECK(outcome.status == 0);
        CHECK(outcome.out.find("Usage") != std::string::npos);
    }
    CHECK(runCli({"--help"}).out.find("run") != std::string::npos);
    CHECK(runCli({"run", "--help"}).out.find("--max-iterations") != std::string::npos);
    CHECK(runCli({"tools", "--help"}).out.find("--json") != std::string::npos);

    const auto version = runCli({"--version"});
    CHECK(version.status == 0);
    CHECK(version.out == std::string("reagent ") + REAGENT_VERSION + "\n");
}

TEST_CASE("tools lists the demo tools the built-in tools and the meta-tools", "[cli][tools]") {
    const auto pretty = runCli({"tools"});
    REQUIRE(pretty.status == 0);
    for (const char* name :
         {"calculator\n", "word_count\n", "current_time\n", "final-answer\n", "task-complete\n",
          "context-status\n", "recall\n", "http-get\n", "web-search\n", "crypto-price\n"}) {
        CHECK(pretty.out.find(name) != std::string::npos);
    }
    // code-execute runs code: only where the user gave a workspace.
    CHECK(pretty.out.find("code-execute") == std::string::npos);
    CHECK(pretty.out.find("\"expression\"") != std::string::npos);

    const auto machine = runCli({"tools", "--json"});
    REQUIRE(machine.status == 0);
    const json tools = parseStdout(machine);
    REQUIRE(tools.is_array());
    std::map<std::string, json> byName;
    for (const auto& tool : tools) {
        CHECK(tool["description"].is_string());
        CHECK_FALSE(tool["description"].get<std::string>().empty());
        CHECK(tool["inputSchema"]["type"] == "object");
        byName[tool["name"]] = tool;
    }
    // Without --workspace: the network tools, neither code-execute nor the workspace tools.
    REQUIRE(byName.size() == 10);
    CHECK(byName.count("file-read") == 0);
    CHECK(byName.count("code-execute") == 0);
    REQUIRE(byName.count("final-answer") == 1);
    REQUIRE(byName.count("recall") == 1);
    const json& calculator = byName.at("calculator")["inputSchema"];
    CHECK(calculator["properties"]["expression"]["type"] == "string");
    CHECK(calculator["required"] == json{"expression"});
    const json& timezone = byName.at("current_time")["inputSchema"]["properties"]["timezone"];
    CHECK(timezone["enum"] == json{"UTC"});
    CHECK(timezone["default"] == "UTC");
}

TEST_CASE("code-execute and the workspace tools come with --workspace only", "[cli][tools]") {
    reagent::test::TempDir dir;
    const auto with = runCli({"tools", "--workspace", dir.path.string()});
    REQUIRE(with.status == 0);
    for (const char* name : {"code-execute\n", "file-read\n", "shell-execute\n", "git-cli\n", "http-get\n"}) {
        CHECK(with.out.find(name) != std::string::npos);
    }
    const auto without = runCli({"tools"});
    REQUIRE(without.status == 0);
    for (const char* name : {"code-execute", "file-read", "shell-execute", "git-cli"}) {
        CHECK(without.out.find(name) == std::string::npos);
    }
    CHECK(without.out.find("http-get\n") != std::string::npos);

    // run --help says the same.
    const auto help = runCli({"run", "--help"});
    REQUIRE(help.status == 0);
    CHECK(help.out.find("Without it the agent has only the network tools") != std::string::npos);
}

TEST_CASE("run --memory logs tool results that a later `memory` command finds", "[cli][memory]") {
    const reagent::test::TempDir dir;
    const std::string file = dir.file("memory.db");

    const auto first = runCli({"run", "--quiet", "--memory", file, "What is 6*7?"});
    REQUIRE(first.status == 0);
    const auto second = runCli({"run", "--quiet", "--memory", file, "What is 2+3?"});
    REQUIRE(second.status == 0);

    // A later process finds both runs' calculator calls, newest first.
    const auto found = runCli({"memory", "search", "calculator", "--memory", file, "--json"});
    REQUIRE(found.status == 0);
    const json hits = parseStdout(found);
    REQUIRE(hits.size() == 2);
    CHECK(hits[0]["input"] == R"({"expression":"2+3"})");
    CHECK(hits[0]["result"] == "5");
    CHECK(hits[1]["result"] == "42");

    const auto recent = runCli({"memory", "recent", "--limit", "3", "--memory", file});
    REQUIRE(recent.status == 0);
    CHECK(std::count(recent.out.begin(), recent.out.end(), '\n') == 3);

    const auto shown = runCli({"memory", "show", hits[1]["id"].dump(), "--memory", file});
    REQUIRE(shown.status == 0);
    CHECK(shown.out.find("calculator\ninput: {\"expression\":\"6*7\"}\nresult:\n42\n") != std::string::npos);

    const auto bad = runCli({"memory", "show", "x", "--memory", file});
    CHECK(bad.status == 2);
    const auto missing = runCli({"memory", "search", "x", "--memory", dir.file("none.db")});
    CHECK(missing.status == 1);
    CHECK(missing.err.find("no episodic memory at") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.file("none.db")));
}
