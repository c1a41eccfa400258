// A remote agent described by a spec (what reagent::AgentBuilder::withRemoteAgent passes).

#include <catch2/catch.hpp>

#include "reagent/a2a/remote_agent_tool.hpp"

using namespace reagent;

TEST_CASE("remoteAgentTool(spec) makes the tool with the spec's timeout, and refuses a bad name",
          "[a2a][spec]") {
    a2a::RemoteAgentSpec spec;
    spec.name = "helper";
    spec.url = "http://127.0.0.1:1";
    spec.headers.emplace_back("Authorization", "Bearer x");
    spec.timeout = std::chrono::milliseconds(1500);
    auto tool = a2a::remoteAgentTool(spec);
    REQUIRE(tool);
    CHECK(tool->definition.name == "helper");
    CHECK(tool->definition.timeout == std::chrono::milliseconds(1500));
    CHECK(tool->definition.inputSchema["required"] == nlohmann::json::array({"message"}));
    CHECK(tool->init);
    spec.name = "not a valid name!";
    auto refused = a2a::remoteAgentTool(spec);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == tools::ToolErrc::invalid_definition);
}
