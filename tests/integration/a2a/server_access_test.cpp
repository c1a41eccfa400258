// Who the A2A server takes requests from (reagent::http's server rules, shared with the MCP server):
// Host and Origin (DNS rebinding, cross-site pages), Content-Type, the bearer token; and its accept loop
// when the process is out of file descriptors.

#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>

#include "a2a_fixture.hpp"
#include "descriptor_exhaustion.hpp"
#include "reagent/http/http_client.hpp"

using namespace reagent;
using namespace reagent::a2a;
using namespace reagent::a2a::test;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

const std::string kSend =
    R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1",)"
    R"("role":"user","parts":[{"kind":"text","text":"hi"}]}}})";

struct Call {
    std::string method = "POST";
    /// The Host (and URL) the request names; it is sent to the server's port on 127.0.0.1 whatever it is.
    std::string host = "127.0.0.1";
    std::string path;
    http::HttpHeaders headers;
    std::string body;
};

// One request to `server`, sent to 127.0.0.1 with the Host and headers of `call`. Callers name the Call
// before co_await: g++ 12 frees a temporary aggregate that lives across a co_await of a lambda coroutine
// twice (ASan caught it).
Task<http::HttpResponse> send(const Server& server, const Call& call) {
    http::HttpClient client;
    http::HttpRequest request;
    request.method = call.method;
    request.url = "http://" + call.host + ":" + std::to_string(server.port()) + call.path;
    request.connectAddress = "127.0.0.1";
    request.headers = call.headers;
    request.body = call.body;
    auto sending = client.send(std::move(request));
    auto response = co_await std::move(sending);
    REQUIRE(response);
    co_return std::move(*response);
}

http::HttpHeaders json(http::HttpHeaders headers = {}) {
    headers.set("Content-Type", "application/json");
    return headers;
}

void checkRefused(const http::HttpResponse& response, int status, const std::string& says) {
    INFO(response.body);
    CHECK(response.status == status);
    const auto body = parseResponse(response.body);
    REQUIRE_FALSE(body);
    CHECK(rpcCode(body.error()) == rpc::kInvalidRequest);
    CHECK(body.error().message.find(says) != std::string::npos);
}

}  // namespace

TEST_CASE("a2a server: a foreign Host or Origin gets 403, a POST that is not JSON 415",
          "[a2a][integration]") {
    ServerConfig config;
    config.allowedHosts = {"agent.example.com"};
    config.allowedOrigins = {"https://app.example.com"};
    withServer(echoRun, config, [](Server server) -> Task<void> {
        const std::string rpc = ServerConfig{}.rpcPath;
        // DNS rebinding: a name of another site, resolved to 127.0.0.1.
        const Call reboundCall{"POST", "evil.example.com", rpc, json(), kSend};
        auto rebound = co_await send(server, reboundCall);
        checkRefused(rebound, 403, "evil.example.com");
        const Call cardCall{"GET", "evil.example.com", std::string(kAgentCardPath), {}, {}};
        auto card = co_await send(server, cardCall);
        checkRefused(card, 403, "evil.example.com");
        // A web page of another origin.
        http::HttpHeaders fromPage = json();
        fromPage.set("Origin", "http://evil.example.com");
        const Call crossSiteCall{"POST", "127.0.0.1", rpc, fromPage, kSend};
        auto crossSite = co_await send(server, crossSiteCall);
        checkRefused(crossSite, 403, "evil.example.com");
        // A cross-site "simple" POST: text/plain, or a form.
        for (const auto* type : {"text/plain;charset=UTF-8", "application/x-www-form-urlencoded"}) {
            http::HttpHeaders plain;
            plain.set("Content-Type", type);
            const Call simpleCall{"POST", "localhost", rpc, plain, kSend};
            auto simple = co_await send(server, simpleCall);
            checkRefused(simple, 415, "application/json");
        }
        CHECK(server.runningTasks() == 0);
        // Local names, allowed names and origins are served.
        http::HttpHeaders allowed = json();
        allowed.set("Origin", "https://app.example.com");
        for (const auto* host : {"127.0.0.1", "localhost", "agent.example.com"}) {
            INFO(host);
            const Call servedCall{"POST", host, rpc, allowed, kSend};
            auto served = co_await send(server, servedCall);
            CHECK(served.status == 200);
            CHECK(served.body.find("echo: hi") != std::string::npos);
        }
    });
}

TEST_CASE("a2a server: with a bearer token, a request without it gets 401, and the client sends it",
          "[a2a][integration]") {
    ServerConfig config;
    config.bearerToken = "the-test-token";
    withServer(echoRun, config, [](Server server) -> Task<void> {
        const std::string rpc = ServerConfig{}.rpcPath;
        const Call cardCall{"GET", "127.0.0.1", std::string(kAgentCardPath), {}, {}};
        auto card = co_await send(server, cardCall);
        checkRefused(card, 401, "bearer token");
        CHECK(card.headers.find("WWW-Authenticate") == std::optional<std::string_view>("Bearer"));
        http::HttpHeaders wrong = json();
        wrong.set("Authorization", "Bearer the-test-tokeN");
        const Call refusedCall{"POST", "127.0.0.1", rpc, wrong, kSend};
        auto refused = co_await send(server, refusedCall);
        checkRefused(refused, 401, "bearer token");
        CHECK(refused.headers.find("WWW-Authenticate").value_or("").starts_with("Bearer"));
        CHECK(refused.body.find("the-test-tokeN") == std::string::npos);
        CHECK(server.runningTasks() == 0);

        ClientOptions options;
        auto connecting = Client::connect(server.baseUrl(), options);
        auto anonymous = co_await std::move(connecting);
        CHECK_FALSE(anonymous);  // the card is behind the token too

        options.headers.set("Authorization", "Bearer the-test-token");
        auto connectingWith = Client::connect(server.baseUrl(), options);
        auto client = co_await std::move(connectingWith);
        REQUIRE(client);
        auto sending = client->send(Message::userText("hello"));
        auto sent = co_await std::move(sending);
        REQUIRE(sent);
        auto answer = answerText(*sent);
        REQUIRE(answer);
        CHECK(*answer == "echo: hello");
    });
}

// Not under the sanitizers, whose vptr check needs a free descriptor (descriptor_exhaustion.hpp).
#if !defined(REAGENT_TEST_SANITIZED)
TEST_CASE(
    "a2a server: out of file descriptors, it waits without spinning and accepts again once they are free",
    "[a2a][integration]") {
    asio::io_context io;
    auto server = Server::bind(io.get_executor(), ServerConfig{}, testCard(), echoRun);
    REQUIRE(server);
    asio::cancellation_signal stop;
    bool stopped = false;
    asio::co_spawn(io, server->run(),
                   asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr) { stopped = true; }));
    io.poll();
    // A client connects and sends its request; the connection waits in the backlog.
    const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(client >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(server->port());
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    const std::string request =
        "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    REQUIRE(::send(client, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size()));
    {
        reagent::test::DescriptorExhaustion full;
        // While accept fails with EMFILE the loop pauses between tries instead of spinning.
        const auto cpuBefore = reagent::test::threadCpuTime();
        const auto wallBefore = std::chrono::steady_clock::now();
        io.run_for(400ms);
        const auto cpu = reagent::test::threadCpuTime() - cpuBefore;
        const auto wall = std::chrono::steady_clock::now() - wallBefore;
        INFO("CPU " << std::chrono::duration_cast<std::chrono::milliseconds>(cpu).count() << " ms in "
                    << std::chrono::duration_cast<std::chrono::milliseconds>(wall).count() << " ms");
        CHECK(cpu < wall / 10);
        full.release();
        // Descriptors are free again: the waiting connection is taken and answered.
        std::string reply;
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (reply.find("\r\n\r\n") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
            io.run_for(10ms);
            char buffer[4096];
            const ssize_t n = ::recv(client, buffer, sizeof buffer, MSG_DONTWAIT);
            if (n > 0) {
                reply.append(buffer, static_cast<std::size_t>(n));
            }
        }
        CHECK(reply.starts_with("HTTP/1.1 200"));
    }
    ::close(client);
    stop.emit(asio::cancellation_type::terminal);
    io.run_for(10s);
    CHECK(stopped);
}
#endif
