// serveStdio: the server's stdio driver. Lines in, session, whole frames out.

#include "reagent/mcp/serve_stdio.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <string>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/pipe_write.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/line_splitter.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;
// How long the frames queued at shutdown may take to be written.
constexpr std::chrono::seconds kFlushLimit{5};

// Frames waiting for the writer, joined by newlines; the writer takes them all at once. `wake` is set when
// there is something to write or the outbox is finished.
struct Outbox {
    explicit Outbox(const Executor& executor) : wake(executor) {}
    void push(const std::string& frame) {
        if (broken) {
            return;
        }
        pending += frame;
        pending += '\n';
        wake.set();
    }
    void finish() {
        finished = true;
        wake.set();
    }
    std::string pending;
    Event wake;
    bool finished = false;
    bool broken = false;
    std::string failure;
};

// The only writer of the output: whole frames, in order, until finished and flushed or the output breaks.
Task<void> writeFrames(std::shared_ptr<Outbox> box, std::shared_ptr<asio::posix::stream_descriptor> out) {
    while (true) {
        if (box->pending.empty()) {
            if (box->finished) {
                break;
            }
            box->wake.reset();
            (void)co_await box->wake.wait(asio::use_awaitable);
            continue;
        }
        // A client that went away is an error of the write, not SIGPIPE.
        auto write = reagent::detail::writeToPipe(out.get(), std::exchange(box->pending, std::string()));
        auto [ec, written] = co_await std::move(write);
        (void)written;
        if (ec) {
            box->broken = true;
            box->failure = ec.message();
            box->pending.clear();
            break;
        }
    }
}

std::string tooLongFrame(std::size_t size, std::size_t limit) {
    const RpcError error{kInvalidRequest, "a line of " + std::to_string(size) +
                                              " bytes exceeds the limit of " + std::to_string(limit) +
                                              " bytes; it was dropped"};
    return jsonrpc::encodeError(std::nullopt, error);
}

McpError unusable(const std::string& what, const boost::system::error_code& ec) {
    return McpError{McpErrc::connection_closed, "cannot serve MCP on " + what + ": " + ec.message()};
}

Task<expected<void, McpError>> serve(Server server, StdioServeOptions options) {
    auto executor = co_await asio::this_coro::executor;
    const std::size_t limit =
        options.maxLineBytes > 0 ? options.maxLineBytes : server.options().limits.maxMessageBytes;
    asio::posix::stream_descriptor input(executor);
    auto output = std::make_shared<asio::posix::stream_descriptor>(executor);
    boost::system::error_code ec;
    // Duplicates, so that closing them leaves the process's own descriptors open.
    const int in = ::fcntl(options.inputFd, F_DUPFD_CLOEXEC, 0);
    const int out = ::fcntl(options.outputFd, F_DUPFD_CLOEXEC, 0);
    if (in >= 0) {
        input.assign(in, ec);
        if (ec) {
            ::close(in);
            co_return unexpected(unusable("the input", ec));
        }
    }
    if (out >= 0) {
        output->assign(out, ec);
        if (!ec) {
            output->non_blocking(true, ec);
        }
        if (ec) {
            ::close(out);
            co_return unexpected(unusable("the output", ec));
        }
    }
    if (in < 0 || out < 0) {
        co_return unexpected(
            unusable("stdio", boost::system::error_code(errno, boost::system::system_category())));
    }

    auto box = std::make_shared<Outbox>(executor);
    auto session = server.connect(executor, [box](OutgoingFrame frame) { box->push(frame.frame); });
    TaskGroup writer(executor);
    writer.spawn(writeFrames(box, output));

    LineSplitter lines(limit);
    auto onLine = [&session](std::string_view line) { session->receive(line); };
    auto onTooLong = [&box, limit](std::size_t size) { box->push(tooLongFrame(size, limit)); };
    std::string chunk(kReadChunk, '\0');
    while (!box->broken) {
        auto [error, n] = co_await input.async_read_some(asio::buffer(chunk), kTuple);
        lines.feed(std::string_view(chunk.data(), n), onLine, onTooLong);
        if (error || isCancelled(co_await asio::this_coro::cancellation_state)) {
            if (error == asio::error::eof) {
                lines.finish(onLine, onTooLong);
            }
            break;
        }
    }
    // Shut down: the calls in flight are cancelled and awaited, then what is queued is written.
    co_await session->close();
    box->finish();
    // A client that stops reading must not hold the shutdown: the flush is bounded.
    auto flushing = writer.join();
    (void)co_await withTimeout(std::move(flushing), kFlushLimit);
    if (box->broken) {
        co_return unexpected(
            McpError{McpErrc::connection_closed, "the MCP client went away: " + box->failure});
    }
    co_return expected<void, McpError>{};
}

}  // namespace

Task<expected<void, McpError>> serveStdio(Server server, StdioServeOptions options) {
    auto body = serve(std::move(server), options);
    co_return co_await withCheckedCancellation(std::move(body));
}

Task<expected<void, McpError>> serveStdio(Server server) {
    auto body = serve(std::move(server), StdioServeOptions{});
    co_return co_await withCheckedCancellation(std::move(body));
}

}  // namespace reagent::mcp
