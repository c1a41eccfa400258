#pragma once
// A workspace (see workspace_fixture.hpp) with the agent-tools facade on its root, and helpers to call a
// tool and read its error envelope.

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "reagent/builtins/agent_tools.hpp"
#include "workspace_fixture.hpp"

namespace reagent::builtins::test {

struct ToolsFixture : WorkspaceFixture {
    std::shared_ptr<AgentTools> tools;

    explicit ToolsFixture(AgentToolsConfig config = {}) {
        config.workspaceRoot = root.string();
        auto created = createAgentTools(std::move(config));
        REQUIRE(created);
        tools = *created;
    }

    /// Calls `name` with `args` and requires a success; returns its text.
    std::string ok(const std::string& name, const nlohmann::json& args) const {
        const DispatchResult result = tools->callToolBlocking(name, args.dump());
        INFO(result.text);
        REQUIRE_FALSE(result.isError);
        return result.text;
    }

    /// Calls `name` with `args` and requires a failure; returns the envelope's `error` object.
    nlohmann::json error(const std::string& name, const nlohmann::json& args) const {
        return errorOf(tools->callToolBlocking(name, args.dump()));
    }

    static nlohmann::json errorOf(const DispatchResult& result) {
        INFO(result.text);
        REQUIRE(result.isError);
        const auto envelope = nlohmann::json::parse(result.text);
        REQUIRE(envelope.contains("error"));
        return envelope["error"];
    }
};

/// The envelope's code.
inline std::string codeOf(const nlohmann::json& error) {
    return error.at("code").get<std::string>();
}

/// The envelope's message.
inline std::string messageOf(const nlohmann::json& error) {
    return error.at("message").get<std::string>();
}

}  // namespace reagent::builtins::test
