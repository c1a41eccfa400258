// Tools on demand against a real MCP server of 200 tools (tests/peers/mcp/many_tools_server.mjs, the
// official SDK): the model finds the tool it needs and calls it, and each request carries a few tools
// instead of 200. Prints the request sizes with and without tool search (docs/tools.md quotes them).

#include <catch2/catch.hpp>
#include <cstdio>
#include <memory>

#include "mcp_peers.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/umbrella/agent_builder.hpp"
#include "run_coro.hpp"

namespace agent = reagent::agent;
namespace llm = reagent::llm;
namespace mcp = reagent::mcp;
using nlohmann::json;
using reagent::Task;
using reagent::test::runCoro;

namespace {

mcp::ServerConfig manyTools() {
    mcp::ServerConfig config;
    config.name = "many";
    config.command = REAGENT_NODE;
    config.args = {std::string(REAGENT_MCP_PEERS_DIR) + "/many_tools_server.mjs"};
    return config;
}

// The characters of a request's tool declarations as an API receives them (name, description, schema).
std::size_t declaredCharacters(const llm::ModelRequest& request) {
    std::size_t characters = 0;
    for (const llm::ToolSpec& spec : request.tools) {
        characters += spec.name.size() + spec.description.size() + spec.inputSchema.dump().size();
    }
    return characters;
}

struct Measured {
    agent::RunResult result;
    std::vector<llm::ModelRequest> requests;
};

Measured runWith(agent::ToolSearch::Mode mode, const std::function<void(llm::ScriptedProvider&)>& script) {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    script(*provider);
    agent::ToolSearch search;
    search.mode = mode;
    Measured measured;
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create()
                           .withProvider(provider)
                           .withMCP(manyTools())
                           .withToolSearch(search)
                           .withContextWindow(1'000'000);  // the run counts each request's prompt
        auto built = co_await builder.buildAsync();
        REQUIRE(built);
        CHECK(built->toolDefinitions().size() >= 200);
        measured.result = co_await built->run("Open a Jira issue titled 'Login fails'");
        co_await built->dispose();
    }());
    measured.requests = provider->requests();
    return measured;
}

}  // namespace

TEST_CASE("with 200 MCP tools the model finds the one it needs and requests stay small", "[mcp][find]") {
    const auto onDemand = runWith(agent::ToolSearch::Mode::automatic, [](llm::ScriptedProvider& provider) {
        provider
            .then(llm::ScriptedTurn::toolCall("find", {{"query", "create jira issue"}, {"kinds", {"tools"}}}))
            .then(llm::ScriptedTurn::toolCall("many/jira_create", {{"title", "Login fails"}}))
            .then(llm::ScriptedTurn::text("opened"));
    });
    REQUIRE(onDemand.result.success());
    const auto& found = onDemand.result.toolCalls.at(0);
    REQUIRE(found.succeeded());
    // The right tool ranks first among 200 by its name's and description's words.
    CHECK(found.structured.at("tools").at(0).at("name") == "many/jira_create");
    const auto& called = onDemand.result.toolCalls.at(1);
    REQUIRE(called.succeeded());
    CHECK(json::parse(*called.outcome).at("args").at("title") == "Login fails");
    REQUIRE(onDemand.requests.size() == 3);
    CHECK(onDemand.requests[0].tools.size() == 1);  // find (no withTools: no recall)
    CHECK(onDemand.requests[2].tools.size() <= 1 + 5);

    const auto everyTool = runWith(agent::ToolSearch::Mode::off, [](llm::ScriptedProvider& provider) {
        provider.then(llm::ScriptedTurn::toolCall("many/jira_create", {{"title", "Login fails"}}))
            .then(llm::ScriptedTurn::text("opened"));
    });
    REQUIRE(everyTool.result.success());
    REQUIRE(everyTool.requests.at(0).tools.size() == 200);

    const std::size_t fullCharacters = declaredCharacters(everyTool.requests[0]);
    const std::size_t firstCharacters = declaredCharacters(onDemand.requests[0]);
    const std::size_t lastCharacters = declaredCharacters(onDemand.requests[2]);
    std::printf(
        "tool declarations per request with 200 MCP tools: every tool %zu characters; tools on demand %zu "
        "(first request), %zu (after find)\n"
        "estimated prompt tokens of the last request: every tool %lld, tools on demand %lld (%.1fx fewer)\n",
        fullCharacters, firstCharacters, lastCharacters,
        static_cast<long long>(everyTool.result.context.promptTokens),
        static_cast<long long>(onDemand.result.context.promptTokens),
        static_cast<double>(everyTool.result.context.promptTokens) /
            static_cast<double>(std::max<std::int64_t>(1, onDemand.result.context.promptTokens)));
    CHECK(lastCharacters * 10 < fullCharacters);
    CHECK(onDemand.result.context.promptTokens * 5 < everyTool.result.context.promptTokens);
}
