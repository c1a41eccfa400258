// The built-in tools by name (builtinTools) and through AgentBuilder::withTools(): defaults, include,
// read-only mode, errors; task-complete and context-status in a run; checkpoints gathered on the run
// result, rolled back through the agent with the conversation before them.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;
using nlohmann::json;
using reagent::ToolsConfig;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;

namespace {

std::vector<std::string> namesOf(const std::vector<reagent::tools::Tool>& tools) {
    std::vector<std::string> names;
    for (const auto& tool : tools) {
        names.push_back(tool.definition.name);
    }
    return names;
}

std::vector<std::string> offered(const Agent& agent) {
    std::vector<std::string> names;
    for (const auto& spec : agent.toolSpecs()) {
        names.push_back(spec.name);
    }
    return names;
}

reagent::Task<bool> approve(reagent::tools::ToolCallRequest, reagent::tools::ToolDefinition) {
    co_return true;
}

}  // namespace

TEST_CASE("the default built-in tools depend on the workspace and read-only mode", "[builtins][selection]") {
    const auto bare = builtinTools(BuiltinSelection{});
    REQUIRE(bare);
    CHECK(namesOf(bare->tools) ==
          std::vector<std::string>{"http-get", "web-search", "crypto-price", "code-execute"});
    CHECK_FALSE(bare->rollback);

    WorkspaceFixture ws;
    BuiltinSelection selection;
    selection.workspace = ws.root.string();
    const auto all = builtinTools(selection);
    REQUIRE(all);
    CHECK(namesOf(all->tools) == std::vector<std::string>{"http-get", "web-search", "crypto-price",
                                                          "code-execute", "file-read", "ls", "glob", "grep",
                                                          "file-write", "file-edit", "shell-execute",
                                                          "git-cli", "gh-cli", "gws-cli"});
    CHECK(all->rollback);

    selection.readOnly = true;
    const auto readOnly = builtinTools(selection);
    REQUIRE(readOnly);
    CHECK(namesOf(readOnly->tools) == std::vector<std::string>{"http-get", "web-search", "crypto-price",
                                                               "code-execute", "file-read", "ls", "glob",
                                                               "grep"});
}

TEST_CASE("include selects built-in tools and refuses what it cannot serve", "[builtins][selection]") {
    BuiltinSelection selection;
    selection.include = std::vector<std::string>{"crypto-price", "crypto-price", "http-get"};
    const auto chosen = builtinTools(selection);
    REQUIRE(chosen);
    CHECK(namesOf(chosen->tools) == std::vector<std::string>{"crypto-price", "http-get"});

    selection.include = std::vector<std::string>{};
    const auto none = builtinTools(selection);
    REQUIRE(none);
    CHECK(none->tools.empty());

    selection.include = std::vector<std::string>{"teleport"};
    const auto unknown = builtinTools(selection);
    REQUIRE_FALSE(unknown);
    CHECK_THAT(unknown.error().message, Catch::Contains("'teleport' is not a built-in tool") &&
                                            Catch::Contains("file-read") && Catch::Contains("gws-cli"));

    selection.include = std::vector<std::string>{"file-read"};
    const auto noWorkspace = builtinTools(selection);
    REQUIRE_FALSE(noWorkspace);
    CHECK_THAT(noWorkspace.error().message, Catch::Contains("file-read") && Catch::Contains("workspace"));

    WorkspaceFixture ws;
    selection.workspace = ws.root.string();
    selection.readOnly = true;
    selection.include = std::vector<std::string>{"file-write"};
    const auto mutating = builtinTools(selection);
    REQUIRE_FALSE(mutating);
    CHECK_THAT(mutating.error().message, Catch::Contains("read-only"));

    selection.readOnly = false;
    selection.workspace = (ws.temp.path / "missing").string();
    const auto missing = builtinTools(selection);
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error().message, Catch::Contains("workspace"));
}

TEST_CASE("withTools registers the built-in tools and include narrows them", "[builtins][agent][selection]") {
    auto provider = std::make_shared<ScriptedProvider>();
    auto defaults = reagent::Agent::create().withProvider(provider).withTools().build();
    REQUIRE(defaults);
    CHECK(offered(*defaults) ==
          std::vector<std::string>{"recall", "http-get", "web-search", "crypto-price", "code-execute"});

    ToolsConfig narrow;
    narrow.include = std::vector<std::string>{"crypto-price"};
    auto crypto = reagent::Agent::create().withProvider(provider).withTools(narrow).build();
    REQUIRE(crypto);
    CHECK(offered(*crypto) == std::vector<std::string>{"recall", "crypto-price"});

    ToolsConfig wrong;
    wrong.include = std::vector<std::string>{"file-read"};
    auto refused = reagent::Agent::create().withProvider(provider).withTools(wrong).build();
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_config);
    CHECK_THAT(refused.error().message, Catch::Contains("built-in tools") && Catch::Contains("workspace"));

    // A user tool named like a built-in one replaces it.
    ToolsConfig own;
    own.include = std::vector<std::string>{"http-get"};
    auto replacement = reagent::tools::ToolBuilder::create("http-get")
                           .description("my own fetcher")
                           .declarationOnly()
                           .build();
    REQUIRE(replacement);
    own.tools.push_back(*replacement);
    auto replaced = reagent::Agent::create().withProvider(provider).withTools(own).build();
    REQUIRE(replaced);
    const auto definitions = replaced->toolDefinitions();
    REQUIRE(definitions.size() == 2);
    CHECK(definitions[1].description == "my own fetcher");

    // Built-ins come with tools: an agent without withTools() has none.
    auto plain = reagent::Agent::create().withProvider(provider).build();
    REQUIRE(plain);
    CHECK(plain->toolSpecs().empty());
}

TEST_CASE("task-complete ends the run with its summary", "[agent][meta]") {
    auto provider = std::make_shared<ScriptedProvider>();
    std::vector<reagent::llm::ToolCall> calls(3);
    calls[0].id = "c1";
    calls[0].name = "context-status";
    calls[1].id = "c2";
    calls[1].name = "task-complete";
    calls[1].arguments = {{"summary", "all done"}};
    calls[2].id = "c3";
    calls[2].name = "recall";
    calls[2].arguments = {{"action", "list"}};
    provider->then(ScriptedTurn::toolCalls(calls));
    ToolsConfig config;
    config.include = std::vector<std::string>{};
    auto agent = reagent::Agent::create().withProvider(provider).withTools(config).withReasoning().build();
    REQUIRE(agent);
    const RunResult result = reagent::test::runCoro(agent->run("finish"));
    INFO(result.errorMessage);
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::task_complete);
    CHECK(toString(result.terminatedBy) == "task_complete");
    CHECK(result.output == "all done");
    REQUIRE(result.toolCalls.size() == 3);
    CHECK(result.toolCalls[0].succeeded());
    // The call after task-complete is not run, and says why.
    REQUIRE_FALSE(result.toolCalls[2].succeeded());
    CHECK(result.toolCalls[2].outcome.error().code == reagent::tools::ToolErrc::not_run);
    CHECK_THAT(result.toolCalls[2].outcome.error().message, Catch::Contains("after task-complete"));

    SECTION("the meta-tools can be turned off") {
        reagent::agent::MetaTools off;
        off.taskComplete = false;
        off.contextStatus = false;
        auto bare =
            reagent::Agent::create().withProvider(provider).withReasoning().withMetaTools(off).build();
        REQUIRE(bare);
        CHECK(offered(*bare) == std::vector<std::string>{"final-answer"});
    }
}

TEST_CASE("context-status reports the run's budget tools memory keys and tokens", "[agent][meta]") {
    auto provider = std::make_shared<ScriptedProvider>();
    auto big =
        reagent::tools::ToolBuilder::create("big")
            .description("a large result")
            .handler([](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                co_return std::string(5000, 'x');
            })
            .build();
    REQUIRE(big);
    provider->then(ScriptedTurn::toolCall("big", json::object()).usage({100, 10}))
        .then(ScriptedTurn::toolCall("context-status", json::object()).usage({200, 20}))
        .then(ScriptedTurn::text("ok").expectLastMessageContains("\"maxIterations\": 7"));
    ToolsConfig config;
    config.include = std::vector<std::string>{};
    config.tools.push_back(*big);
    auto agent = reagent::Agent::create()
                     .withProvider(provider)
                     .withTools(config)
                     .withReasoning()
                     .withMaxIterations(7)
                     .build();
    REQUIRE(agent);
    const RunResult result = reagent::test::runCoro(agent->run("status?"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    REQUIRE(result.toolCalls.size() == 2);
    const json status = json::parse(*result.toolCalls[1].outcome);
    CHECK(status["iteration"] == 2);
    CHECK(status["maxIterations"] == 7);
    CHECK(status["iterationsLeft"] == 5);
    CHECK(status["toolsUsed"] == json{{"big", 1}});
    CHECK(status["pending"] == json{"context-status"});
    CHECK(status["storedKeys"] == json{"_tool_result_1"});
    CHECK(status["tokens"]["total"] == 330);
}

TEST_CASE("checkpoints are gathered on the run and roll back files and conversation",
          "[builtins][agent][rollback]") {
    WorkspaceFixture ws;
    ws.file("a.txt", "one\n");
    auto provider = std::make_shared<ScriptedProvider>();
    provider
        ->then(ScriptedTurn::toolCall("file-edit",
                                      {{"path", "a.txt"}, {"searchCode", "one"}, {"replaceCode", "two"}}))
        .then(ScriptedTurn::toolCall("file-write", {{"path", "b.txt"}, {"content", "new\n"}}))
        .then(ScriptedTurn::text("edited"));
    ToolsConfig config;
    config.workspace = ws.root.string();
    config.include = std::vector<std::string>{"file-edit", "file-write"};
    auto agent = reagent::Agent::create()
                     .withProvider(provider)
                     .withTools(config)
                     .withApprovalHandler(&approve)
                     .build();
    REQUIRE(agent);
    const RunResult result = ws.run(agent->run("edit"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    REQUIRE(result.checkpoints.size() == 2);
    CHECK(result.checkpoints[0].toolName == "file-edit");
    CHECK(result.checkpoints[0].toolCallId == result.toolCalls[0].id);
    CHECK(result.checkpoints[1].toolName == "file-write");
    CHECK(result.checkpoints[1].tripIndex == 1);
    CHECK(WorkspaceFixture::readFile(ws.root / "a.txt") == "two\n");

    // The conversation before the edit: the user's prompt alone (no system prompt was set).
    const auto before = result.messagesBefore(result.checkpoints[0].id);
    REQUIRE(before);
    REQUIRE(before->size() == 1);
    CHECK(before->back().role == reagent::llm::Role::user);
    const auto beforeWrite = result.messagesBefore(result.checkpoints[1].id);
    REQUIRE(beforeWrite);
    CHECK(beforeWrite->size() == 3);  // prompt, the edit's call, its result
    CHECK_FALSE(result.messagesBefore("no-such-checkpoint"));

    const auto rolled = ws.run(agent->rollback(result.checkpoints[0].id));
    REQUIRE(rolled);
    CHECK_THAT(*rolled, Catch::Contains("restored checkpoint"));
    CHECK(WorkspaceFixture::readFile(ws.root / "a.txt") == "one\n");
    CHECK_FALSE(fs::exists(ws.root / "b.txt"));

    const auto unknown = ws.run(agent->rollback("0000000"));
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == AgentErrc::rollback_failed);

    auto noWorkspace = reagent::Agent::create().withProvider(provider).withTools().build();
    REQUIRE(noWorkspace);
    const auto refused = ws.run(noWorkspace->rollback("abc"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_config);
}

TEST_CASE("a scripted agent with withTools reads edits greps runs code and rolls the change back",
          "[builtins][agent][e2e]") {
    WorkspaceFixture ws;
    ws.file("src/app.cfg", "mode = slow\n");
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("file-read", {{"path", "src/app.cfg"}}))
        .then(ScriptedTurn::toolCall(
                  "file-edit", {{"path", "src/app.cfg"}, {"searchCode", "slow"}, {"replaceCode", "fast"}})
                  .expectLastMessageContains("mode = slow"))
        .then(ScriptedTurn::toolCall("grep", {{"pattern", "mode"}, {"output_mode", "content"}})
                  .expectLastMessageContains("replaced 1 occurrence"))
        .then(ScriptedTurn::toolCall("code-execute", {{"language", "sh"}, {"code", "echo $((6 * 7))"}})
                  .expectLastMessageContains("src/app.cfg:1:mode = fast"))
        .then(ScriptedTurn::toolCall("task-complete", {{"summary", "mode is fast"}})
                  .expectLastMessageContains("42"));
    ToolsConfig config;
    config.workspace = ws.root.string();
    // code-execute asks for approval.
    auto agent = reagent::Agent::create()
                     .withProvider(provider)
                     .withTools(config)
                     .withReasoning()
                     .withApprovalHandler(&approve)
                     .build();
    REQUIRE(agent);
    const RunResult result = ws.run(agent->run("make it fast"));
    INFO(result.errorMessage);
    REQUIRE(result.terminatedBy == TerminatedBy::task_complete);
    CHECK(result.output == "mode is fast");
    CHECK(WorkspaceFixture::readFile(ws.root / "src/app.cfg") == "mode = fast\n");
    REQUIRE(result.checkpoints.size() == 1);

    const auto rolled = ws.run(agent->rollback(result.checkpoints[0].id));
    REQUIRE(rolled);
    CHECK(WorkspaceFixture::readFile(ws.root / "src/app.cfg") == "mode = slow\n");
    // The conversation before the edit ends with the file's content, read by the first call.
    const auto before = result.messagesBefore(result.checkpoints[0].id);
    REQUIRE(before);
    CHECK(before->back().role == reagent::llm::Role::tool);
}

TEST_CASE("shell-execute's checkpoint is gathered on the run like the file tools'",
          "[builtins][agent][rollback]") {
    WorkspaceFixture ws;
    ws.file("a.txt", "one\n");
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("shell-execute", {{"command", "echo two > a.txt"}}))
        .then(ScriptedTurn::text("changed"));
    ToolsConfig config;
    config.workspace = ws.root.string();
    config.include = std::vector<std::string>{"shell-execute"};
    auto agent = reagent::Agent::create()
                     .withProvider(provider)
                     .withTools(config)
                     .withApprovalHandler(&approve)
                     .build();
    REQUIRE(agent);
    const RunResult result = ws.run(agent->run("change a"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    CHECK(WorkspaceFixture::readFile(ws.root / "a.txt") == "two\n");
    REQUIRE(result.checkpoints.size() == 1);
    CHECK(result.checkpoints[0].toolName == "shell-execute");
    REQUIRE(ws.run(agent->rollback(result.checkpoints[0].id)));
    CHECK(WorkspaceFixture::readFile(ws.root / "a.txt") == "one\n");
}
