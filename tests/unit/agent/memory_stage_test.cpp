// The result stage through the public API: oversized tool results reach the model as previews stored in
// working memory, `recall` reads them back, `_transform` runs jq on a result, and `withMemory` logs
// every tool result in SQLite for later runs.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::AgentEvent;
using reagent::agent::MemoryConfig;
using reagent::agent::RunResult;
using reagent::agent::ToolResultCompressed;
using reagent::agent::ToolsConfig;
using reagent::llm::Message;
using reagent::llm::ModelRequest;
using reagent::llm::Role;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::ToolCall;
using reagent::test::runCoro;
using reagent::test::TempDir;
using reagent::tools::ToolBuilder;
using reagent::tools::ToolContext;
using reagent::tools::ToolResult;

namespace {

// 30 commits of about 1 KB each: the seed's github/list_commits example.
json commits() {
    json items = json::array();
    for (int i = 0; i < 30; ++i) {
        char sha[41];
        std::snprintf(sha, sizeof sha, "%07x%033x", 0xe255a50 + i * 0x1011, i * 7919);
        items.push_back(json{{"sha", sha},
                             {"commit",
                              {{"message", "change " + std::to_string(i) + ": " + std::string(700, 'x')},
                               {"author", {{"name", "Ada"}, {"date", "2026-02-27"}}}}},
                             {"author", {{"login", "ada"}}},
                             {"html_url", "https://example.com/acme/reagent/commit/" + std::string(sha)}});
    }
    return items;
}

Task<ToolResult> immediately(std::string output) {
    co_return output;
}

// A tool that returns `output` and keeps the arguments its handler saw.
reagent::tools::Tool fixedTool(std::string name, std::string output,
                               std::shared_ptr<std::vector<json>> seen) {
    auto tool = ToolBuilder::create(std::move(name))
                    .description("Returns a fixed result")
                    .param("repo", "string", "repository")
                    .handler([output = std::move(output), seen](json args, ToolContext) {
                        if (seen) {
                            seen->push_back(args);
                        }
                        return immediately(output);
                    })
                    .build();
    REQUIRE(tool.has_value());
    return std::move(*tool);
}

// The text of the tool message answering call `id` in the last request.
std::string toolMessage(const ScriptedProvider& provider, const std::string& id) {
    REQUIRE_FALSE(provider.requests().empty());
    for (const Message& message : provider.requests().back().messages) {
        if (message.role == Role::tool && message.toolCallId == id) {
            return message.text;
        }
    }
    FAIL("no tool message for " << id);
    return {};
}

RunResult run(const Agent& agent, std::string prompt = "go") {
    return runCoro(agent.run(std::move(prompt)));
}

}  // namespace

TEST_CASE("An oversized JSON array reaches the model as the seed's preview and recall returns it",
          "[agent][memory][compression]") {
    const std::string full = commits().dump();
    REQUIRE(full.size() > 25000);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("github/list_commits", json{{"repo", "acme/reagent"}}, "c1"));
    provider->then(ScriptedTurn::toolCall("recall", json{{"key", "_tool_result_1"}, {"full", true}}, "c2"));
    provider->then(ScriptedTurn::text("done"));
    std::vector<ToolResultCompressed> compressed;
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools({fixedTool("github/list_commits", full, nullptr)})
                     .withEventHandler([&](const AgentEvent& event) {
                         if (const auto* c = std::get_if<ToolResultCompressed>(&event)) {
                             compressed.push_back(*c);
                         }
                     })
                     .build();
    REQUIRE(agent.has_value());
    const RunResult result = run(*agent);
    REQUIRE(result.success());

    // Turn 2 read the preview, not the 30 KB.
    const auto& secondTurn = provider->requests()[1].messages;
    std::string preview;
    for (const Message& message : secondTurn) {
        if (message.role == Role::tool) {
            preview = message.text;
        }
    }
    CHECK(preview.rfind("[STORED: _tool_result_1 | github/list_commits]\nType: Array(30) | Schema: sha, ",
                        0) == 0);
    CHECK(preview.find("Preview (first 3):\n[0] sha=e255a50") != std::string::npos);
    CHECK(preview.find(
              "...27 more \u2014 use recall(\"_tool_result_1\") or | transform: to access full data") !=
          std::string::npos);
    CHECK(reagent::memory::characterCount(preview) <= 800);

    REQUIRE(result.toolCalls.size() == 2);
    CHECK(result.toolCalls[0].memoryKey == "_tool_result_1");
    CHECK(*result.toolCalls[0].outcome == preview);
    // The full value is in the agent's working memory, readable after the run...
    CHECK(agent->workingMemory().read("_tool_result_1").value() == full);
    // ... and the recall call returned it whole to the model.
    CHECK(toolMessage(*provider, "c2") == full);
    CHECK(result.toolCalls[1].memoryKey.empty());

    REQUIRE(compressed.size() == 1);
    CHECK(compressed[0].key == "_tool_result_1");
    CHECK(compressed[0].originalChars == full.size());
    CHECK(compressed[0].shownChars == reagent::memory::characterCount(preview));
}

TEST_CASE("The compression budget is exact: 800 characters pass, 801 are compressed",
          "[agent][memory][compression]") {
    // 'é' is two bytes but one character: the budget counts characters.
    std::string exactly800;
    for (int i = 0; i < 400; ++i) {
        exactly800 += "a\xC3\xA9";
    }
    exactly800.resize(exactly800.size() - 2);  // 799 characters
    exactly800 += "z";                         // 800
    REQUIRE(reagent::memory::characterCount(exactly800) == 800);
    const std::string over = exactly800 + "!";

    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCalls(
        {ToolCall{"a", "at_budget", json::object()}, ToolCall{"b", "over_budget", json::object()}}));
    provider->then(ScriptedTurn::text("done"));
    auto agent =
        Agent::create()
            .withProvider(provider)
            .withTools({fixedTool("at_budget", exactly800, nullptr), fixedTool("over_budget", over, nullptr)})
            .build();
    REQUIRE(agent.has_value());
    const RunResult result = run(*agent);
    CHECK(toolMessage(*provider, "a") == exactly800);
    const std::string preview = toolMessage(*provider, "b");
    CHECK(preview.rfind("[STORED: _tool_result_1 | over_budget]\nType: Text(1 line, 801 chars)", 0) == 0);
    CHECK(agent->workingMemory().read("_tool_result_1").value() == over);
    CHECK(result.toolCalls[0].memoryKey.empty());
    CHECK(result.toolCalls[1].memoryKey == "_tool_result_1");
}

TEST_CASE("The budget and preview size are configurable through withTools", "[agent][memory][compression]") {
    ToolsConfig config;
    config.tools.push_back(fixedTool("list_commits", commits().dump(), nullptr));
    config.resultCompression.budget = 50000;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("list_commits", json::object(), "c1"));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create().withProvider(provider).withTools(config).build();
    REQUIRE(agent.has_value());
    (void)run(*agent);
    CHECK(toolMessage(*provider, "c1") == commits().dump());
    CHECK(agent->workingMemory().size() == 0);

    ToolsConfig five;
    five.tools.push_back(fixedTool("list_commits", commits().dump(), nullptr));
    five.resultCompression.previewItems = 5;
    five.resultCompression.budget = 2000;
    auto provider5 = std::make_shared<ScriptedProvider>();
    provider5->then(ScriptedTurn::toolCall("list_commits", json::object(), "c1"));
    provider5->then(ScriptedTurn::text("done"));
    auto agent5 = Agent::create().withProvider(provider5).withTools(five).build();
    REQUIRE(agent5.has_value());
    (void)run(*agent5);
    const std::string preview = toolMessage(*provider5, "c1");
    CHECK(preview.find("Preview (first 5):") != std::string::npos);
    CHECK(preview.find("[4] sha=") != std::string::npos);
    CHECK(preview.find("...25 more") != std::string::npos);
}

TEST_CASE("A _transform runs jq on the result and only its output reaches the model",
          "[agent][memory][transform]") {
    auto seen = std::make_shared<std::vector<json>>();
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall(
        "list_commits", json{{"repo", "acme/reagent"}, {"_transform", ".[0:5] | map({sha: .sha[0:7]})"}},
        "c1"));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools({fixedTool("list_commits", commits().dump(), seen)})
                     .build();
    REQUIRE(agent.has_value());
    const RunResult result = run(*agent);
    REQUIRE(result.success());

    json expected = json::array();
    for (int i = 0; i < 5; ++i) {
        expected.push_back(json{{"sha", commits()[i]["sha"].get<std::string>().substr(0, 7)}});
    }
    CHECK(json::parse(toolMessage(*provider, "c1")) == expected);
    CHECK(toolMessage(*provider, "c1") == expected.dump());
    // The handler never saw `_transform`, and validation did not either (no error).
    REQUIRE(seen->size() == 1);
    CHECK(seen->front() == json{{"repo", "acme/reagent"}});
    CHECK(result.toolCalls[0].transform == std::optional<std::string>(".[0:5] | map({sha: .sha[0:7]})"));
    CHECK(result.toolCalls[0].input == json{{"repo", "acme/reagent"}});
    CHECK(result.toolCalls[0].memoryKey.empty());
    // The model's own message keeps the argument as it was sent.
    CHECK(provider->requests()[1].messages[1].toolCalls[0].arguments.contains("_transform"));
}

TEST_CASE("A bad _transform reports jq's error and falls back to the preview", "[agent][memory][transform]") {
    struct Case {
        std::string transform;
        json output;
        std::string code;
    };
    const std::vector<Case> cases = {
        {".[0:5] | map({sha: .sha[0:7]", commits(), "invalid_expression"},
        {"nosuchfunction(1)", commits(), "invalid_expression"},
        {".[0].sha.x", commits(), "runtime_error"},
        {"def f: f; f", commits(), "timeout"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.transform) {
            ToolsConfig config;
            config.tools.push_back(fixedTool("list_commits", c.output.dump(), nullptr));
            config.transformLimits.timeout = 700ms;
            auto provider = std::make_shared<ScriptedProvider>();
            provider->then(ScriptedTurn::toolCall("list_commits", json{{"_transform", c.transform}}, "c1"));
            provider->then(ScriptedTurn::text("done"));
            auto agent = Agent::create().withProvider(provider).withTools(config).build();
            REQUIRE(agent.has_value());
            const RunResult result = run(*agent);
            REQUIRE(result.success());
            const std::string text = toolMessage(*provider, "c1");
            CHECK(text.rfind("[STORED: _tool_result_1 | list_commits]\nType: Array(30)", 0) == 0);
            CHECK(text.find("\n[transform failed: " + c.code + ": ") != std::string::npos);
            CHECK(text.find("showing the standard preview instead]") != std::string::npos);
            CHECK(agent->workingMemory().read("_tool_result_1").value() == c.output.dump());
        }
    }
}

TEST_CASE("The _transforms of one reply run in parallel within one deadline for the whole stage",
          "[agent][memory][transform]") {
    // Twelve transforms that never end, each bounded at 400 ms: one after another they took 4.8 s. Three at
    // once, under a 1 s bound for the stage, the reply is done in about a second.
    ToolsConfig config;
    config.tools.push_back(fixedTool("list_commits", commits().dump(), nullptr));
    config.transformLimits.timeout = 400ms;
    config.transformStageTimeout = 1000ms;
    std::vector<ToolCall> calls;
    for (int i = 0; i < 12; ++i) {
        calls.push_back(
            ToolCall{"c" + std::to_string(i), "list_commits", json{{"_transform", "def f: f; f"}}});
    }
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCalls(calls));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create().withProvider(provider).withTools(config).build();
    REQUIRE(agent.has_value());
    const auto started = std::chrono::steady_clock::now();
    const RunResult result = run(*agent);
    const auto elapsed = std::chrono::steady_clock::now() - started;
    REQUIRE(result.success());
    CHECK(elapsed >= 900ms);
    CHECK(elapsed < 2500ms);
    int timedOut = 0;
    int cutByStage = 0;
    for (int i = 0; i < 12; ++i) {
        const std::string text = toolMessage(*provider, "c" + std::to_string(i));
        CHECK(text.rfind("[STORED: ", 0) == 0);  // every call falls back to the standard preview
        timedOut += text.find("[transform failed: timeout: ") != std::string::npos &&
                    text.find("ran out of time") == std::string::npos;
        cutByStage += text.find("ran out of time (1000 ms for all of them together)") != std::string::npos;
    }
    CHECK(timedOut >= 3);  // the first wave ran to its own limit, three at once
    CHECK(timedOut <= 6);
    CHECK(cutByStage >= 6);  // the rest were stopped by the stage's deadline
    CHECK(timedOut + cutByStage == 12);

    ToolsConfig invalid;
    invalid.transformStageTimeout = 0ms;
    const auto refused = Agent::create().withProvider(provider).withTools(invalid).build();
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message.find("transformStageTimeout must be positive") != std::string::npos);
}

TEST_CASE("A _transform on a short or non-JSON result falls back to the whole result",
          "[agent][memory][transform]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCalls({ToolCall{"a", "plain", json{{"_transform", ".a"}}},
                                            ToolCall{"b", "plain", json{{"_transform", 42}}}}));
    provider->then(ScriptedTurn::text("done"));
    auto agent =
        Agent::create().withProvider(provider).withTools({fixedTool("plain", "not json", nullptr)}).build();
    REQUIRE(agent.has_value());
    (void)run(*agent);
    const std::string a = toolMessage(*provider, "a");
    CHECK(a.rfind("not json\n[transform failed: invalid_input: ", 0) == 0);
    CHECK(a.find("showing the whole result instead]") != std::string::npos);
    CHECK(
        toolMessage(*provider, "b") ==
        "not json\n[transform failed: invalid_expression: _transform must be a non-empty string holding a jq "
        "expression \u2014 showing the whole result instead]");
}

TEST_CASE("With codeTransform off, _transform is an ordinary argument", "[agent][memory][transform]") {
    ToolsConfig config;
    auto seen = std::make_shared<std::vector<json>>();
    config.tools.push_back(fixedTool("plain", "[1,2,3]", seen));
    config.resultCompression.codeTransform = false;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("plain", json{{"_transform", ".[0]"}}, "c1"));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create().withProvider(provider).withTools(config).build();
    REQUIRE(agent.has_value());
    (void)run(*agent);
    CHECK(toolMessage(*provider, "c1") == "[1,2,3]");
    REQUIRE(seen->size() == 1);
    CHECK(seen->front().contains("_transform"));
}

TEST_CASE("recall lists, searches, writes notes and pages long values", "[agent][memory][recall]") {
    std::string log;
    for (int i = 0; i < 3000; ++i) {
        log += "line " + std::to_string(i) + (i == 2500 ? " needle here" : "") + "\n";
    }
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("logs", json::object(), "c1"));
    provider->then(ScriptedTurn::toolCalls({
        ToolCall{"r1", "recall", json{{"action", "list"}}},
        ToolCall{"r2", "recall", json{{"action", "search"}, {"query", "NEEDLE"}}},
        ToolCall{"r3", "recall", json{{"action", "write"}, {"key", "plan"}, {"value", "check line 2500"}}},
        ToolCall{"r4", "recall", json{{"key", "_tool_result_1"}}},
        ToolCall{"r5", "recall",
                 json{{"key", "_tool_result_1"}, {"full", true}, {"offset", 10}, {"limit", 20}}},
        ToolCall{"r6", "recall", json{{"key", "nope"}}},
        ToolCall{"r7", "recall", json{{"action", "search"}}},
    }));
    provider->then(ScriptedTurn::toolCall("recall", json{{"key", "plan"}}, "r8"));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create().withProvider(provider).withTools({fixedTool("logs", log, nullptr)}).build();
    REQUIRE(agent.has_value());
    const RunResult result = run(*agent);
    REQUIRE(result.success());

    const auto& calls = result.toolCalls;
    REQUIRE(calls.size() == 9);
    CHECK(*calls[1].outcome == "Working memory: 1 entry, " + std::to_string(log.size()) +
                                   " bytes\n_tool_result_1 | " + std::to_string(log.size()) +
                                   " bytes | from logs");
    CHECK(calls[2].outcome->find("Working memory: 1 match for \"NEEDLE\"\n_tool_result_1: ") == 0);
    CHECK(calls[2].outcome->find("line 2500 needle here") != std::string::npos);
    CHECK(*calls[3].outcome == "stored 15 bytes under \"plan\"");
    // A long value is previewed unless asked for in full.
    CHECK(calls[4].outcome->rfind("[STORED: _tool_result_1 | logs]\nType: Text(3000 lines", 0) == 0);
    CHECK(calls[4].outcome->find("\"full\": true} returns the whole value") != std::string::npos);
    CHECK(*calls[5].outcome ==
          log.substr(10, 20) + "\n[recall: characters 10-30 of " + std::to_string(log.size()) +
              "; next page: recall({\"key\": \"_tool_result_1\", \"full\": true, \"offset\": 30}]");
    REQUIRE_FALSE(calls[6].succeeded());
    CHECK(calls[6].outcome.error().message.find("not_found") == 0);
    REQUIRE_FALSE(calls[7].succeeded());
    CHECK(calls[7].outcome.error().code == reagent::tools::ToolErrc::invalid_arguments);
    CHECK(*calls[8].outcome == "check line 2500");
    CHECK(*agent->workingMemory().find("plan") == "check line 2500");
}

TEST_CASE("Working memory evicts the oldest results and recall says so", "[agent][memory][recall]") {
    ToolsConfig config;
    config.tools.push_back(fixedTool("big", std::string(3000, 'a'), nullptr));
    config.workingMemory.byteBudget = 7000;
    auto provider = std::make_shared<ScriptedProvider>();
    for (int i = 0; i < 3; ++i) {
        provider->then(ScriptedTurn::toolCall("big", json::object(), "b" + std::to_string(i)));
    }
    provider->then(ScriptedTurn::toolCall("recall", json{{"key", "_tool_result_1"}}, "r"));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create().withProvider(provider).withTools(config).build();
    REQUIRE(agent.has_value());
    const RunResult result = run(*agent);
    CHECK(result.toolCalls[2].memoryKey == "_tool_result_3");
    CHECK(agent->workingMemory().find("_tool_result_1") == nullptr);
    CHECK(agent->workingMemory().find("_tool_result_3") != nullptr);
    REQUIRE_FALSE(result.toolCalls[3].succeeded());
    CHECK(result.toolCalls[3].outcome.error().message.find("evicted") != std::string::npos);
}

TEST_CASE("recall is offered with tools and can be turned off", "[agent][memory][recall]") {
    auto provider = std::make_shared<ScriptedProvider>();
    auto withRecall =
        reagent::Agent::create().withProvider(provider).withTools({fixedTool("t", "x", nullptr)}).build();
    REQUIRE(withRecall.has_value());
    std::vector<std::string> names;
    for (const auto& spec : withRecall->toolSpecs()) {
        names.push_back(spec.name);
    }
    CHECK(names ==
          std::vector<std::string>{"recall", "http-get", "web-search", "crypto-price", "code-execute", "t"});
    CHECK_FALSE(withRecall->unregisterTool("recall"));
    CHECK(withRecall->config().provider == provider);

    ToolsConfig off;
    off.tools.push_back(fixedTool("t", "x", nullptr));
    off.recall = false;
    auto without = Agent::create().withProvider(provider).withTools(off).build();
    REQUIRE(without.has_value());
    REQUIRE(without->toolSpecs().size() == 1);

    auto none = Agent::create().withProvider(provider).build();
    REQUIRE(none.has_value());
    CHECK(none->toolSpecs().empty());
}

TEST_CASE("withMemory logs each tool result and a later agent recalls it", "[agent][memory][episodic]") {
    const TempDir dir;
    MemoryConfig memory;
    memory.path = (dir.path / "episodes.db").string();
    {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::toolCall("list_commits", json{{"repo", "acme/reagent"}}, "c1"));
        provider->then(ScriptedTurn::text("done"));
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTools({fixedTool("list_commits", commits().dump(), nullptr)})
                         .withMemory(memory)
                         .build();
        REQUIRE(agent.has_value());
        (void)run(*agent);
        auto episodes = agent->episodicMemory()->recent(10).value();
        REQUIRE(episodes.size() == 1);
        CHECK(episodes[0].action == "tool_call");
        CHECK(episodes[0].tool == "list_commits");
        CHECK(episodes[0].input == R"({"repo":"acme/reagent"})");
        CHECK(episodes[0].result == commits().dump());  // the full result, not the preview
    }
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("recall", json{{"action", "search"}, {"query", "change 17"}}, "s"));
    provider->then(ScriptedTurn::toolCall(
        "recall", json{{"episode", 1}, {"full", true}, {"_transform", "length"}}, "e"));
    provider->then(ScriptedTurn::text("done"));
    auto later = Agent::create()
                     .withProvider(provider)
                     .withTools({fixedTool("other", "x", nullptr)})
                     .withMemory(memory)
                     .build();
    REQUIRE(later.has_value());
    const RunResult result = run(*later);
    REQUIRE(result.success());
    const std::string found = *result.toolCalls[0].outcome;
    CHECK(found.find("Working memory: 0 matches") == 0);
    CHECK(found.find("Episodic memory: 1 match, newest first\n#1 ") != std::string::npos);
    CHECK(found.find(" list_commits: ") != std::string::npos);
    CHECK(found.find("change 17") != std::string::npos);
    CHECK(*result.toolCalls[1].outcome == "30");
    // recall calls are not logged themselves.
    CHECK(later->episodicMemory()->count().value() == 1);
}

TEST_CASE("withMemory reports an unusable file at build and writes nothing unless enabled",
          "[agent][memory][episodic]") {
    const TempDir dir;
    MemoryConfig memory;
    memory.path = (dir.path / "missing-dir" / "episodes.db").string();
    auto provider = std::make_shared<ScriptedProvider>();
    auto bad = Agent::create()
                   .withProvider(provider)
                   .withTools({fixedTool("t", "x", nullptr)})
                   .withMemory(memory)
                   .build();
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message.find("memory: could not open the file") != std::string::npos);
    CHECK(bad.error().message.find("missing-dir") != std::string::npos);

    // Without withMemory, a run with tools creates no file anywhere near the working directory.
    const auto previous = std::filesystem::current_path();
    std::filesystem::current_path(dir.path);
    provider->then(ScriptedTurn::toolCall("t", json::object(), "c1"));
    provider->then(ScriptedTurn::text("done"));
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools({fixedTool("t", std::string(2000, 'y'), nullptr)})
                     .build();
    REQUIRE(agent.has_value());
    (void)run(*agent);
    std::filesystem::current_path(previous);
    CHECK(std::filesystem::is_empty(dir.path));
    CHECK(agent->episodicMemory() == nullptr);
}

TEST_CASE("Several agents in one process share one memory file", "[agent][memory][episodic]") {
    const TempDir dir;
    MemoryConfig memory;
    memory.path = (dir.path / "shared.db").string();
    std::vector<Agent> agents;
    std::vector<std::shared_ptr<ScriptedProvider>> providers;
    for (int i = 0; i < 4; ++i) {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::toolCall("t", json{{"repo", "r" + std::to_string(i)}}, "c"));
        provider->then(ScriptedTurn::text("done"));
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTools({fixedTool("t", "result " + std::to_string(i), nullptr)})
                         .withMemory(memory)
                         .build();
        REQUIRE(agent.has_value());
        agents.push_back(*agent);
        providers.push_back(provider);
    }
    // Concurrent runs on one io_context.
    boost::asio::io_context io;
    int finished = 0;
    for (const Agent& agent : agents) {
        boost::asio::co_spawn(io, agent.run("go"),
                              [&](std::exception_ptr, RunResult r) { finished += r.success(); });
    }
    io.run();
    CHECK(finished == 4);
    auto store = reagent::memory::EpisodicStore::open(memory.path);
    REQUIRE(store.has_value());
    CHECK(store->count().value() == 4);
    CHECK(store->search("result 3", 10).value().size() == 1);
}
