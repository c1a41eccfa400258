// serveStdio driven in-process through pipes: bad input gets its error and serving goes on; the end of
// the input cancels the calls in flight and returns.

#include "reagent/mcp/serve_stdio.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <istream>

#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;
using namespace std::chrono_literals;

namespace {

struct Pipes {
    Pipes() {
        REQUIRE(::pipe2(toServer, O_CLOEXEC) == 0);
        REQUIRE(::pipe2(fromServer, O_CLOEXEC) == 0);
    }
    ~Pipes() {
        for (int fd : {toServer[0], toServer[1], fromServer[0], fromServer[1]}) {
            if (fd >= 0) {
                ::close(fd);
            }
        }
    }
    int toServer[2]{-1, -1};
    int fromServer[2]{-1, -1};
};

std::shared_ptr<tools::ToolRegistry> registry(std::shared_ptr<bool> cancelled) {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto builder = tools::ToolBuilder::create("wait");
    builder.description("waits until cancelled")
        .handler([cancelled](json, tools::ToolContext context) -> Task<tools::ToolResult> {
            asio::steady_timer timer(context.executor, std::chrono::hours(1));
            auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
            *cancelled = ec == asio::error::operation_aborted;
            co_return std::string("woke");
        });
    REQUIRE(registry->add(*builder.build()));
    return registry;
}

// Writes `text` and reads one line back.
Task<json> exchange(asio::posix::stream_descriptor& in, asio::posix::stream_descriptor& out,
                    asio::streambuf& buffer, std::string text) {
    co_await asio::async_write(in, asio::buffer(text), asio::use_awaitable);
    co_await asio::async_read_until(out, buffer, '\n', asio::use_awaitable);
    std::istream stream(&buffer);
    std::string line;
    std::getline(stream, line);
    co_return json::parse(line);
}

}  // namespace

TEST_CASE("serveStdio answers bad input and keeps serving then shuts down at end of input",
          "[mcp][server][stdio]") {
    Pipes pipes;
    auto cancelled = std::make_shared<bool>(false);
    mcp::Server server(registry(cancelled));
    asio::io_context io;
    mcp::StdioServeOptions options;
    options.inputFd = pipes.toServer[0];
    options.outputFd = pipes.fromServer[1];
    options.maxLineBytes = 200;
    std::optional<reagent::expected<void, mcp::McpError>> served;
    asio::co_spawn(io, mcp::serveStdio(server, options),
                   [&served](std::exception_ptr, reagent::expected<void, mcp::McpError> r) { served = r; });

    // The client's ends; the server's are closed once it has its own copies, so that each side sees the
    // other's end.
    auto client = [](int write, int read, int* serverOutput,
                     std::shared_ptr<bool> handlerCancelled) -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        asio::posix::stream_descriptor in(executor, write);
        asio::posix::stream_descriptor out(executor, read);
        asio::streambuf buffer;
        auto parse = co_await exchange(in, out, buffer, "{oops\n");
        CHECK(parse["error"]["code"] == mcp::kParseError);
        ::close(*serverOutput);
        *serverOutput = -1;
        auto tooLong = co_await exchange(in, out, buffer, "{\"pad\":\"" + std::string(300, 'x') + "\"}\n");
        CHECK(tooLong["error"]["code"] == mcp::kInvalidRequest);
        CHECK(tooLong["error"]["message"].get<std::string>().find("exceeds the limit of 200 bytes") !=
              std::string::npos);
        auto early = co_await exchange(in, out, buffer,
                                       R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"
                                       "\n");
        CHECK(early["error"]["code"] == mcp::kInvalidRequest);
        auto init = co_await exchange(
            in, out, buffer,
            R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})"
            "\r\n");
        CHECK(init["result"]["protocolVersion"] == "2025-06-18");
        auto unknown = co_await exchange(in, out, buffer,
                                         R"({"jsonrpc":"2.0","id":3,"method":"nope"})"
                                         "\n");
        CHECK(unknown["error"]["code"] == mcp::kMethodNotFound);
        // A call in flight when the input ends is cancelled, unanswered.
        const std::string call = R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait"}})"
                                 "\n";
        co_await asio::async_write(in, asio::buffer(call), asio::use_awaitable);
        asio::steady_timer pause(executor, 50ms);
        co_await pause.async_wait(asio::use_awaitable);
        CHECK_FALSE(*handlerCancelled);
        in.close();
        auto [ec, n] =
            co_await asio::async_read_until(out, buffer, '\n', asio::as_tuple(asio::use_awaitable));
        (void)n;
        CHECK(ec == asio::error::eof);  // nothing more was written, and the output was closed
    };
    asio::co_spawn(io,
                   client(std::exchange(pipes.toServer[1], -1), std::exchange(pipes.fromServer[0], -1),
                          &pipes.fromServer[1], cancelled),
                   [](std::exception_ptr e) {
                       if (e) {
                           std::rethrow_exception(e);
                       }
                   });
    io.run_for(10s);
    REQUIRE(served);
    CHECK(*served);
    CHECK(*cancelled);
}
