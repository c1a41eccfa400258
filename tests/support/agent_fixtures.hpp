#pragma once
/// \file
/// \brief Small builders the agent tests share: a tool configuration without the built-in tools, and a
/// model's tool call.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "reagent/agent/agent_config.hpp"
#include "reagent/llm/message.hpp"

namespace reagent::test {

/// `withTools(noBuiltinTools())`: tools enabled, none of the built-in ones (only the test's own).
inline agent::ToolsConfig noBuiltinTools() {
    agent::ToolsConfig none;
    return none;
}

/// A tool call as a model's reply carries it.
inline llm::ToolCall toolCall(std::string id, std::string name, nlohmann::json arguments) {
    llm::ToolCall made;
    made.id = std::move(id);
    made.name = std::move(name);
    made.arguments = std::move(arguments);
    return made;
}

}  // namespace reagent::test
