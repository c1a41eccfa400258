// The hook behind AgentBuilder::withRemoteAgent (each test case runs in its own process under CTest).

#include <catch2/catch.hpp>

#include "reagent/a2a/remote_agent_tool.hpp"
#include "reagent/tools/remote_agent_catalog.hpp"

using namespace reagent;

TEST_CASE("without reagent::a2a enabled, a remote agent tool says how to enable it", "[a2a][hook]") {
    tools::RemoteAgentSpec spec;
    spec.name = "helper";
    spec.url = "http://127.0.0.1:1";
    auto tool = tools::makeRemoteAgentTool(spec);
    REQUIRE_FALSE(tool);
    CHECK(tool.error().code == tools::ToolErrc::invalid_definition);
    CHECK(tool.error().message.find("a2a::enableRemoteAgents()") != std::string::npos);
}

TEST_CASE("enableRemoteAgents makes remote agent tools, with the spec's timeout", "[a2a][hook]") {
    CHECK(a2a::enableRemoteAgents());
    tools::RemoteAgentSpec spec;
    spec.name = "helper";
    spec.url = "http://127.0.0.1:1";
    spec.headers.emplace_back("Authorization", "Bearer x");
    spec.timeout = std::chrono::milliseconds(1500);
    auto tool = tools::makeRemoteAgentTool(spec);
    REQUIRE(tool);
    CHECK(tool->definition.name == "helper");
    CHECK(tool->definition.timeout == std::chrono::milliseconds(1500));
    CHECK(tool->definition.inputSchema["required"] == nlohmann::json::array({"message"}));
    CHECK(tool->init);
    spec.name = "not a valid name!";
    CHECK_FALSE(tools::makeRemoteAgentTool(spec));
}
