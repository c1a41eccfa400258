#pragma once
/// \file
/// \brief `RawSession`: drives a `Transport` with hand-written JSON-RPC frames, for the transport tests.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::test {

using mcp::McpErrc;
using mcp::McpError;

/// \brief A client made of raw frames: requests numbered from 1, server requests answered (`roots/list`
/// with one root, anything else with -32601), notifications kept.
class RawSession {
  public:
    explicit RawSession(std::unique_ptr<mcp::Transport> transport) : transport_(std::move(transport)) {}

    [[nodiscard]] mcp::Transport& transport() { return *transport_; }

    /// Notifications the server sent, in order.
    std::vector<nlohmann::json> notifications;
    /// Requests the server sent (and that were answered), in order.
    std::vector<nlohmann::json> serverRequests;

    /// \brief The next frame, parsed; `timeout` when none came within `limit`.
    ///
    /// A receive that outlives its wait stays under way and its frame goes to the next call: a timeout
    /// loses nothing (racing receive against a timer would drop a frame that arrives with the timer).
    Task<expected<nlohmann::json, McpError>> next(
        std::chrono::milliseconds limit = std::chrono::seconds(10)) {
        if (!inbox_) {
            const Executor executor = co_await boost::asio::this_coro::executor;
            inbox_ = std::make_shared<Inbox>(executor);
        }
        auto inbox = inbox_;
        if (!inbox->result && !inbox->outstanding) {
            inbox->outstanding = true;
            const auto onFrame = [inbox](std::exception_ptr, expected<std::string, McpError> frame) {
                inbox->result = std::move(frame);
                inbox->outstanding = false;
                inbox->wake.cancel();
            };
            boost::asio::co_spawn(inbox->wake.get_executor(), transport_->receive(),
                                  boost::asio::bind_cancellation_slot(inbox->signal.slot(), onFrame));
        }
        if (!inbox->result) {
            inbox->wake.expires_after(limit);
            co_await inbox->wake.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        }
        if (!inbox->result) {
            co_return fail(
                McpError{McpErrc::timeout, "no frame within " + std::to_string(limit.count()) + " ms"});
        }
        auto frame = std::move(*inbox->result);
        inbox->result.reset();
        if (!frame) {
            co_return fail(std::move(frame.error()));
        }
        co_return nlohmann::json::parse(*frame);
    }

    /// \brief Ends the receive `next` left under way (its frame, if one came, stays for `next`), so that
    /// the test can call `receive` itself.
    Task<void> quiesce() {
        if (!inbox_ || !inbox_->outstanding) {
            co_return;
        }
        inbox_->signal.emit(boost::asio::cancellation_type::terminal);
        while (inbox_->outstanding) {
            co_await pause(std::chrono::milliseconds(1));
        }
        if (!*inbox_->result && inbox_->result->error().code == McpErrc::cancelled) {
            inbox_->result.reset();
        }
    }

    /// \brief Reads (and keeps or answers) whatever the server sends until it is silent for `quiet`.
    Task<void> drain(std::chrono::milliseconds quiet = std::chrono::milliseconds(300)) {
        for (;;) {
            auto message = co_await next(quiet);
            if (!message) {
                co_return;
            }
            if (message->contains("method")) {
                co_await handle(std::move(*message));
            }
        }
    }

    /// \brief Sends a frame as is.
    Task<expected<void, McpError>> sendRaw(nlohmann::json message) {
        co_return co_await transport_->send(message.dump());
    }

    /// \brief Sends a request and reads frames until its response; the response (with `result` or
    /// `error`), or the transport's error. The send runs beside the reading, as in a real client: with
    /// JSON replies it completes only with the response, and the server may need an answer first.
    Task<expected<nlohmann::json, McpError>> call(std::string method, nlohmann::json params = nullptr) {
        const int id = ++lastId_;
        nlohmann::json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
        if (!params.is_null()) {
            request["params"] = std::move(params);
        }
        auto sent = std::make_shared<std::optional<expected<void, McpError>>>();
        // Bound to locals: g++ 12 mishandles a lambda temporary in a statement that awaits.
        const Executor executor = co_await boost::asio::this_coro::executor;
        const auto onSent = [sent](std::exception_ptr, expected<void, McpError> outcome) {
            *sent = std::move(outcome);
        };
        boost::asio::co_spawn(executor, transport_->send(request.dump()), onSent);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (;;) {
            if (*sent && !**sent) {
                co_return fail(std::move((*sent)->error()));
            }
            if (std::chrono::steady_clock::now() > deadline) {
                co_return fail(McpError{McpErrc::timeout, "no response to " + method + " within 10 s"});
            }
            auto message = co_await next(std::chrono::milliseconds(50));
            if (!message) {
                if (message.error().code == McpErrc::timeout) {
                    continue;
                }
                co_return fail(std::move(message.error()));
            }
            if (message->contains("method")) {
                co_await handle(std::move(*message));
                continue;
            }
            if (message->value("id", -1) == id) {
                while (!*sent) {
                    co_await pause(std::chrono::milliseconds(1));
                }
                if (!**sent) {
                    co_return fail(std::move((*sent)->error()));
                }
                co_return std::move(*message);
            }
        }
    }

    /// \brief Reads frames until the response to `id`, answering server requests on the way.
    Task<expected<nlohmann::json, McpError>> responseTo(int id) {
        for (;;) {
            auto message = co_await next();
            if (!message) {
                co_return fail(std::move(message.error()));
            }
            if (message->contains("method")) {
                co_await handle(std::move(*message));
                continue;
            }
            if (message->value("id", -1) == id) {
                co_return std::move(*message);
            }
        }
    }

    /// \brief Reads frames until the server sends a request named `method` (answered like the others).
    Task<expected<nlohmann::json, McpError>> serverRequest(std::string method) {
        for (;;) {
            auto message = co_await next();
            if (!message) {
                co_return fail(std::move(message.error()));
            }
            if (!message->contains("method")) {
                continue;
            }
            const bool wanted = message->contains("id") && (*message)["method"] == method;
            nlohmann::json copy = *message;
            co_await handle(std::move(*message));
            if (wanted) {
                co_return copy;
            }
        }
    }

    /// \brief `initialize` offering `version`, then `setProtocolVersion` and `notifications/initialized`.
    Task<expected<nlohmann::json, McpError>> initialize(
        nlohmann::json capabilities = nlohmann::json::object(), std::string version = "2025-11-25") {
        nlohmann::json params = {{"protocolVersion", version},
                                 {"capabilities", std::move(capabilities)},
                                 {"clientInfo", {{"name", "reagent-transport-test"}, {"version", "1.0"}}}};
        auto reply = co_await call("initialize", std::move(params));
        if (!reply) {
            co_return reply;
        }
        if (!reply->contains("result")) {
            co_return fail(McpError{McpErrc::remote_error, reply->dump()});
        }
        transport_->setProtocolVersion((*reply)["result"].value("protocolVersion", version));
        nlohmann::json initialized = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
        auto sent = co_await transport_->send(initialized.dump());
        if (!sent) {
            co_return fail(std::move(sent.error()));
        }
        co_return std::move((*reply)["result"]);
    }

    /// \brief `tools/call` and its result's first text, or the error's message.
    Task<expected<std::string, McpError>> callTool(std::string name, nlohmann::json arguments) {
        nlohmann::json params = {{"name", std::move(name)}, {"arguments", std::move(arguments)}};
        auto reply = co_await call("tools/call", std::move(params));
        if (!reply) {
            co_return fail(std::move(reply.error()));
        }
        if (!reply->contains("result")) {
            co_return fail(McpError{McpErrc::remote_error, reply->dump()});
        }
        co_return (*reply)["result"]["content"][0].value("text", "");
    }

  private:
    static Task<void> pause(std::chrono::milliseconds delay) {
        const Executor executor = co_await boost::asio::this_coro::executor;
        boost::asio::steady_timer timer(executor, delay);
        co_await timer.async_wait(boost::asio::use_awaitable);
    }

    Task<void> handle(nlohmann::json message) {
        if (!message.contains("id")) {
            notifications.push_back(std::move(message));
            co_return;
        }
        nlohmann::json reply = {{"jsonrpc", "2.0"}, {"id", message["id"]}};
        if (message["method"] == "roots/list") {
            reply["result"] = {{"roots", nlohmann::json::array({{{"uri", "file:///tmp"}, {"name", "tmp"}}})}};
        } else {
            reply["error"] = {{"code", -32601}, {"message", "not supported by the test"}};
        }
        serverRequests.push_back(std::move(message));
        (void)co_await transport_->send(reply.dump());
    }

    struct Inbox {
        explicit Inbox(const Executor& executor) : wake(executor) {}
        boost::asio::steady_timer wake;
        boost::asio::cancellation_signal signal;
        std::optional<expected<std::string, McpError>> result;
        bool outstanding = false;
    };

    std::unique_ptr<mcp::Transport> transport_;
    std::shared_ptr<Inbox> inbox_;
    int lastId_ = 0;
};

/// \brief A configuration of `kind` for `url` (connect it with `mcp::connectAny`).
inline mcp::ServerConfig httpConfig(mcp::TransportKind kind, std::string url) {
    mcp::ServerConfig config;
    config.name = "peer";
    config.transport = kind;
    config.url = std::move(url);
    config.connectTimeout = std::chrono::seconds(5);
    return config;
}

}  // namespace reagent::test
