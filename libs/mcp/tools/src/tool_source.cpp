// One MCP server's tools in an agent: connected at open, refreshed on list_changed, closed with it.

#include "reagent/mcp/tool_source.hpp"

#include <boost/asio/this_coro.hpp>
#include <optional>
#include <utility>

#include "reagent/core/task_group.hpp"
#include "reagent/tools/tool_definition.hpp"

namespace reagent::mcp {
namespace {

using nlohmann::json;

// A call's error as the model and the events see it: the details name MCP's own code and the server, and
// the cause keeps the MCP error in its own terms (domain `mcp`), as A2A and sub-agent errors keep theirs.
tools::ToolError callError(tools::ToolErrc code, std::string message, std::string_view mcpCode,
                           const std::string& server) {
    tools::ToolError error{code, message, json{{"mcp", std::string(mcpCode)}, {"server", server}}};
    error.cause = std::make_shared<const tools::ErrorCause>(
        tools::ErrorCause{"mcp", std::string(mcpCode), std::move(message), json{{"server", server}}});
    return error;
}

// A free coroutine: its frame holds the client, so a call in flight keeps the session alive.
Task<tools::ToolResult> callRemote(std::shared_ptr<Client> client, std::string remoteName, json args,
                                   tools::ToolContext context) {
    CallOptions options;
    if (context.trace != nullptr) {
        options.trace = *context.trace;
    }
    if (context.progress) {
        options.onProgress = [report = context.progress](const Progress& p) {
            report(tools::ToolProgress{p.progress, p.total, p.message});
        };
    }
    auto calling = client->callTool(std::move(remoteName), std::move(args), std::move(options));
    auto result = co_await std::move(calling);
    const std::string& server = client->config().name;
    if (!result) {
        const McpError& error = result.error();
        const auto code = error.code == McpErrc::timeout     ? tools::ToolErrc::timeout
                          : error.code == McpErrc::cancelled ? tools::ToolErrc::cancelled
                                                             : tools::ToolErrc::failed;
        co_return unexpected(callError(code, error.message, toString(error.code), server));
    }
    if (!result->structuredContent.is_null() && context.artifacts != nullptr) {
        (*context.artifacts)["structuredContent"] = result->structuredContent;
    }
    if (result->isError) {
        co_return unexpected(callError(tools::ToolErrc::failed,
                                       result->text.empty() ? "the tool reported an error" : result->text,
                                       "tool_error", server));
    }
    if (context.content != nullptr) {
        // Images and binary resources (a PDF) go on beside the text that names them: an agent shows them to
        // the model as attachments, an MCP server passes them on as content.
        for (json& block : result->content) {
            const std::string type = block.is_object() ? block.value("type", std::string()) : std::string();
            const bool blob = type == "resource" && block.contains("resource") &&
                              block["resource"].is_object() && block["resource"].contains("blob");
            if (type == "image" || blob) {
                context.content->push_back(std::move(block));
            }
        }
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

tools::Tool makeTool(const ServerConfig& server, const std::shared_ptr<Client>& client,
                     const ToolInfo& info) {
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
    // A destructive tool is repeated after a crash only when its server says repeating is harmless.
    definition.idempotent = !destructive || info.annotations.idempotentHint.value_or(false);
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

// Callbacks from the client hold a weak pointer to the source: a source gone (its agent disposed or
// destroyed) is not reached.
class McpToolSource final : public tools::ToolSource, public std::enable_shared_from_this<McpToolSource> {
  public:
    McpToolSource(ServerConfig config, ToolSourceOptions options)
        : config_(std::move(config)), options_(std::move(options)) {}
    McpToolSource(const McpToolSource&) = delete;
    McpToolSource& operator=(const McpToolSource&) = delete;
    ~McpToolSource() override {
        if (refreshes_) {
            refreshes_->cancel();
        }
    }

    [[nodiscard]] std::string name() const override { return config_.name; }
    [[nodiscard]] bool opens() const noexcept override { return true; }
    [[nodiscard]] Task<expected<void, tools::ToolError>> open(std::shared_ptr<tools::ToolSink> sink) override;
    [[nodiscard]] Task<void> close() override;

  private:
    [[nodiscard]] ClientOptions clientOptions();
    [[nodiscard]] Task<expected<void, std::string>> registerTools();
    [[nodiscard]] Task<void> refresh();
    void log(std::string level, json data) const {
        if (sink_) {
            sink_->log(std::move(level), "reagent", std::move(data));
        }
    }

    ServerConfig config_;
    ToolSourceOptions options_;
    std::shared_ptr<tools::ToolSink> sink_;
    std::shared_ptr<Client> client_;
    /// Names registered through the sink for this server.
    std::vector<std::string> registered_;
    std::optional<TaskGroup> refreshes_;
    bool refreshing_ = false;
    bool refreshAgain_ = false;
    bool closed_ = false;
};

ClientOptions McpToolSource::clientOptions() {
    std::weak_ptr<McpToolSource> self = weak_from_this();
    ClientOptions options;
    options.clientInfo = options_.clientInfo;
    options.roots = options_.roots;
    options.sampling = options_.sampling;
    options.elicitation = options_.elicitation;
    options.onLog = [self](const LogMessage& message) {
        if (auto source = self.lock(); source && source->sink_) {
            source->sink_->log(message.level, message.logger, message.data);
        }
    };
    options.onProblem = [self](const McpError& error) {
        if (auto source = self.lock()) {
            source->log("warning", error.message);
        }
    };
    options.onToolsChanged = [self] {
        if (auto source = self.lock(); source && !source->closed_ && source->refreshes_) {
            source->refreshes_->spawn(source->refresh());
        }
    };
    return options;
}

Task<expected<void, tools::ToolError>> McpToolSource::open(std::shared_ptr<tools::ToolSink> sink) {
    auto self = shared_from_this();
    if (client_ || closed_) {
        co_return unexpected(tools::ToolError{tools::ToolErrc::init_failed,
                                              "MCP server '" + config_.name + "' was already opened"});
    }
    sink_ = std::move(sink);
    refreshes_.emplace(co_await boost::asio::this_coro::executor);
    TransportMaker maker = options_.transport ? options_.transport : TransportMaker(&makeTransport);
    TransportFactory factory = [maker, config = config_] { return maker(config); };
    auto connecting = Client::connect(config_, clientOptions(), std::move(factory));
    auto client = co_await std::move(connecting);
    if (!client) {
        const McpError& error = client.error();
        const auto code =
            error.code == McpErrc::cancelled ? tools::ToolErrc::cancelled : tools::ToolErrc::init_failed;
        co_return unexpected(callError(code, error.describe(), toString(error.code), config_.name));
    }
    client_ = std::move(*client);
    refreshing_ = true;  // list_changed arriving meanwhile waits for this registration
    auto registered = co_await registerTools();
    refreshing_ = false;
    if (!registered) {
        co_return unexpected(
            callError(tools::ToolErrc::init_failed, registered.error(), "protocol_error", config_.name));
    }
    if (refreshAgain_) {
        refreshes_->spawn(refresh());
    }
    co_return expected<void, tools::ToolError>{};
}

Task<expected<void, std::string>> McpToolSource::registerTools() {
    auto self = shared_from_this();
    auto client = client_;
    auto listed = co_await client->listTools();
    if (!listed) {
        co_return unexpected(listed.error().describe());
    }
    if (closed_) {
        co_return expected<void, std::string>{};
    }
    for (const std::string& name : registered_) {
        sink_->remove(name);
    }
    registered_.clear();
    for (const ToolInfo& info : *listed) {
        tools::Tool tool = makeTool(config_, client, info);
        const std::string name = tool.definition.name;
        if (auto added = sink_->add(std::move(tool)); !added) {
            log("warning",
                "tool '" + info.name + "' was not registered as '" + name + "': " + added.error().describe());
            continue;
        }
        registered_.push_back(name);
    }
    co_return expected<void, std::string>{};
}

Task<void> McpToolSource::refresh() {
    auto self = shared_from_this();
    if (closed_ || !client_ || refreshing_) {
        refreshAgain_ = true;
        co_return;
    }
    refreshing_ = true;
    do {
        refreshAgain_ = false;
        auto registered = co_await registerTools();
        if (!registered) {
            log("warning", "the tool list could not be refreshed: " + registered.error());
        }
    } while (refreshAgain_ && !closed_);
    refreshing_ = false;
}

Task<void> McpToolSource::close() {
    auto self = shared_from_this();
    if (closed_) {
        co_return;
    }
    closed_ = true;
    if (refreshes_) {
        refreshes_->cancel();
        (void)co_await refreshes_->join();
    }
    if (client_) {
        co_await client_->close();
    }
}

}  // namespace

expected<std::shared_ptr<tools::ToolSource>, tools::ToolError> toolSource(ServerConfig server,
                                                                          ToolSourceOptions options) {
    if (auto valid = validate(server); !valid) {
        return fail(tools::ToolError{tools::ToolErrc::invalid_definition, valid.error().message});
    }
    return std::make_shared<McpToolSource>(std::move(server), std::move(options));
}

}  // namespace reagent::mcp
