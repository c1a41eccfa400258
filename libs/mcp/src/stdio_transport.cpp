// The stdio transport: the server is a subprocess speaking newline-delimited JSON on stdin and stdout.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frame_queue.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/subprocess.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {
namespace {

namespace asio = boost::asio;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;
// How long a server gets to exit after its stdin closed, and again after SIGTERM (MCP's stdio shutdown).
constexpr std::chrono::milliseconds kExitGrace{2000};

// The state the background readers share with the transport; it outlives the transport object if a
// reader is still finishing.
struct Shared {
    explicit Shared(const Executor& executor) : frames(executor), writable(executor) {
        writable.expires_at(asio::steady_timer::time_point::max());
    }
    detail::FrameQueue frames;
    std::optional<Subprocess> child;
    std::string stderrTail;
    std::size_t stderrLimit = 0;
    // Writes are serialised: `writing` is held by one send; the others wait on `writable`.
    bool writing = false;
    asio::steady_timer writable;
    bool closed = false;
};

void keepTail(std::string& log, std::string_view bytes, std::size_t limit) {
    log.append(bytes);
    if (log.size() > 2 * limit) {
        log.erase(0, log.size() - limit);
    }
}

std::string tailOf(const std::string& log, std::size_t limit) {
    return log.size() > limit ? log.substr(log.size() - limit) : log;
}

class StdioTransport final : public Transport {
  public:
    explicit StdioTransport(ServerConfig config) : config_(std::move(config)) {}

    ~StdioTransport() override {
        // Without close(): the readers are cancelled and the child is killed and reaped by Subprocess.
        if (readers_) {
            readers_->cancel();
        }
    }

    Task<expected<void, McpError>> open() override {
        auto executor = co_await asio::this_coro::executor;
        shared_ = std::make_shared<Shared>(executor);
        shared_->stderrLimit = config_.stderrLogBytes;
        SubprocessOptions options;
        options.program = config_.command;
        options.args = config_.args;
        options.workingDirectory = config_.cwd;
        std::vector<std::string> overrides;
        for (const auto& [name, value] : config_.env) {
            overrides.push_back(name + "=" + value);
        }
        options.environment = mergedEnvironment(overrides);
        auto child = Subprocess::spawn(executor, options);
        if (!child) {
            co_return unexpected(
                McpError{McpErrc::connect_failed,
                         "MCP server '" + config_.name + "' could not be started: " + child.error().message});
        }
        shared_->child.emplace(std::move(*child));
        readers_.emplace(executor);
        readers_->spawn(readLines(shared_, config_.limits.maxMessageBytes, config_.name));
        readers_->spawn(readErrors(shared_));
        co_return expected<void, McpError>{};
    }

    Task<expected<void, McpError>> send(std::string frame) override {
        if (!shared_ || shared_->closed || shared_->frames.finished()) {
            co_return unexpected(McpError{McpErrc::connection_closed, closedText()});
        }
        frame.push_back('\n');
        auto shared = shared_;
        while (shared->writing) {
            co_await shared->writable.async_wait(kTuple);
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                co_return unexpected(McpError{McpErrc::cancelled, "send cancelled"});
            }
        }
        if (shared->closed || !shared->child) {
            co_return unexpected(McpError{McpErrc::connection_closed, closedText()});
        }
        shared->writing = true;
        const std::size_t size = frame.size();
        auto writing = shared->child->writeInput(std::move(frame));
        auto [ec, written] = co_await std::move(writing);
        shared->writing = false;
        shared->writable.cancel();
        if (ec) {
            if (written != 0 && written != size) {
                // Half a line went out: the stream is broken for good.
                shared->frames.finish(McpError{McpErrc::connection_closed, "a frame was cut off mid-write"});
                shared->child->signalGroup(SIGKILL);
            }
            if (ec == asio::error::operation_aborted) {
                co_return unexpected(McpError{McpErrc::cancelled, "send cancelled"});
            }
            co_return unexpected(
                McpError{McpErrc::connection_closed,
                         "could not write to MCP server '" + config_.name + "': " + ec.message()});
        }
        co_return expected<void, McpError>{};
    }

    Task<expected<std::string, McpError>> receive() override {
        if (!shared_) {
            co_return unexpected(McpError{McpErrc::connection_closed, "the transport was not opened"});
        }
        auto shared = shared_;
        co_return co_await shared->frames.pop();
    }

    std::string diagnostics() const override {
        return shared_ ? tailOf(shared_->stderrTail, config_.stderrLogBytes) : std::string();
    }

    Task<void> close() override {
        if (!shared_ || shared_->closed) {
            co_return;
        }
        auto shared = shared_;
        shared->closed = true;
        if (shared->child) {
            const int status = co_await shared->child->stop(kExitGrace);
            shared->frames.finish(McpError{
                McpErrc::connection_closed,
                "MCP server '" + config_.name + "' was closed (it " + describeWaitStatus(status) + ")"});
        }
        if (readers_) {
            // The group is dead, so the pipes are at end of file; cancel anyway in case a grandchild that
            // left the group still holds them.
            readers_->cancel();
            (void)co_await readers_->join();
        }
    }

  private:
    std::string closedText() const { return "MCP server '" + config_.name + "' is closed"; }

    // Splits stdout into lines, each a frame. A line over the bound ends the transport.
    static Task<void> readLines(std::shared_ptr<Shared> shared, std::size_t limit, std::string name) {
        std::string chunk(kReadChunk, '\0');
        std::string line;
        for (;;) {
            auto [ec, n] = co_await shared->child->output().async_read_some(asio::buffer(chunk), kTuple);
            std::string_view data(chunk.data(), n);
            while (!data.empty()) {
                const std::size_t newline = data.find('\n');
                const std::string_view piece = data.substr(0, newline);
                if (line.size() + piece.size() > limit) {
                    shared->frames.finish(McpError{McpErrc::protocol_error,
                                                   "MCP server '" + name + "' sent a line longer than " +
                                                       std::to_string(limit) +
                                                       " bytes; the server was stopped"});
                    shared->child->signalGroup(SIGKILL);
                    co_return;
                }
                line.append(piece);
                if (newline == std::string_view::npos) {
                    break;
                }
                data.remove_prefix(newline + 1);
                if (!line.empty() && line.back() == '\r') {
                    line.pop_back();
                }
                if (line.find_first_not_of(" \t") != std::string::npos) {
                    shared->frames.push(std::move(line));
                }
                line.clear();
            }
            if (ec) {
                break;
            }
        }
        if (shared->closed) {
            co_return;  // close() reports the exit itself
        }
        // End of output: the server exited or closed stdout. Report how it ended and what it said.
        std::string message = "MCP server '" + name + "' closed its output";
        if (shared->child) {
            // Give the exit a moment to be observable, so the message can say how the server ended.
            auto executor = co_await asio::this_coro::executor;
            asio::steady_timer grace(executor, std::chrono::milliseconds(500));
            using namespace asio::experimental::awaitable_operators;
            auto exited = co_await (shared->child->waitExit() || grace.async_wait(kTuple));
            if (exited.index() == 0 && std::get<0>(exited) && !shared->closed) {
                const int status = co_await shared->child->reap();
                message = "MCP server '" + name + "' " + describeWaitStatus(status);
            }
        }
        const std::string tail = tailOf(shared->stderrTail, 2048);
        if (!tail.empty()) {
            message += "; its stderr ends with: " + tail;
        }
        shared->frames.finish(McpError{McpErrc::connection_closed, std::move(message)});
    }

    static Task<void> readErrors(std::shared_ptr<Shared> shared) {
        std::string chunk(kReadChunk, '\0');
        for (;;) {
            auto [ec, n] = co_await shared->child->errors().async_read_some(asio::buffer(chunk), kTuple);
            keepTail(shared->stderrTail, std::string_view(chunk.data(), n), shared->stderrLimit);
            if (ec) {
                break;
            }
        }
    }

    ServerConfig config_;
    std::shared_ptr<Shared> shared_;
    std::optional<TaskGroup> readers_;
};

}  // namespace

std::unique_ptr<Transport> makeStdioTransport(const ServerConfig& config) {
    return std::make_unique<StdioTransport>(config);
}

}  // namespace reagent::mcp
