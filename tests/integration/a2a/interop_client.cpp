// reagent's A2A client against another implementation (the JS SDK's echo agent, tests/peers/a2a):
//   a2a_interop_client BASE_URL
// Sends and streams in 0.3 and 1.0, gets the task, cancels a slow one, and calls the agent through
// remoteAgentTool. Prints one line per step; exits 1 on the first failure.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>

#include "reagent/a2a/client.hpp"
#include "reagent/a2a/remote_agent_tool.hpp"

using namespace reagent;
using namespace reagent::a2a;
namespace asio = boost::asio;

namespace {

bool check(bool ok, const std::string& step, const std::string& detail) {
    std::cout << (ok ? "ok   " : "FAIL ") << step << ": " << detail << "\n";
    return ok;
}

Task<bool> exercise(std::string url, ProtocolVersion version) {
    const std::string v(toString(version));
    ClientOptions options;
    options.version = version;
    options.timeout = std::chrono::seconds(10);
    auto connecting = Client::connect(url, options);
    auto client = co_await std::move(connecting);
    if (!check(client.has_value(), v + " card", client ? client->card().name : client.error().describe())) {
        co_return false;
    }
    auto sending = client->send(Message::userText("hi " + v));
    auto sent = co_await std::move(sending);
    if (!check(sent && answerText(*sent).value_or("") == "echo: hi " + v, v + " send",
               sent ? answerText(*sent).value_or("?") : sent.error().describe())) {
        co_return false;
    }
    const std::string taskId = std::get<AgentTask>(*sent).id;
    auto getting = client->getTask(taskId);
    auto got = co_await std::move(getting);
    if (!check(got && got->status.state == TaskState::completed, v + " get",
               got ? std::string(toString(got->status.state)) : got.error().describe())) {
        co_return false;
    }
    auto events = std::make_shared<int>(0);
    Client::EventHandler onEvent = [events](const StreamEvent&) { ++*events; };
    auto streaming = client->stream(Message::userText("streamed " + v), onEvent);
    auto streamed = co_await std::move(streaming);
    if (!check(streamed && streamed->text() == "echo: streamed " + v, v + " stream",
               streamed ? streamed->text() + " (" + std::to_string(*events) + " events)"
                        : streamed.error().describe())) {
        co_return false;
    }
    // A slow task, canceled while it streams: the stream ends canceled.
    auto taskOf = std::make_shared<std::string>();
    Client::EventHandler remember = [taskOf](const StreamEvent& event) {
        if (const auto* task = std::get_if<AgentTask>(&event)) {
            *taskOf = task->id;
        }
    };
    auto ex = co_await asio::this_coro::executor;
    auto slow = client->stream(Message::userText("slow " + v), remember);
    auto outcome = std::make_shared<std::optional<expected<AgentTask, A2aError>>>();
    asio::co_spawn(ex, std::move(slow), [outcome](std::exception_ptr, expected<AgentTask, A2aError> value) {
        *outcome = std::move(value);
    });
    asio::steady_timer timer(ex);
    for (int i = 0; i < 100 && taskOf->empty(); ++i) {
        timer.expires_after(std::chrono::milliseconds(20));
        co_await timer.async_wait(asio::use_awaitable);
    }
    auto cancelling = client->cancelTask(*taskOf);
    auto cancelled = co_await std::move(cancelling);
    if (!check(cancelled && cancelled->status.state == TaskState::canceled, v + " cancel",
               cancelled ? std::string(toString(cancelled->status.state)) : cancelled.error().describe())) {
        co_return false;
    }
    for (int i = 0; i < 250 && !*outcome; ++i) {
        timer.expires_after(std::chrono::milliseconds(20));
        co_await timer.async_wait(asio::use_awaitable);
    }
    const bool streamCanceled = *outcome && **outcome && (**outcome)->status.state == TaskState::canceled;
    if (!check(streamCanceled, v + " canceled stream ends",
               !*outcome   ? "still open"
               : **outcome ? std::string(toString((**outcome)->status.state))
                           : (**outcome).error().describe())) {
        co_return false;
    }
    co_return true;
}

Task<bool> all(std::string url) {
    for (const auto version : {ProtocolVersion::v0_3, ProtocolVersion::v1_0}) {
        auto running = exercise(url, version);
        if (!co_await std::move(running)) {
            co_return false;
        }
    }
    auto tool = remoteAgentTool("js-echo", url);
    if (!tool) {
        co_return check(false, "remote agent tool", tool.error().describe());
    }
    auto calling = tool->handler(nlohmann::json{{"message", "via tool"}}, tools::ToolContext{});
    auto result = co_await std::move(calling);
    co_return check(result && *result == "echo: via tool", "remote agent tool",
                    result ? *result : result.error().describe());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: a2a_interop_client BASE_URL\n";
        return 2;
    }
    asio::io_context io;
    bool ok = false;
    asio::co_spawn(io, all(argv[1]), [&](std::exception_ptr error, bool value) {
        ok = !error && value;
        io.stop();  // background work (pooled connections) is not waited for
    });
    io.run_for(std::chrono::seconds(60));
    return ok ? 0 : 1;
}
