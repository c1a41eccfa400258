#include "reagent/mcp/server.hpp"

#include <array>
#include <utility>
#include <variant>

#include "reagent/core/settle.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "server_state.hpp"

namespace reagent::mcp {

using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 8> kLevelNames{"debug", "info",     "notice", "warning",
                                                      "error", "critical", "alert",  "emergency"};

}  // namespace

std::string_view toString(LogLevel level) noexcept {
    return kLevelNames.at(static_cast<std::size_t>(level));
}

std::optional<LogLevel> parseLogLevel(std::string_view name) noexcept {
    for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
        if (kLevelNames[i] == name) {
            return static_cast<LogLevel>(i);
        }
    }
    return std::nullopt;
}

std::string_view negotiateVersion(std::string_view offered) noexcept {
    for (const std::string_view version : kSupportedProtocolVersions) {
        if (version == offered) {
            return version;
        }
    }
    return kLatestProtocolVersion;
}

void Server::State::toolsChanged() {
    tellSessions("notifications/tools/list_changed");
}

void Server::State::onEvent(const tools::ToolEvent& event) {
    if (const auto* progressed = std::get_if<tools::ToolProgressed>(&event)) {
        const auto route = progress.find(progressed->callId);
        if (route != progress.end()) {
            if (const auto session = route->second.session.lock(); session && !session->closed) {
                json params = {{"progressToken", route->second.token},
                               {"progress", progressed->progress.progress}};
                if (progressed->progress.total) {
                    params["total"] = *progressed->progress.total;
                }
                if (!progressed->progress.message.empty()) {
                    params["message"] = progressed->progress.message;
                }
                session->send(OutgoingFrame{session->rpc.notify("notifications/progress", std::move(params)),
                                            route->second.request, false});
            }
        }
    }
    if (sink) {
        (void)settleCall(sink, event);
    }
}

Server::Server(std::shared_ptr<tools::ToolRegistry> registry, ServerOptions options)
    : state_(std::make_shared<State>(std::move(registry), std::move(options))) {
    const Implementation& info = state_->options.info;
    state_->serverInfo = json{{"name", info.name}, {"version", info.version}};
    if (!info.title.empty()) {
        state_->serverInfo["title"] = info.title;
    }
    std::weak_ptr<State> weak = state_;
    state_->listener = state_->registry->watch([weak] {
        if (const auto state = weak.lock()) {
            state->toolsChanged();
        }
    });
    state_->executor.setEventSink([weak](const tools::ToolEvent& event) {
        if (const auto state = weak.lock()) {
            state->onEvent(event);
        }
    });
}

void Server::setApprovalHandler(tools::ApprovalHandler handler) {
    state_->executor.setApprovalHandler(std::move(handler));
}

void Server::setEventSink(tools::ToolEventSink sink) {
    state_->sink = std::move(sink);
}

std::shared_ptr<ServerSession> Server::connect(Executor executor, FrameSink sink) const {
    auto state = std::make_shared<ServerSession::State>(state_, std::move(executor), std::move(sink),
                                                        ++state_->sessionsOpened);
    std::erase_if(state_->sessions, [](const auto& weak) { return weak.expired(); });
    state_->sessions.push_back(state);
    return std::make_shared<ServerSession>(std::move(state));
}

void Server::log(LogLevel level, json data, std::string logger) const {
    const auto open = state_->sessions;
    for (const auto& weak : open) {
        if (const auto session = weak.lock()) {
            session->log(level, data, logger);
        }
    }
}

const ServerOptions& Server::options() const noexcept {
    return state_->options;
}

const std::shared_ptr<tools::ToolRegistry>& Server::registry() const noexcept {
    return state_->registry;
}

}  // namespace reagent::mcp
