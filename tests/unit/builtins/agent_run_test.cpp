// An agent with the file tools, driven by a scripted model, reads, edits and greps a workspace end to end.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>

#include "reagent/builtins/file_tools.hpp"
#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;
using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::RunResult;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;

namespace {

reagent::Task<bool> approve(reagent::tools::ToolCallRequest, reagent::tools::ToolDefinition) {
    co_return true;
}

}  // namespace

TEST_CASE("a scripted agent reads edits writes and greps files through the file tools", "[builtins][agent]") {
    WorkspaceFixture ws;
    ws.file("src/config.py", "RETRIES = 3\nTIMEOUT = 10\n");
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("file-read", {{"path", "src/config.py"}}))
        .then(ScriptedTurn::toolCall(
                  "file-edit",
                  {{"path", "src/config.py"}, {"searchCode", "RETRIES = 3"}, {"replaceCode", "RETRIES = 5"}})
                  .expectLastMessageContains("TIMEOUT = 10"))
        .then(
            ScriptedTurn::toolCall("file-write", {{"path", "NOTES.md"}, {"content", "RETRIES raised to 5\n"}})
                .expectLastMessageContains("replaced 1 occurrence"))
        .then(ScriptedTurn::toolCall("grep", {{"pattern", "RETRIES"}, {"output_mode", "content"}}))
        .then(ScriptedTurn::toolCall("file-read", {{"path", "../outside/secret.txt"}})
                  .expectLastMessageContains("src/config.py:1:RETRIES = 5"))
        .then(ScriptedTurn::text("RETRIES is now 5").expectLastMessageContains("outside_workspace"));

    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools(fileTools(ws.workspace))
                     .withApprovalHandler(&approve)
                     .build();
    REQUIRE(agent);
    const RunResult result = ws.run(agent->run("Raise RETRIES to 5 and note it."));
    INFO(result.errorMessage);
    CHECK(result.output == "RETRIES is now 5");
    REQUIRE(result.toolCalls.size() == 5);
    CHECK(result.toolCalls[0].succeeded());
    CHECK(result.toolCalls[1].succeeded());
    // The checkpoint id of a mutating call is in its artifacts, for the system to roll back.
    CHECK(result.toolCalls[1].artifacts.contains("checkpointId"));
    CHECK(result.toolCalls[2].succeeded());
    CHECK(*result.toolCalls[3].outcome == "NOTES.md:1:RETRIES raised to 5\nsrc/config.py:1:RETRIES = 5");
    CHECK_FALSE(result.toolCalls[4].succeeded());
    CHECK(WorkspaceFixture::readFile(ws.root / "src/config.py") == "RETRIES = 5\nTIMEOUT = 10\n");
    CHECK(WorkspaceFixture::readFile(ws.root / "NOTES.md") == "RETRIES raised to 5\n");

    SECTION("the edit rolls back from its checkpoint") {
        const auto id = result.toolCalls[1].artifacts["checkpointId"].get<std::string>();
        auto rolled = ws.run(ws.workspace->rollback(id));
        REQUIRE(rolled);
        CHECK(WorkspaceFixture::readFile(ws.root / "src/config.py") == "RETRIES = 3\nTIMEOUT = 10\n");
        CHECK_FALSE(fs::exists(ws.root / "NOTES.md"));
    }
}

TEST_CASE("without an approval handler the agent's file-write is refused", "[builtins][agent][security]") {
    WorkspaceFixture ws;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("file-write", {{"path", "x.txt"}, {"content", "x"}}))
        .then(ScriptedTurn::text("could not").expectLastMessageContains("approval_unavailable"));
    auto agent = Agent::create().withProvider(provider).withTools(fileTools(ws.workspace)).build();
    REQUIRE(agent);
    const RunResult result = ws.run(agent->run("write x"));
    CHECK(result.output == "could not");
    CHECK_FALSE(fs::exists(ws.root / "x.txt"));
}
