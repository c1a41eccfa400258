#pragma once
/// \file
/// \brief Configuration structs assembled by `AgentBuilder`.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/llm/provider.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_executor.hpp"

namespace reagent::agent {

/// \brief `withTools(...)`: the tools to register and how to run them.
struct ToolsConfig {
    std::vector<tools::Tool> tools;
    tools::ExecutionPolicy execution;
};

/// \brief `withReasoning(...)`: the ReAct loop with the `final-answer` meta-tool.
struct ReasoningConfig {
    /// Model calls allowed per run. Invariant: >= 1. Default 10.
    int maxIterations = 10;
};

/// \brief Everything an agent is made of; the builder fills it in.
struct AgentConfig {
    /// Shown in logs and the CLI. Default "agent".
    std::string name = "agent";
    std::shared_ptr<llm::Provider> provider;
    /// Prepended as the system message; empty for none (with reasoning, a ReAct guide is added).
    std::string systemPrompt;
    /// Default 10.
    int maxIterations = 10;
    /// Whether tools are enabled at all.
    bool toolsEnabled = false;
    /// Whether the ReAct meta-tools (`final-answer`) are registered.
    bool reasoning = false;
    tools::ExecutionPolicy execution;
    tools::ApprovalHandler approval;
    std::optional<double> temperature;
    std::optional<int> maxTokens;
};

}  // namespace reagent::agent
