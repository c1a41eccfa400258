#include "reagent/a2a/remote_agent_tool.hpp"

#include <memory>

#include "reagent/core/json_fields.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace reagent::a2a {

namespace {

struct Remote {
    std::string name;
    std::string url;
    ClientOptions options;
    std::optional<Client> client;
};

[[nodiscard]] tools::ToolError toolError(const Remote& remote, const A2aError& error, tools::ToolErrc code) {
    if (error.code == A2aErrc::timeout) {
        code = tools::ToolErrc::timeout;
    } else if (error.code == A2aErrc::cancelled) {
        code = tools::ToolErrc::cancelled;
    }
    tools::ToolError out{code,
                         "remote agent '" + remote.name + "' (" + remote.url + "): " + error.describe()};
    out.details = nlohmann::json{{"a2a", std::string(toString(error.code))}, {"url", remote.url}};
    out.cause = std::make_shared<const tools::ErrorCause>(
        tools::ErrorCause{"a2a", std::string(toString(error.code)), error.message, {{"url", remote.url}}});
    return out;
}

Task<expected<void, tools::ToolError>> connectRemote(std::shared_ptr<Remote> remote) {
    if (remote->client) {
        co_return expected<void, tools::ToolError>{};
    }
    auto pending = Client::connect(remote->url, remote->options);
    auto client = co_await std::move(pending);
    if (!client) {
        co_return fail(toolError(*remote, client.error(), tools::ToolErrc::init_failed));
    }
    remote->client = std::move(*client);
    co_return expected<void, tools::ToolError>{};
}

Task<tools::ToolResult> callRemote(std::shared_ptr<Remote> remote, nlohmann::json args,
                                   tools::ToolContext context) {
    auto connecting = connectRemote(remote);
    auto connected = co_await std::move(connecting);
    if (!connected) {
        co_return fail(connected.error());
    }
    const Client client = *remote->client;
    Message message = Message::userText(stringOr(args, "message"));
    const SpanContext trace = context.trace != nullptr ? *context.trace : SpanContext{};
    if (!client.card().streaming) {
        auto pending = client.send(std::move(message), trace);
        auto result = co_await std::move(pending);
        if (!result) {
            co_return fail(toolError(*remote, result.error(), tools::ToolErrc::failed));
        }
        auto text = answerText(*result);
        if (!text) {
            co_return fail(toolError(*remote, text.error(), tools::ToolErrc::failed));
        }
        co_return std::move(*text);
    }
    auto progress = std::make_shared<int>(0);
    Client::EventHandler onEvent = [context, progress](const StreamEvent& event) {
        const auto* update = std::get_if<StatusUpdate>(&event);
        if (update && update->status.state == TaskState::working && update->status.message) {
            tools::ToolProgress report;
            report.progress = ++*progress;
            report.message = update->status.message->text();
            context.reportProgress(report);
        }
    };
    auto pending = client.stream(std::move(message), std::move(onEvent), trace);
    auto task = co_await std::move(pending);
    if (!task) {
        co_return fail(toolError(*remote, task.error(), tools::ToolErrc::failed));
    }
    auto text = answerText(SendResult(std::move(*task)));
    if (!text) {
        co_return fail(toolError(*remote, text.error(), tools::ToolErrc::failed));
    }
    co_return std::move(*text);
}

}  // namespace

expected<tools::Tool, tools::ToolError> remoteAgentTool(std::string name, std::string url,
                                                        ClientOptions options) {
    auto remote = std::make_shared<Remote>();
    remote->name = name;
    remote->url = url;
    remote->options = std::move(options);
    return tools::ToolBuilder::create(std::move(name))
        .description("Delegates a request to the remote agent at " + url +
                     " (A2A protocol) and returns its reply. Write the whole request in 'message'.")
        .param("message", "string", "The request for the remote agent, self-contained",
               tools::ParamOptions{true})
        .timeout(remote->options.timeout)
        .init([remote] { return connectRemote(remote); })
        .handler([remote](nlohmann::json args, tools::ToolContext context) {
            return callRemote(remote, std::move(args), std::move(context));
        })
        .build();
}

expected<tools::Tool, tools::ToolError> remoteAgentTool(const RemoteAgentSpec& spec) {
    ClientOptions options;
    for (const auto& [name, value] : spec.headers) {
        options.headers.set(name, value);
    }
    if (spec.timeout) {
        options.timeout = *spec.timeout;
    }
    return remoteAgentTool(spec.name, spec.url, std::move(options));
}

}  // namespace reagent::a2a
