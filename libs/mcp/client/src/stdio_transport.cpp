// The stdio transport: the server is a subprocess speaking newline-delimited JSON on stdin and stdout.

#include <fcntl.h>
#include <unistd.h>

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
#include "reagent/core/event.hpp"
#include "reagent/core/line_splitter.hpp"
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

// The state the stderr reader and a receive in progress share with the transport; it outlives the
// transport object if one of them is still finishing.
struct Shared {
    explicit Shared(const Executor& executor) : frames(executor), writable(executor) {}
    // Frames split from stdout and not yet received (a read can bring several), then the final error.
    detail::FrameQueue frames;
    std::optional<Subprocess> child;
    // The reading state of `receive`, the only reader of stdout: a read's bytes, the lines they make.
    std::string chunk;
    LineSplitter lines{0, LineSplitter::LongLines::stop};
    // stderr: read into `errorChunk` as soon as it is readable, its tail kept in `stderrTail`.
    std::string errorChunk;
    std::string stderrTail;
    std::size_t stderrLimit = 0;
    bool stderrOpen = true;
    // Writes are serialised: `writing` is held by one send; the others wait for `writable`, set when it
    // is released.
    bool writing = false;
    Event writable;
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
        shared_->lines = LineSplitter(config_.limits.maxMessageBytes, LineSplitter::LongLines::stop);
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
        // stdout is read by `receive` itself (the frame goes to its caller with no hop through the event
        // loop); stderr by a background reader.
        readers_.emplace(executor);
        shared_->errorChunk.resize(kReadChunk);
        // drainErrors reads it without waiting; Asio only waits for it to be readable.
        const int errorsFd = shared_->child->errors().native_handle();
        ::fcntl(errorsFd, F_SETFL, ::fcntl(errorsFd, F_GETFL) | O_NONBLOCK);
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
            shared->writable.reset();
            (void)co_await shared->writable.wait(asio::use_awaitable);
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
        shared->writable.set();
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
        if (shared->frames.empty() && !shared->frames.finished()) {
            auto reading = readFrames(shared, config_.limits.maxMessageBytes, config_.name);
            auto read = co_await std::move(reading);
            if (!read) {
                co_return unexpected(std::move(read.error()));
            }
        }
        co_return co_await shared->frames.pop();
    }

    std::string diagnostics() const override {
        if (!shared_) {
            return {};
        }
        if (!shared_->closed) {
            drainErrors(*shared_);  // what the server wrote up to now, its reader's next turn not awaited
        }
        return tailOf(shared_->stderrTail, config_.stderrLogBytes);
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
        if (shared->child) {
            // A receive in progress returns the error above. The group is dead, so the pipes are at end of
            // file; cancel anyway in case a grandchild that left the group still holds them.
            boost::system::error_code ignored;
            shared->child->output().cancel(ignored);
        }
        if (readers_) {
            readers_->cancel();
            (void)co_await readers_->join();
        }
    }

  private:
    std::string closedText() const { return "MCP server '" + config_.name + "' is closed"; }

    // Reads stdout until it has queued at least one frame (a line) or finished the queue; a line over the
    // bound ends the transport. Fails only when cancelled; the queue holds what `receive` returns.
    static Task<expected<void, McpError>> readFrames(std::shared_ptr<Shared> shared, std::size_t limit,
                                                     std::string name) {
        if (shared->chunk.empty()) {
            shared->chunk.resize(kReadChunk);
        }
        while (shared->frames.empty() && !shared->frames.finished()) {
            auto [ec, n] =
                co_await shared->child->output().async_read_some(asio::buffer(shared->chunk), kTuple);
            if (!splitLines(*shared, std::string_view(shared->chunk.data(), n), limit, name)) {
                break;
            }
            if (ec == asio::error::operation_aborted) {
                if (!shared->frames.empty() || shared->frames.finished()) {
                    break;  // close() cancelled the read after finishing the queue
                }
                co_return unexpected(McpError{McpErrc::cancelled, "receive cancelled"});
            }
            if (ec) {
                // The end: finished here, or by close() (which the queue's pop then waits for).
                auto ending = finish(shared, name);
                if (!co_await std::move(ending)) {
                    co_return unexpected(McpError{McpErrc::cancelled, "receive cancelled"});
                }
                break;
            }
        }
        co_return expected<void, McpError>{};
    }

    // Splits `data` into lines, each a frame; false (the transport finished) when a line is over `limit`.
    static bool splitLines(Shared& shared, std::string_view data, std::size_t limit,
                           const std::string& name) {
        auto onLine = [&shared](std::string_view line) { shared.frames.push(std::string(line)); };
        auto neverDropped = [](std::size_t) {};
        if (shared.lines.feed(data, onLine, neverDropped)) {
            return true;
        }
        shared.frames.finish(
            McpError{McpErrc::protocol_error, "MCP server '" + name + "' sent a line longer than " +
                                                  std::to_string(limit) + " bytes; the server was stopped"});
        shared.child->signalGroup(SIGKILL);
        return false;
    }

    // stdout ended: the server exited or closed it. Finishes the queue with how it ended and what it said
    // (close() finishes it itself). False when cancelled first (a later receive reads the end again).
    static Task<bool> finish(std::shared_ptr<Shared> shared, std::string name) {
        if (shared->closed) {
            // close() finishes the queue once the server is reaped: wait for it.
            co_return true;
        }
        std::string message = "MCP server '" + name + "' closed its output";
        if (shared->child) {
            // Give the exit a moment to be observable, so the message can say how the server ended.
            auto executor = co_await asio::this_coro::executor;
            asio::steady_timer grace(executor, std::chrono::milliseconds(500));
            using namespace asio::experimental::awaitable_operators;
            auto exited = co_await (shared->child->waitExit() || grace.async_wait(kTuple));
            if (isCancelled(co_await asio::this_coro::cancellation_state) && !shared->frames.finished()) {
                co_return false;
            }
            if (exited.index() == 0 && std::get<0>(exited) && !shared->closed) {
                const int status = co_await shared->child->reap();
                message = "MCP server '" + name + "' " + describeWaitStatus(status);
            }
        }
        if (shared->closed) {
            co_return true;
        }
        drainErrors(*shared);
        const std::string tail = tailOf(shared->stderrTail, 2048);
        if (!tail.empty()) {
            message += "; its stderr ends with: " + tail;
        }
        shared->frames.finish(McpError{McpErrc::connection_closed, std::move(message)});
        co_return true;
    }

    // Takes what stderr holds now, without waiting, into its own buffer (`chunk` may hold stdout bytes
    // whose read completed but whose handler has not run yet). A response goes to its request without a
    // trip through the event loop, so the stderr reader may not have run yet: the diagnostics and the
    // message of a server that ended drain it first, so what the server wrote to stderr before its
    // response is there when they are read (not after every response: that would cost a system call per
    // message). Bounded, so that a server flooding stderr cannot hold up its caller.
    static void drainErrors(Shared& shared) {
        for (int round = 0; round < 4 && shared.stderrOpen && shared.child; ++round) {
            const ssize_t n = ::read(shared.child->errors().native_handle(), shared.errorChunk.data(),
                                     shared.errorChunk.size());
            if (n > 0) {
                keepTail(shared.stderrTail,
                         std::string_view(shared.errorChunk.data(), static_cast<std::size_t>(n)),
                         shared.stderrLimit);
            }
            if (n == 0) {
                shared.stderrOpen = false;  // at its end (the stderr reader sees it too)
            }
            if (n < static_cast<ssize_t>(shared.errorChunk.size())) {
                break;  // empty (EAGAIN), at its end, or all there was
            }
        }
    }

    // Waits until stderr is readable, then takes what it holds at once (drainErrors): bytes read are never
    // held in a completion queued in the event loop, where a response handed over meanwhile would overtake
    // them (receive drains stderr too).
    static Task<void> readErrors(std::shared_ptr<Shared> shared) {
        while (shared->stderrOpen) {
            auto [ec, none] = co_await shared->child->errors().async_read_some(asio::null_buffers(), kTuple);
            (void)none;
            if (ec) {
                break;
            }
            drainErrors(*shared);
        }
        shared->stderrOpen = false;
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
