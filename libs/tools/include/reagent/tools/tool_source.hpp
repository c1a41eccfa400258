#pragma once
/// \file
/// \brief `ToolSource`: tools that another library contributes to an agent (an MCP server, the built-in
/// tools), and `ToolSink`, through which a source adds and removes tools after it opened.
///
/// The one seam between the agent and the libraries above it: the agent library knows this interface and
/// nothing of MCP, the workspace or A2A; each of those libraries provides a source
/// (`mcp::toolSource`, `builtins::toolSource`), and `AgentBuilder::withToolSource` takes it.

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief Restores a workspace to a checkpoint (an id from a tool call's `checkpointId` artifact);
/// returns a line saying what was restored.
using CheckpointRollback = std::function<Task<expected<std::string, ToolError>>(std::string checkpointId)>;

/// \brief The name of the artifact in which a tool records the checkpoint taken before its change.
inline constexpr const char* kCheckpointArtifact = "checkpointId";

/// \brief Where an open source puts the tools it learns of later (an MCP server's `list_changed`), and
/// what it has to say. Implemented by the agent; a sink outliving its agent accepts nothing.
///
/// \par Thread safety
/// Use from the agent's strand.
class ToolSink {
  public:
    virtual ~ToolSink() = default;
    /// \brief Registers `tool`. Errors as `ToolRegistry::add` (a name taken, a bad schema); `cancelled`
    /// once the agent is gone.
    [[nodiscard]] virtual expected<void, ToolError> add(Tool tool) = 0;
    /// \brief Removes a tool; false when absent.
    virtual bool remove(std::string_view name) = 0;
    /// \brief A notice for the agent's subscribers (`ServerLogged`): `level` as MCP's logging levels
    /// ("debug" ... "emergency"), `logger` who wrote it, `data` any JSON.
    virtual void log(std::string level, std::string logger, nlohmann::json data) = 0;
};

/// \brief Tools from outside the agent library, with their life cycle.
///
/// The agent asks a source, in this order: `tools()` when it is built (tools ready now); `open(sink)` when
/// it is built asynchronously (`AgentBuilder::buildAsync`), only if `opens()`; `rollback()` for
/// `Agent::rollback`; `close()` when it is disposed. A source belongs to one agent.
///
/// \par Contract
/// - No exception escapes; failures are values whose message a person can act on.
/// - `open` reacts to Asio per-operation cancellation (`cancelled`); `close` is idempotent, never fails,
///   is bounded in time, and is called even when `open` failed.
class ToolSource {
  public:
    virtual ~ToolSource() = default;

    /// \brief Tells sources apart in one agent (unique there), and names the source's events
    /// (`ServerLogged::server`): an MCP server's name, "builtins".
    [[nodiscard]] virtual std::string name() const = 0;
    /// \brief The tools ready now, registered by `build()`. A tool given to the builder directly
    /// (`withTool`, `withTools`) replaces a source's tool of the same name. Default: none.
    ///
    /// \par Errors
    /// `invalid_definition` (a selection the source cannot serve); `build()` reports it.
    [[nodiscard]] virtual expected<std::vector<Tool>, ToolError> tools();
    /// \brief True when the source has to be opened (connected) before its tools are known; `build()`
    /// then refuses, and `buildAsync()` awaits `open`. Default false.
    [[nodiscard]] virtual bool opens() const noexcept;
    /// \brief Connects, and adds the source's tools through `sink`, which it may keep to add and remove
    /// tools until `close`. Default: nothing to do.
    ///
    /// \par Errors
    /// `init_failed` (could not connect, with the cause), `cancelled`.
    [[nodiscard]] virtual Task<expected<void, ToolError>> open(std::shared_ptr<ToolSink> sink);
    /// \brief Ends what `open` started (closes sessions, stops processes). Default: nothing.
    [[nodiscard]] virtual Task<void> close();
    /// \brief Restores the workspace this source's tools change; empty (the default) when there is none.
    [[nodiscard]] virtual CheckpointRollback rollback() const;
};

}  // namespace reagent::tools
