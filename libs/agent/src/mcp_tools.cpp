#include "mcp_tools.hpp"

#include <algorithm>
#include <utility>

#include "agent_state.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/tools/tool_definition.hpp"

namespace reagent::agent {
namespace {

using nlohmann::json;

// A free coroutine: its frame holds the client, so a call in flight keeps the session alive.
Task<tools::ToolResult> callRemote(std::shared_ptr<mcp::Client> client, std::string remoteName, json args,
                                   tools::ToolContext context) {
    mcp::CallOptions options;
    if (context.progress) {
        options.onProgress = [report = context.progress](const mcp::Progress& p) {
            report(tools::ToolProgress{p.progress, p.total, p.message});
        };
    }
    auto calling = client->callTool(std::move(remoteName), std::move(args), std::move(options));
    auto result = co_await std::move(calling);
    if (!result) {
        const mcp::McpError& error = result.error();
        const auto code = error.code == mcp::McpErrc::timeout     ? tools::ToolErrc::timeout
                          : error.code == mcp::McpErrc::cancelled ? tools::ToolErrc::cancelled
                                                                  : tools::ToolErrc::failed;
        co_return unexpected(tools::ToolError{code, error.message});
    }
    if (!result->structuredContent.is_null() && context.artifacts != nullptr) {
        (*context.artifacts)["structuredContent"] = result->structuredContent;
    }
    if (result->isError) {
        co_return unexpected(
            tools::ToolError::failure(result->text.empty() ? "the tool reported an error" : result->text));
    }
    co_return std::move(result->text);
}

// `server/tool`, with characters a tool name may not hold replaced by '_'.
std::string localName(const std::string& server, const std::string& tool) {
    std::string name = server + "/";
    for (char c : tool) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
        name.push_back(ok ? c : '_');
    }
    return name.substr(0, 128);
}

tools::Tool makeTool(const mcp::ServerConfig& server, const std::shared_ptr<mcp::Client>& client,
                     const mcp::ToolInfo& info) {
    tools::Tool tool;
    tools::ToolDefinition& definition = tool.definition;
    definition.name = localName(server.name, info.name);
    definition.description = !info.description.empty() ? info.description
                             : !info.title.empty()     ? info.title
                                                   : "Tool " + info.name + " of MCP server " + server.name;
    definition.inputSchema = info.inputSchema;
    if (!definition.inputSchema.contains("type")) {
        definition.inputSchema["type"] = "object";
    }
    definition.category = "mcp";
    definition.tags = {"mcp", server.name};
    const bool readOnly = info.annotations.readOnlyHint.value_or(false);
    const bool destructive = !readOnly && info.annotations.destructiveHint.value_or(false);
    definition.riskLevel = readOnly      ? tools::RiskLevel::low
                           : destructive ? tools::RiskLevel::high
                                         : tools::RiskLevel::medium;
    definition.sideEffect = destructive;
    // The client's own limit fires first, so the server is told why the call was dropped.
    definition.timeout = server.requestTimeout + std::chrono::seconds(1);
    const std::string title = info.title.empty() ? info.name : info.title;
    definition.action = [title, serverName = server.name](const json&) {
        return "Calling " + title + " on " + serverName;
    };
    tool.handler = [client, remote = info.name](json args, tools::ToolContext context) {
        return callRemote(client, remote, std::move(args), std::move(context));
    };
    return tool;
}

}  // namespace

McpTools::McpTools(Agent::State& state, const Executor& executor) : state_(state), refreshes_(executor) {
    for (const mcp::ServerConfig& config : state.config.mcp.servers) {
        servers_.push_back(Server{config, nullptr, {}, false, false});
    }
}

McpTools::~McpTools() {
    refreshes_.cancel();
}

void McpTools::log(const std::string& server, std::string level, json data) const {
    state_.emit(ServerLogged{server, std::move(level), "reagent", std::move(data)});
}

mcp::ClientOptions McpTools::clientOptions(std::size_t index) {
    const McpSettings& settings = state_.config.mcp;
    const std::string name = servers_[index].config.name;
    std::weak_ptr<McpTools> self = weak_from_this();
    mcp::ClientOptions options;
    options.clientInfo = {"reagent", "0.1.0", state_.config.name};
    options.roots = settings.roots;
    options.elicitation = settings.elicitation;
    if (settings.allowSampling) {
        options.sampling = [self, name](json params) -> Task<expected<json, mcp::RpcError>> {
            auto tools = self.lock();
            if (!tools) {
                co_return unexpected(mcp::RpcError{mcp::kInternalError, "the agent is gone"});
            }
            const auto allowed = settleCall(tools->state_.config.mcp.allowSampling, name, params);
            if (!allowed || !*allowed) {
                co_return unexpected(mcp::RpcError{-1, "the user declined the sampling request"});
            }
            auto provider = tools->state_.config.provider;
            tools.reset();  // the agent may go away while the model answers
            co_return co_await sampleWithProvider(std::move(provider), std::move(params));
        };
    }
    options.onLog = [self, name](const mcp::LogMessage& message) {
        if (auto tools = self.lock()) {
            tools->state_.emit(ServerLogged{name, message.level, message.logger, message.data});
        }
    };
    options.onProblem = [self, name](const mcp::McpError& error) {
        if (auto tools = self.lock()) {
            tools->log(name, "warning", error.message);
        }
    };
    options.onToolsChanged = [self, index] {
        if (auto tools = self.lock(); tools && !tools->closed_) {
            tools->refreshes_.spawn(tools->refresh(index));
        }
    };
    return options;
}

Task<expected<void, std::string>> McpTools::connect(std::size_t index) {
    auto self = shared_from_this();
    Server& server = servers_[index];
    auto connecting = mcp::Client::connect(server.config, clientOptions(index));
    auto client = co_await std::move(connecting);
    if (!client) {
        co_return unexpected(client.error().describe());
    }
    server.client = std::move(*client);
    server.refreshing = true;  // list_changed arriving meanwhile waits for this registration
    auto registered = co_await registerTools(index);
    server.refreshing = false;
    if (!registered) {
        co_return unexpected(registered.error());
    }
    if (server.refreshAgain) {
        refreshes_.spawn(refresh(index));
    }
    co_return expected<void, std::string>{};
}

Task<expected<void, std::string>> McpTools::connectAll() {
    auto self = shared_from_this();
    std::vector<std::size_t> indices(servers_.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        indices[i] = i;
    }
    auto connectOne = [self](std::size_t& index) { return self->connect(index); };
    const std::size_t cap = std::max<std::size_t>(1, state_.config.mcp.maxConcurrentStarts);
    auto results = co_await parallelMap(std::move(indices), cap, connectOne);
    std::vector<std::string> failures;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i]) {
            failures.push_back("MCP server '" + servers_[i].config.name + "': " + results[i].error().message);
        } else if (!*results[i]) {
            failures.push_back(results[i]->error());
        }
    }
    if (failures.empty()) {
        co_return expected<void, std::string>{};
    }
    std::string message;
    for (const std::string& failure : failures) {
        message += (message.empty() ? "" : "; ") + failure;
    }
    co_return unexpected(std::move(message));
}

Task<expected<void, std::string>> McpTools::registerTools(std::size_t index) {
    auto self = shared_from_this();
    Server& server = servers_[index];
    auto client = server.client;
    auto listed = co_await client->listTools();
    if (!listed) {
        co_return unexpected(listed.error().describe());
    }
    if (closed_) {
        co_return expected<void, std::string>{};
    }
    for (const std::string& name : server.registered) {
        state_.registry.remove(name);
    }
    server.registered.clear();
    for (const mcp::ToolInfo& info : *listed) {
        tools::Tool tool = makeTool(server.config, client, info);
        const std::string name = tool.definition.name;
        if (auto added = state_.registry.add(std::move(tool)); !added) {
            log(server.config.name, "warning",
                "tool '" + info.name + "' was not registered as '" + name + "': " + added.error().describe());
            continue;
        }
        server.registered.push_back(name);
    }
    state_.config.toolsEnabled = true;
    state_.toolsChanged();
    co_return expected<void, std::string>{};
}

Task<void> McpTools::refresh(std::size_t index) {
    auto self = shared_from_this();
    Server& server = servers_[index];
    if (closed_ || !server.client) {
        server.refreshAgain = true;
        co_return;
    }
    if (server.refreshing) {
        server.refreshAgain = true;
        co_return;
    }
    server.refreshing = true;
    do {
        server.refreshAgain = false;
        auto registered = co_await registerTools(index);
        if (!registered) {
            log(server.config.name, "warning", "the tool list could not be refreshed: " + registered.error());
        }
    } while (server.refreshAgain && !closed_);
    server.refreshing = false;
}

Task<void> McpTools::closeAll() {
    auto self = shared_from_this();
    if (closed_) {
        co_return;
    }
    closed_ = true;
    refreshes_.cancel();
    (void)co_await refreshes_.join();
    for (Server& server : servers_) {
        if (server.client) {
            co_await server.client->close();
        }
    }
}

}  // namespace reagent::agent
