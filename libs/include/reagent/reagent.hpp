#pragma once
/// \file
/// \brief The umbrella header: everything a program needs to build and run agents.

#include "reagent/a2a/remote_agent_tool.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/agent/agent_config.hpp"
#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/agent_event.hpp"
#include "reagent/agent/conversation.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/agent/workflow.hpp"
#include "reagent/builtins/agent_tools.hpp"
#include "reagent/builtins/builtin_tools.hpp"
#include "reagent/builtins/code_execute.hpp"
#include "reagent/builtins/command_tools.hpp"
#include "reagent/builtins/execution_adapter.hpp"
#include "reagent/builtins/file_tools.hpp"
#include "reagent/builtins/glob_pattern.hpp"
#include "reagent/builtins/local_workspace.hpp"
#include "reagent/builtins/network_tools.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/core/retry.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/llm/message.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/serve_http.hpp"
#include "reagent/mcp/serve_stdio.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/provider_by_kind.hpp"
#include "reagent/providers/from_environment.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/providers/provider_config.hpp"
#include "reagent/providers/wire_format.hpp"
#include "reagent/tools/adapt_function.hpp"
#include "reagent/tools/schema_validator.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "reagent/tools/tool_call.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_definition.hpp"
#include "reagent/tools/tool_error.hpp"
#include "reagent/tools/tool_event.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

// memory
#include "reagent/memory/episodic_store.hpp"
#include "reagent/memory/memory_error.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "reagent/memory/working_memory.hpp"

// transform
#include "reagent/transform/jq_transform.hpp"

namespace reagent::detail {

/// Programs that include the umbrella header reach MCP servers over every transport: the remote ones
/// (streamable HTTP, SSE, WebSocket) are plugged into `mcp::makeTransport` before `main` runs.
inline const bool kMcpRemoteTransportsEnabled = mcp::enableRemoteTransports();

/// ... and `AgentBuilder::withTools()` registers the built-in tools (`builtins::builtinTools`).
inline const bool kBuiltinToolsEnabled = builtins::enableBuiltinTools();

/// ... and `AgentBuilder::withRemoteAgent` reaches A2A agents (`a2a::remoteAgentTool`).
inline const bool kRemoteAgentsEnabled = a2a::enableRemoteAgents();

}  // namespace reagent::detail
