// Our client against our server over loopback: send, stream, get, cancel, concurrency, limits, faults.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include "a2a_fixture.hpp"
#include "peer_process.hpp"
#include "reagent/a2a/remote_agent_tool.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/telemetry/telemetry.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::a2a;
using namespace reagent::a2a::test;
namespace asio = boost::asio;

namespace {

Task<void> sleepMs(int ms) {
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(ms));
    (void)co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
}

// Client::connect, reduced to the card's name (co_spawn needs a default-constructible result).
Task<expected<std::string, A2aError>> cardName(std::string url) {
    auto connecting = Client::connect(std::move(url));
    auto client = co_await std::move(connecting);
    if (!client) {
        co_return fail(client.error());
    }
    co_return client->card().name;
}

ClientOptions forced(ProtocolVersion version) {
    ClientOptions options;
    options.version = version;
    return options;
}

}  // namespace

TEST_CASE("send, get and stream in both protocol versions", "[a2a][integration]") {
    for (const auto version : {ProtocolVersion::v0_3, ProtocolVersion::v1_0}) {
        withServer(echoRun, ServerConfig{}, [version](Server server) -> Task<void> {
            auto connecting = Client::connect(server.baseUrl(), forced(version));
            auto client = co_await std::move(connecting);
            REQUIRE(client);
            CHECK(client->version() == version);
            CHECK(client->card().name == "test-agent");
            CHECK(client->card().streaming);

            auto sending = client->send(Message::userText("hello"));
            auto sent = co_await std::move(sending);
            REQUIRE(sent);
            const auto& task = std::get<AgentTask>(*sent);
            CHECK(task.status.state == TaskState::completed);
            CHECK(task.text() == "echo: hello");
            CHECK(answerText(*sent).value() == "echo: hello");

            auto getting = client->getTask(task.id);
            auto got = co_await std::move(getting);
            REQUIRE(got);
            CHECK(got->text() == "echo: hello");

            auto missing = client->getTask("nope");
            auto notFound = co_await std::move(missing);
            REQUIRE_FALSE(notFound);
            CHECK(rpcCode(notFound.error()) == rpc::kTaskNotFound);

            auto cancelling = client->cancelTask(task.id);
            auto notCancelable = co_await std::move(cancelling);
            REQUIRE_FALSE(notCancelable);
            CHECK(rpcCode(notCancelable.error()) == rpc::kTaskNotCancelable);

            auto events = std::make_shared<std::vector<StreamEvent>>();
            Client::EventHandler onEvent = [events](const StreamEvent& event) { events->push_back(event); };
            auto streaming = client->stream(Message::userText("world"), onEvent);
            auto streamed = co_await std::move(streaming);
            REQUIRE(streamed);
            CHECK(streamed->status.state == TaskState::completed);
            CHECK(streamed->text() == "echo: world");
            // submitted task, working, progress, artifact, completed
            REQUIRE(events->size() == 5);
            CHECK(std::holds_alternative<AgentTask>((*events)[0]));
            CHECK(std::get<StatusUpdate>((*events)[2]).status.message->text() == "thinking about: world");
            CHECK(std::holds_alternative<ArtifactUpdate>((*events)[3]));
            CHECK(std::get<StatusUpdate>((*events)[4]).status.state == TaskState::completed);
        });
    }
}

TEST_CASE("a failing run ends the task failed with the agent's words", "[a2a][integration]") {
    withServer(failingRun, ServerConfig{}, [](Server server) -> Task<void> {
        auto connecting = Client::connect(server.baseUrl());
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto sending = client->send(Message::userText("x"));
        auto sent = co_await std::move(sending);
        REQUIRE(sent);
        auto text = answerText(*sent);
        REQUIRE_FALSE(text);
        CHECK(text.error().code == A2aErrc::task_failed);
        CHECK(text.error().message.find("the model is unavailable") != std::string::npos);
    });
}

TEST_CASE("a traced server spans each request in the caller's trace, runs the task under it, and times it",
          "[a2a][integration][telemetry]") {
    namespace telemetry = reagent::telemetry;
    auto sink = std::make_shared<telemetry::InMemorySpanSink>();
    ServerConfig config;
    config.telemetry = std::make_shared<telemetry::Telemetry>(telemetry::SamplerConfig{}, sink);
    auto seen = std::make_shared<SpanContext>();
    TracedRunFunction run = [seen](std::string prompt,
                                   TaskContext context) -> Task<expected<std::string, std::string>> {
        *seen = context.trace;
        co_return "echo: " + prompt;
    };
    const auto caller =
        telemetry::parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").value();
    withServer(run, config, [caller](Server server) -> Task<void> {
        auto connecting = Client::connect(server.baseUrl());
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto sending = client->send(Message::userText("x"), caller);
        auto sent = co_await std::move(sending);
        REQUIRE(sent);
        auto asking = client->getTask("no-such-task");
        auto asked = co_await std::move(asking);
        REQUIRE_FALSE(asked);
    });
    const auto spans = sink->spans();
    REQUIRE(spans.size() == 3);  // the card, the send, the task asked for
    CHECK(spans[0].name == "GET /.well-known/agent-card.json");
    const telemetry::SpanData& send = spans[1];
    CHECK(send.name == "POST /a2a/jsonrpc");
    CHECK(send.kind == telemetry::SpanKind::server);
    CHECK(send.context.traceId == caller.traceId);
    CHECK(send.parentSpanId == caller.spanId);
    CHECK(*seen == send.context);  // the task's run continues the server's span
    const auto statusOf = [](const telemetry::SpanData& span) {
        for (const auto& attribute : span.attributes) {
            if (attribute.key == "http.response.status_code") {
                return std::get<std::int64_t>(attribute.value);
            }
        }
        return std::int64_t{-1};
    };
    CHECK(statusOf(send) == 200);
    const auto text = [](const telemetry::SpanData& span, const std::string& key) {
        for (const auto& attribute : span.attributes) {
            if (attribute.key == key) {
                return std::get<std::string>(attribute.value);
            }
        }
        return std::string("(none)");
    };
    CHECK(text(send, "rpc.system.name") == "jsonrpc");
    CHECK(text(send, "rpc.method") == "SendMessage");
    CHECK(text(send, "jsonrpc.protocol.version") == "2.0");
    CHECK(text(send, "jsonrpc.request.id") != "(none)");
    CHECK(text(send, "error.type") == "(none)");
    CHECK(send.status == telemetry::StatusCode::unset);
    // A JSON-RPC error comes in a 200; the span names it by its code.
    const telemetry::SpanData& missing = spans[2];
    CHECK(statusOf(missing) == 200);
    CHECK(text(missing, "rpc.method") == "GetTask");
    CHECK(text(missing, "rpc.response.status_code") == std::to_string(reagent::a2a::rpc::kTaskNotFound));
    CHECK(text(missing, "error.type") == std::to_string(reagent::a2a::rpc::kTaskNotFound));
    CHECK(missing.status == telemetry::StatusCode::error);

    const auto metrics = config.telemetry->collectMetrics();
    REQUIRE(metrics.size() == 1);
    CHECK(metrics[0].name == "http.server.request.duration");
    std::uint64_t requests = 0;
    for (const auto& point : metrics[0].points) {
        requests += point.count;
    }
    CHECK(requests == 3);
}

TEST_CASE("tasks/cancel cancels a running task and its stream ends canceled", "[a2a][integration]") {
    withServer(slowRun, ServerConfig{}, [](Server server) -> Task<void> {
        auto connecting = Client::connect(server.baseUrl());
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto taskId = std::make_shared<std::string>();
        Client::EventHandler onEvent = [taskId](const StreamEvent& event) {
            if (const auto* task = std::get_if<AgentTask>(&event)) {
                *taskId = task->id;
            }
        };
        auto ex = co_await asio::this_coro::executor;
        auto streamTask = client->stream(Message::userText("slow"), onEvent);
        auto streamed = asio::co_spawn(ex, std::move(streamTask), asio::deferred);
        auto canceller = [](Client c,
                            std::shared_ptr<std::string> id) -> Task<expected<AgentTask, A2aError>> {
            while (id->empty()) {
                co_await sleepMs(10);
            }
            auto cancelling = c.cancelTask(*id);
            co_return co_await std::move(cancelling);
        };
        auto cancelTask = canceller(*client, taskId);
        auto cancelled = asio::co_spawn(ex, std::move(cancelTask), asio::deferred);
        const auto start = std::chrono::steady_clock::now();
        auto group = asio::experimental::make_parallel_group(std::move(streamed), std::move(cancelled));
        auto [order, e1, streamResult, e2, cancelResult] =
            co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
        (void)order;
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        REQUIRE(cancelResult);
        CHECK(cancelResult->status.state == TaskState::canceled);
        REQUIRE(streamResult);
        CHECK(streamResult->status.state == TaskState::canceled);
        CHECK(server.runningTasks() == 0);
    });
}

TEST_CASE("many concurrent tasks, and the concurrency limit", "[a2a][integration]") {
    withServer(echoRun, ServerConfig{}, [](Server server) -> Task<void> {
        auto connecting = Client::connect(server.baseUrl());
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        std::vector<int> inputs(32);
        for (int i = 0; i < 32; ++i) {
            inputs[static_cast<std::size_t>(i)] = i;
        }
        const Client shared = *client;
        auto send = [shared](int& i) { return shared.send(Message::userText("n" + std::to_string(i))); };
        auto running = parallelMap(std::move(inputs), 32, send);
        auto results = co_await std::move(running);
        REQUIRE(results.size() == 32);
        for (std::size_t i = 0; i < results.size(); ++i) {
            REQUIRE(results[i]);
            REQUIRE(*results[i]);
            CHECK(answerText(**results[i]).value() == "echo: n" + std::to_string(i));
        }
    });
    ServerConfig limited;
    limited.maxConcurrentTasks = 1;
    withServer(slowRun, limited, [](Server server) -> Task<void> {
        ClientOptions options;
        options.timeout = std::chrono::milliseconds(300);
        auto connecting = Client::connect(server.baseUrl(), options);
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto ex = co_await asio::this_coro::executor;
        auto first = client->send(Message::userText("occupies the slot"));
        asio::co_spawn(ex, std::move(first), asio::detached);
        co_await sleepMs(50);
        auto sending = client->send(Message::userText("one too many"));
        auto second = co_await std::move(sending);
        REQUIRE_FALSE(second);
        CHECK(rpcCode(second.error()) == rpc::kUnsupportedOperation);
        CHECK(second.error().message.find("maxConcurrentTasks") != std::string::npos);
    });
}

TEST_CASE("a slow remote agent times out and its task is canceled", "[a2a][integration]") {
    withServer(slowRun, ServerConfig{}, [](Server server) -> Task<void> {
        ClientOptions options;
        options.timeout = std::chrono::milliseconds(300);
        auto connecting = Client::connect(server.baseUrl(), options);
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        const auto start = std::chrono::steady_clock::now();
        auto streaming = client->stream(Message::userText("slow"), nullptr);
        auto streamed = co_await std::move(streaming);
        REQUIRE_FALSE(streamed);
        CHECK(streamed.error().code == A2aErrc::timeout);
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
        // The background tasks/cancel reaches the server.
        for (int i = 0; i < 100 && server.runningTasks() > 0; ++i) {
            co_await sleepMs(20);
        }
        CHECK(server.runningTasks() == 0);
    });
}

TEST_CASE("body size limit answers 413 with a JSON-RPC error", "[a2a][integration]") {
    ServerConfig config;
    config.maxBodyBytes = 1024;
    withServer(echoRun, config, [](Server server) -> Task<void> {
        http::HttpClient http;
        http::HttpRequest request;
        request.method = "POST";
        request.url = server.card().interfaces.front().url;
        request.body = std::string(4096, 'x');
        auto sending = http.send(std::move(request));
        auto response = co_await std::move(sending);
        REQUIRE(response);
        CHECK(response->status == 413);
        CHECK(response->body.find("maxBodyBytes") != std::string::npos);
        CHECK(rpcCode(parseResponse(response->body).error()) == rpc::kInvalidRequest);
    });
}

TEST_CASE("a request nested 100,000 deep answers a parse error and the server goes on",
          "[a2a][integration]") {
    ServerConfig config;
    config.maxBodyBytes = 1024 * 1024;
    withServer(echoRun, config, [](Server server) -> Task<void> {
        http::HttpClient http;
        http::HttpRequest request;
        request.method = "POST";
        request.url = server.card().interfaces.front().url;
        request.headers.set("Content-Type", "application/json");
        request.body = R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":)" +
                       std::string(100000, '[') + std::string(100000, ']') + "}";
        auto sending = http.send(std::move(request));
        auto response = co_await std::move(sending);
        REQUIRE(response);
        const auto error = parseResponse(response->body);
        REQUIRE_FALSE(error);
        CHECK(rpcCode(error.error()) == rpc::kParseError);
        CHECK(error.error().message.find("deeper than 512") != std::string::npos);

        auto connecting = Client::connect(server.baseUrl());
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto replying = client->send(Message::userText("still there?"));
        auto reply = co_await std::move(replying);
        REQUIRE(reply);
        CHECK(answerText(*reply).value() == "echo: still there?");
    });
}

TEST_CASE("graceful shutdown cancels running tasks and ends their streams", "[a2a][integration]") {
    asio::io_context io;
    auto server = Server::bind(io.get_executor(), ServerConfig{}, testCard(), slowRun);
    REQUIRE(server);
    asio::cancellation_signal stop;
    bool stopped = false;
    asio::co_spawn(io, server->run(),
                   asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr) { stopped = true; }));
    std::optional<expected<AgentTask, A2aError>> outcome;
    auto body = [](Server s, asio::cancellation_signal* signal) -> Task<expected<AgentTask, A2aError>> {
        Client client(s.card());
        auto ex = co_await asio::this_coro::executor;
        asio::steady_timer timer(ex, std::chrono::milliseconds(200));
        timer.async_wait(
            [signal](boost::system::error_code) { signal->emit(asio::cancellation_type::terminal); });
        auto streaming = client.stream(Message::userText("slow"), nullptr);
        co_return co_await std::move(streaming);
    };
    asio::co_spawn(io, body(*server, &stop), [&](std::exception_ptr, expected<AgentTask, A2aError> value) {
        outcome = std::move(value);
    });
    io.run_for(std::chrono::seconds(10));
    CHECK(stopped);
    REQUIRE(outcome);
    REQUIRE(*outcome);
    CHECK((*outcome)->status.state == TaskState::canceled);
}

TEST_CASE("a remote agent that is down, or whose card is malformed", "[a2a][integration]") {
    const reagent::test::ClosedPort closed;
    const std::string down = closed.url();
    auto unreachable = reagent::test::runCoro(cardName(down));
    REQUIRE_FALSE(unreachable);
    CHECK(unreachable.error().code == A2aErrc::unreachable);

    // A tiny loopback peer that answers every request with `body`.
    for (const std::string& body : {std::string("{not json"), std::string(R"({"name":"x"})"),
                                    std::string(R"({"name":"x","url":"ftp://nowhere"})")}) {
        asio::io_context io;
        asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        const auto port = acceptor.local_endpoint().port();
        auto peer = [](asio::ip::tcp::acceptor& a, std::string reply) -> Task<void> {
            auto socket = co_await a.async_accept(asio::use_awaitable);
            std::string request;
            co_await asio::async_read_until(socket, asio::dynamic_buffer(request), "\r\n\r\n",
                                            asio::use_awaitable);
            std::string response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                   std::to_string(reply.size()) + "\r\nConnection: close\r\n\r\n" + reply;
            co_await asio::async_write(socket, asio::buffer(response), asio::use_awaitable);
        };
        asio::co_spawn(io, peer(acceptor, body), asio::detached);
        std::optional<expected<std::string, A2aError>> result;
        asio::co_spawn(
            io, cardName("http://127.0.0.1:" + std::to_string(port)),
            [&](std::exception_ptr, expected<std::string, A2aError> value) { result = std::move(value); });
        io.run_for(std::chrono::seconds(10));
        REQUIRE(result);
        REQUIRE_FALSE(*result);
        CHECK(result->error().code == A2aErrc::malformed_card);
        CHECK(result->error().message.find("agent-card.json") != std::string::npos);
    }
}

TEST_CASE("remoteAgentTool: the reply, and failures naming the remote agent", "[a2a][integration][tool]") {
    withServer(echoRun, ServerConfig{}, [](Server server) -> Task<void> {
        auto tool = remoteAgentTool("helper", server.baseUrl());
        REQUIRE(tool);
        CHECK(tool->definition.name == "helper");
        auto initialising = tool->init();
        auto initialised = co_await std::move(initialising);
        REQUIRE(initialised);
        auto progress = std::make_shared<std::vector<std::string>>();
        tools::ToolContext context;
        context.progress = [progress](const tools::ToolProgress& p) { progress->push_back(p.message); };
        nlohmann::json args = {{"message", "ping"}};
        auto calling = tool->handler(args, context);
        auto result = co_await std::move(calling);
        REQUIRE(result);
        CHECK(*result == "echo: ping");
        REQUIRE(progress->size() == 1);
        CHECK(progress->front() == "thinking about: ping");
    });
    withServer(failingRun, ServerConfig{}, [](Server server) -> Task<void> {
        auto tool = remoteAgentTool("helper", server.baseUrl());
        REQUIRE(tool);
        nlohmann::json args = {{"message", "ping"}};
        auto calling = tool->handler(args, tools::ToolContext{});
        auto result = co_await std::move(calling);
        REQUIRE_FALSE(result);
        CHECK(result.error().message.find("remote agent 'helper'") != std::string::npos);
        CHECK(result.error().message.find("the model is unavailable") != std::string::npos);
        CHECK(result.error().details["a2a"] == "task_failed");
    });
    const reagent::test::ClosedPort closed;
    const std::string down = closed.url();
    auto tool = remoteAgentTool("helper", down);
    REQUIRE(tool);
    auto result =
        reagent::test::runCoro(tool->handler(nlohmann::json{{"message", "x"}}, tools::ToolContext{}));
    REQUIRE_FALSE(result);
    CHECK(result.error().code == tools::ToolErrc::init_failed);
    CHECK(result.error().message.find("remote agent 'helper' (" + down + ")") != std::string::npos);
    CHECK(result.error().message.find("unreachable") != std::string::npos);
}

TEST_CASE("a non-blocking send answers at once, then the task is polled and canceled", "[a2a][integration]") {
    withServer(slowRun, ServerConfig{}, [](Server server) -> Task<void> {
        http::HttpClient http;
        http::HttpRequest request;
        request.method = "POST";
        request.url = server.card().interfaces.front().url;
        Message message = Message::userText("slow");
        nlohmann::json params = sendParams(message, ProtocolVersion::v1_0);
        params["configuration"] = {{"returnImmediately", true}};
        request.body = makeRequest(Method::send, ProtocolVersion::v1_0, params, 1);
        const auto start = std::chrono::steady_clock::now();
        auto sending = http.send(std::move(request));
        auto response = co_await std::move(sending);
        REQUIRE(response);
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
        auto result = parseResponse(response->body);
        REQUIRE(result);
        auto sent = parseSendResult(*result);
        REQUIRE(sent);
        const auto& task = std::get<AgentTask>(*sent);
        CHECK_FALSE(isTerminal(task.status.state));
        Client client(server.card());
        auto getting = client.getTask(task.id);
        auto got = co_await std::move(getting);
        REQUIRE(got);
        CHECK(got->status.state == TaskState::working);
        auto cancelling = client.cancelTask(task.id);
        auto cancelled = co_await std::move(cancelling);
        REQUIRE(cancelled);
        CHECK(cancelled->status.state == TaskState::canceled);
    });
}
