#pragma once
/// \file
/// \brief `createAgentTools`: the built-in tools of one workspace behind `listTools` and `callTool`, for
/// any agent loop (reagent's or someone else's).

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/builtins/agent_tools_config.hpp"
#include "reagent/builtins/execution_adapter.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::builtins {

/// \brief A tool as advertised: hand `inputSchema` to a model's function-calling API as it is.
struct ToolInfo {
    std::string name;
    std::string description;
    /// JSON Schema of the arguments (an object schema).
    nlohmann::json inputSchema;
};

/// \brief The outcome of `callTool`: the tool's text, or a JSON error envelope when `isError`.
///
/// The envelope is `{"error": {"code": "...", "message": "...", "tool": "<name>"}}`, where `code` is
/// `not_found` (unknown tool, or a mutating tool in read-only mode), `invalid_arguments` (not a JSON
/// object, or the schema refused it; the message names the path and rule), `approval_denied`,
/// `timeout`, `cancelled`, `internal_error` (a tool threw), `tool_error` (any other failure of the
/// tool), or the workspace's code for a refused path or file (`outside_workspace`, `path_not_found`,
/// `not_a_file`, `not_a_directory`, `already_exists`, `too_large`, `match_count`, `binary_file`,
/// `checkpoint_failed`, `io_error`, ...). Tool text is untrusted (it holds file contents).
struct DispatchResult {
    bool isError = false;
    std::string text;
    /// Images and documents beside the text, as MCP content blocks (`file-read` of a PNG: an `image` block
    /// {data, mimeType}; of a PDF: a `resource` block with its `blob`); the text names them.
    std::vector<nlohmann::json> content{};
};

/// \brief The built-in file tools of one workspace with a frozen configuration.
///
/// Arguments go through the same registry and executor as an agent's tool calls: schema validation
/// with defaults, approval, the tool's timeout, exceptions contained.
///
/// \par Thread safety and lifetime
/// `listTools` and `config` may be called from anywhere. Run `callTool` from one strand at a time (the
/// executor's rule); the object must outlive the calls in flight. `callToolBlocking` runs its own
/// `io_context` and must not be called from a coroutine.
class AgentTools {
  public:
    AgentTools(const AgentTools&) = delete;
    AgentTools& operator=(const AgentTools&) = delete;
    ~AgentTools();

    /// \brief The resolved configuration (`workspaceRoot` as a real path).
    [[nodiscard]] const AgentToolsConfig& config() const noexcept { return config_; }

    /// \brief The tools this configuration offers (no mutating tool when `readOnly`).
    [[nodiscard]] std::vector<ToolInfo> listTools() const;

    /// \brief Validates `argsJson` (a JSON object; empty means `{}`), runs tool `name`, bounds the output
    /// to `maxOutputBytes`. Never throws; every problem is a `DispatchResult` with `isError`.
    [[nodiscard]] Task<DispatchResult> callTool(std::string name, std::string argsJson = "{}");

    /// \brief `callTool` run to completion on a private `io_context`, for loops without Asio.
    [[nodiscard]] DispatchResult callToolBlocking(std::string name, std::string argsJson = "{}");

    /// \brief The workspace the tools act on (for checkpoints and rollbacks).
    [[nodiscard]] const std::shared_ptr<ExecutionAdapter>& workspace() const noexcept { return workspace_; }

  private:
    friend expected<std::shared_ptr<AgentTools>, StartupError> createAgentTools(AgentToolsConfig config);
    AgentTools(AgentToolsConfig config, std::shared_ptr<ExecutionAdapter> workspace);
    [[nodiscard]] Task<DispatchResult> dispatch(std::string name, std::string argsJson);
    [[nodiscard]] DispatchResult bounded(std::string text) const;
    [[nodiscard]] DispatchResult failure(const std::string& tool, const tools::ToolError& error) const;

    AgentToolsConfig config_;
    std::shared_ptr<ExecutionAdapter> workspace_;
    tools::ToolRegistry registry_;
    tools::ToolExecutor executor_;
    /// Mutating tools left out by `readOnly`: calling one is `not_found`, with a message saying why.
    std::vector<std::string> hidden_;
    std::atomic<unsigned long long> calls_{0};
};

/// \brief Resolves `config` once, opens the workspace and registers its tools.
///
/// \par Errors
/// `missing_workspace`, `not_a_directory`, `out_of_range` (naming the field and its range),
/// `invalid_setting`, `unavailable`. Nothing throws.
[[nodiscard]] expected<std::shared_ptr<AgentTools>, StartupError> createAgentTools(AgentToolsConfig config);

}  // namespace reagent::builtins
