// The WebSocket transport against a real MCP server: the reference "everything" server behind
// tests/peers/mcp/ws_bridge.mjs, driven with raw JSON-RPC frames; and its failure paths.

#include <signal.h>
#include <unistd.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "peer_process.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "run_coro.hpp"  // sleepFor, elapsedMs

#if !defined(REAGENT_NODE) || !defined(REAGENT_PEERS_DIR)
#error "REAGENT_NODE and REAGENT_PEERS_DIR come from reagent_mcp_peers"
#endif

using namespace reagent;
using namespace reagent::mcp;
using namespace std::chrono_literals;
using nlohmann::json;
using reagent::test::elapsedMs;
using reagent::test::sleepFor;

namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;

// Puts the bridge in its own process group, so that killing the group also kills the servers it started.
struct NewProcessGroup {
    template <class Launcher>
    bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*) {
        ::setpgid(0, 0);
        return {};
    }
};

// Sets (or, with no value, removes) an environment variable for the life of the object.
class ScopedEnv {
  public:
    ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
        if (const char* old = std::getenv(name_.c_str())) {
            old_ = old;
        }
        set(value);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ~ScopedEnv() { set(old_); }

  private:
    void set(const std::optional<std::string>& value) {
        if (value) {
            ::setenv(name_.c_str(), value->c_str(), 1);
        } else {
            ::unsetenv(name_.c_str());
        }
    }
    std::string name_;
    std::optional<std::string> old_;
};

// tests/peers/mcp/ws_bridge.mjs run with the Node the MCP tests use; the destructor kills it and its servers.
class WsBridge {
  public:
    explicit WsBridge(std::vector<std::string> options = {}) {
        std::vector<std::string> args{std::string(REAGENT_PEERS_DIR) + "/mcp/ws_bridge.mjs", "0"};
        args.insert(args.end(), options.begin(), options.end());
        process_.emplace(io_, REAGENT_NODE, args, bp::process_stdio{input_, output_, {}}, NewProcessGroup{});
        asio::streambuf line;
        boost::system::error_code readError;
        asio::async_read_until(output_, line, '\n',
                               [&](boost::system::error_code ec, std::size_t) { readError = ec; });
        io_.run_for(10s);
        std::istream text(&line);
        std::string word;
        int port = 0;
        if (readError || !(text >> word >> port) || word != "listening" || port <= 0 || port > 65535) {
            throw std::runtime_error("ws_bridge.mjs did not print its port");
        }
        port_ = static_cast<std::uint16_t>(port);
    }
    WsBridge(const WsBridge&) = delete;
    WsBridge& operator=(const WsBridge&) = delete;
    ~WsBridge() {
        boost::system::error_code ignored;
        input_.close(ignored);
        if (process_) {
            ::kill(-static_cast<pid_t>(process_->id()), SIGKILL);
            process_->wait(ignored);
        }
    }

    [[nodiscard]] std::string url(const std::string& scheme = "ws",
                                  const std::string& host = "127.0.0.1") const {
        return scheme + "://" + host + ":" + std::to_string(port_) + "/mcp";
    }

  private:
    asio::io_context io_;
    asio::writable_pipe input_{io_};
    asio::readable_pipe output_{io_};
    std::optional<bp::process> process_;
    std::uint16_t port_ = 0;
};

// An io_context that outlives the transports of a test (declare it first): Asio's I/O objects must not
// outlive their context. `run` returns when the task is done (a failed REQUIRE included); the destructor
// lets what a destroyed transport left running finish.
class Loop {
  public:
    Loop() = default;
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;
    ~Loop() {
        io_.restart();
        io_.run_for(5s);
    }

    template <class T>
    T run(Task<T> task) {
        std::exception_ptr error;
        std::optional<std::conditional_t<std::is_void_v<T>, int, T>> value;
        if constexpr (std::is_void_v<T>) {
            asio::co_spawn(io_, std::move(task), [&](std::exception_ptr e) {
                error = e;
                value.emplace(0);
                io_.stop();
            });
        } else {
            asio::co_spawn(io_, std::move(task), [&](std::exception_ptr e, T v) {
                error = e;
                if (!e) value.emplace(std::move(v));
                io_.stop();
            });
        }
        io_.restart();
        io_.run();
        if (error) std::rethrow_exception(error);
        if constexpr (!std::is_void_v<T>) return std::move(*value);
    }

  private:
    asio::io_context io_;
};

ServerConfig wsConfig(std::string url) {
    ServerConfig config;
    config.name = "everything";
    config.transport = TransportKind::websocket;
    config.url = std::move(url);
    config.connectTimeout = 10s;
    return config;
}

std::string request(int id, const std::string& method, json params = nullptr) {
    json message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) {
        message["params"] = std::move(params);
    }
    return message.dump();
}

std::string initializeRequest() {
    const json params{{"protocolVersion", "2025-11-25"},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "reagent-tests"}, {"version", "0"}}}};
    return request(1, "initialize", params);
}

std::string echoRequest(int id, const std::string& text) {
    const json params{{"name", "echo"}, {"arguments", {{"message", text}}}};
    return request(id, "tools/call", params);
}

// The response with `id`; notifications and server requests in between are skipped.
Task<expected<json, McpError>> responseTo(Transport* transport, int id) {
    for (;;) {
        auto frame = co_await transport->receive();
        if (!frame) {
            co_return fail(frame.error());
        }
        auto message = json::parse(*frame);
        if (message.contains("id") && message["id"] == id && !message.contains("method")) {
            co_return message;
        }
    }
}

// Opens the transport and runs the initialize handshake; the initialize result.
Task<expected<json, McpError>> openAndInitialize(Transport* transport) {
    auto opened = co_await transport->open();
    if (!opened) {
        co_return fail(opened.error());
    }
    auto sent = co_await transport->send(initializeRequest());
    if (!sent) {
        co_return fail(sent.error());
    }
    auto reply = co_await responseTo(transport, 1);
    if (!reply) {
        co_return fail(reply.error());
    }
    const std::string initialized = json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump();
    auto notified = co_await transport->send(initialized);
    if (!notified) {
        co_return fail(notified.error());
    }
    co_return (*reply)["result"];
}

// Waits for the answer to a ping, so that what the server sends on `initialized` (a tools/list_changed
// notification) has been read and nothing more is on its way.
Task<bool> quiesce(Transport* transport) {
    auto sent = co_await transport->send(request(99, "ping"));
    if (!sent) {
        co_return false;
    }
    auto pong = co_await responseTo(transport, 99);
    co_return pong.has_value();
}

McpError openError(ServerConfig config) {
    Loop loop;
    auto transport = makeWebSocketTransport(config);
    auto opened = loop.run(transport->open());
    loop.run(transport->close());
    REQUIRE_FALSE(opened);
    return opened.error();
}

// Runs `task` as a child that `signal` can cancel; its result lands in `result`.
template <class T>
void spawnCancellable(Task<T> task, asio::cancellation_signal& signal, std::optional<T>& result,
                      const Executor& executor) {
    asio::co_spawn(executor, std::move(task),
                   asio::bind_cancellation_slot(signal.slot(), [&result](std::exception_ptr error, T value) {
                       if (error) {
                           std::rethrow_exception(error);
                       }
                       result = std::move(value);
                   }));
}

// Waits (up to 5 s) until `result` is set.
template <class T>
Task<void> waitFor(const std::optional<T>* result) {
    for (int i = 0; i < 500 && !result->has_value(); ++i) {
        co_await sleepFor(10ms);
    }
}

}  // namespace

TEST_CASE("WebSocket: initialize and tools/list and tools/call echo and ping with the everything server",
          "[mcp][websocket]") {
    WsBridge bridge;
    Loop loop;
    auto transport = makeWebSocketTransport(wsConfig(bridge.url()));
    Transport* t = transport.get();

    auto scenario = [](Transport* t) -> Task<void> {
        auto result = co_await openAndInitialize(t);
        REQUIRE(result);
        CHECK((*result)["protocolVersion"] == "2025-11-25");
        CHECK((*result)["serverInfo"]["name"] == "mcp-servers/everything");

        auto listSent = co_await t->send(request(2, "tools/list"));
        REQUIRE(listSent);
        auto tools = co_await responseTo(t, 2);
        REQUIRE(tools);
        bool hasEcho = false;
        for (const auto& tool : (*tools)["result"]["tools"]) {
            hasEcho = hasEcho || tool["name"] == "echo";
        }
        CHECK(hasEcho);

        auto echoSent = co_await t->send(echoRequest(3, "héllo over WebSocket"));
        REQUIRE(echoSent);
        auto echoed = co_await responseTo(t, 3);
        REQUIRE(echoed);
        CHECK((*echoed)["result"]["content"][0]["text"] == "Echo: héllo over WebSocket");

        // Concurrent sends go out whole; both pings are answered.
        using namespace asio::experimental::awaitable_operators;
        auto first = t->send(request(10, "ping"));
        auto second = t->send(request(11, "ping"));
        auto both = std::move(first) && std::move(second);
        auto [sentFirst, sentSecond] = co_await std::move(both);
        CHECK(sentFirst);
        CHECK(sentSecond);
        auto pong = co_await responseTo(t, 10);
        REQUIRE(pong);
        CHECK((*pong)["result"] == json::object());
        auto pong2 = co_await responseTo(t, 11);
        REQUIRE(pong2);

        co_await t->close();
        co_await t->close();
        auto after = co_await t->receive();
        REQUIRE_FALSE(after);
        CHECK(after.error().code == McpErrc::connection_closed);
        auto late = co_await t->send(request(12, "ping"));
        REQUIRE_FALSE(late);
        CHECK(late.error().code == McpErrc::connection_closed);
    };
    const auto start = std::chrono::steady_clock::now();
    loop.run(scenario(t));
    CHECK(elapsedMs(start) < 20'000);
}

TEST_CASE("WebSocket: the MCP client over the WebSocket transport", "[mcp][websocket][client]") {
    WsBridge bridge;
    Loop loop;
    auto scenario = [](ServerConfig config) -> Task<void> {
        // Arguments as named locals and the task made before co_await (g++ 12, see TOOLCHAIN.md).
        const ClientOptions options;
        auto connecting = reagent::mcp::connectAny(std::move(config), options);
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto& c = **client;
        CHECK(c.server().implementation.name == "mcp-servers/everything");
        auto tools = co_await c.listTools();
        REQUIRE(tools);
        CHECK_FALSE(tools->empty());
        const json arguments{{"message", "through the client"}};
        const CallOptions callOptions;
        auto calling = c.callTool("echo", arguments, callOptions);
        auto echoed = co_await std::move(calling);
        REQUIRE(echoed);
        CHECK(echoed->text == "Echo: through the client");
        auto pinged = co_await c.ping();
        CHECK(pinged);
        co_await c.close();
    };
    loop.run(scenario(wsConfig(bridge.url())));
}

TEST_CASE("WebSocket: nothing listening is connect_failed at once", "[mcp][websocket]") {
    const auto start = std::chrono::steady_clock::now();
    const reagent::test::ClosedPort closed;
    auto error = openError(wsConfig("ws://127.0.0.1:" + std::to_string(closed.port()) + "/mcp"));
    CHECK(error.code == McpErrc::connect_failed);
    CHECK_THAT(error.message, Catch::Contains("connect"));
    CHECK(elapsedMs(start) < 2000);
}

TEST_CASE("WebSocket: a server that does not select the mcp subprotocol is refused", "[mcp][websocket]") {
    SECTION("no subprotocol") {
        WsBridge bridge({"--subprotocol", "none"});
        auto error = openError(wsConfig(bridge.url()));
        CHECK(error.code == McpErrc::connect_failed);
        CHECK_THAT(error.message, Catch::Contains("subprotocol 'mcp'") && Catch::Contains("selected none"));
    }
    SECTION("another subprotocol") {
        WsBridge bridge({"--subprotocol", "graphql-ws"});
        auto error = openError(wsConfig(bridge.url()));
        CHECK(error.code == McpErrc::connect_failed);
        CHECK_THAT(error.message, Catch::Contains("'graphql-ws'"));
    }
}

TEST_CASE(
    "WebSocket: handshake headers are sent and a refused upgrade names its status but not the header values",
    "[mcp][websocket]") {
    WsBridge bridge({"--require-header", "authorization=Bearer right-token-1234"});
    SECTION("wrong token") {
        auto config = wsConfig(bridge.url());
        config.headers["Authorization"] = "Bearer wrong-token-5678";
        auto error = openError(config);
        CHECK(error.code == McpErrc::connect_failed);
        CHECK_THAT(error.message, Catch::Contains("HTTP 401"));
        CHECK_THAT(error.message, !Catch::Contains("wrong-token-5678"));
    }
    SECTION("right token") {
        auto config = wsConfig(bridge.url());
        config.headers["Authorization"] = "Bearer right-token-1234";
        Loop loop;
        auto transport = makeWebSocketTransport(config);
        auto scenario = [](Transport* t) -> Task<bool> {
            auto initialized = co_await openAndInitialize(t);
            co_await t->close();
            co_return initialized.has_value();
        };
        CHECK(loop.run(scenario(transport.get())));
    }
    SECTION("a header value with a line break is refused before connecting") {
        auto config = wsConfig(bridge.url());
        config.headers["X-Api-Key"] = "secret\r\nX-Injected: 1";
        auto error = openError(config);
        CHECK(error.code == McpErrc::invalid_config);
        CHECK_THAT(error.message, Catch::Contains("X-Api-Key") && !Catch::Contains("secret"));
    }
}

TEST_CASE("WebSocket: the server closing mid-call ends receive with connection_closed and its code",
          "[mcp][websocket]") {
    WsBridge bridge({"--close-on", "tools/call"});
    Loop loop;
    auto transport = makeWebSocketTransport(wsConfig(bridge.url()));
    auto scenario = [](Transport* t) -> Task<void> {
        auto initialized = co_await openAndInitialize(t);
        REQUIRE(initialized);
        auto callSent = co_await t->send(echoRequest(2, "never answered"));
        REQUIRE(callSent);
        auto reply = co_await responseTo(t, 2);
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == McpErrc::connection_closed);
        CHECK_THAT(reply.error().message,
                   Catch::Contains("code 1011") && Catch::Contains("fault injected by the test bridge"));
        auto late = co_await t->send(request(3, "ping"));
        REQUIRE_FALSE(late);
        CHECK(late.error().code == McpErrc::connection_closed);
        co_await t->close();
    };
    const auto start = std::chrono::steady_clock::now();
    loop.run(scenario(transport.get()));
    CHECK(elapsedMs(start) < 15'000);
}

TEST_CASE("WebSocket: a message over maxMessageBytes or a binary message is a protocol_error",
          "[mcp][websocket]") {
    SECTION("oversized") {
        WsBridge bridge;
        auto config = wsConfig(bridge.url());
        config.limits.maxMessageBytes = 64U << 10U;
        Loop loop;
        auto transport = makeWebSocketTransport(config);
        auto scenario = [](Transport* t) -> Task<void> {
            auto initialized = co_await openAndInitialize(t);
            REQUIRE(initialized);
            auto echoSent = co_await t->send(echoRequest(2, std::string(100'000, 'x')));
            REQUIRE(echoSent);
            auto reply = co_await responseTo(t, 2);
            REQUIRE_FALSE(reply);
            CHECK(reply.error().code == McpErrc::protocol_error);
            CHECK_THAT(reply.error().message, Catch::Contains("65536 bytes"));
            co_await t->close();
        };
        loop.run(scenario(transport.get()));
    }
    SECTION("binary") {
        WsBridge bridge({"--binary-on", "ping"});
        Loop loop;
        auto transport = makeWebSocketTransport(wsConfig(bridge.url()));
        auto scenario = [](Transport* t) -> Task<void> {
            auto initialized = co_await openAndInitialize(t);
            REQUIRE(initialized);
            auto pingSent = co_await t->send(request(2, "ping"));
            REQUIRE(pingSent);
            auto reply = co_await responseTo(t, 2);
            REQUIRE_FALSE(reply);
            CHECK(reply.error().code == McpErrc::protocol_error);
            CHECK_THAT(reply.error().message, Catch::Contains("binary"));
            co_await t->close();
        };
        loop.run(scenario(transport.get()));
    }
}

TEST_CASE(
    "WebSocket: a frame over the server's own limit closes the connection with 1009 and receive says so",
    "[mcp][websocket]") {
    WsBridge bridge({"--max-payload", "4096"});
    Loop loop;
    auto transport = makeWebSocketTransport(wsConfig(bridge.url()));
    auto scenario = [](Transport* t) -> Task<void> {
        auto initialized = co_await openAndInitialize(t);
        REQUIRE(initialized);
        auto sent = co_await t->send(echoRequest(2, std::string(10'000, 'y')));
        // The server refuses the frame once it has read its header: the write either ends first, or
        // meets the server's close (Beast writes a masked frame in 4 KB pieces); both name code 1009.
        if (!sent) {
            CHECK(sent.error().code == McpErrc::connection_closed);
            CHECK_THAT(sent.error().message, Catch::Contains("code 1009"));
        }
        auto reply = co_await responseTo(t, 2);
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == McpErrc::connection_closed);
        CHECK_THAT(reply.error().message, Catch::Contains("code 1009"));
        co_await t->close();
    };
    loop.run(scenario(transport.get()));
}

TEST_CASE("WebSocket: a cancelled receive returns cancelled and the transport stays usable",
          "[mcp][websocket]") {
    WsBridge bridge;
    Loop loop;
    auto transport = makeWebSocketTransport(wsConfig(bridge.url()));
    auto scenario = [](Transport* t) -> Task<void> {
        auto initialized = co_await openAndInitialize(t);
        REQUIRE(initialized);
        auto quiet = co_await quiesce(t);
        REQUIRE(quiet);
        const Executor executor = co_await asio::this_coro::executor;
        asio::cancellation_signal signal;
        std::optional<expected<std::string, McpError>> pending;
        spawnCancellable(t->receive(), signal, pending, executor);
        co_await sleepFor(100ms);
        CHECK_FALSE(pending.has_value());
        signal.emit(asio::cancellation_type::terminal);
        co_await waitFor(&pending);
        REQUIRE(pending.has_value());
        REQUIRE_FALSE(*pending);
        CHECK(pending->error().code == McpErrc::cancelled);

        auto pingSent = co_await t->send(request(2, "ping"));
        REQUIRE(pingSent);
        auto pong = co_await responseTo(t, 2);
        CHECK(pong);
        co_await t->close();
    };
    loop.run(scenario(transport.get()));
}

TEST_CASE("WebSocket: close ends a pending receive with connection_closed promptly", "[mcp][websocket]") {
    WsBridge bridge;
    Loop loop;
    auto transport = makeWebSocketTransport(wsConfig(bridge.url()));
    auto scenario = [](Transport* t) -> Task<void> {
        auto initialized = co_await openAndInitialize(t);
        REQUIRE(initialized);
        auto quiet = co_await quiesce(t);
        REQUIRE(quiet);
        const Executor executor = co_await asio::this_coro::executor;
        asio::cancellation_signal signal;
        std::optional<expected<std::string, McpError>> pending;
        spawnCancellable(t->receive(), signal, pending, executor);
        co_await sleepFor(50ms);
        const auto start = std::chrono::steady_clock::now();
        co_await t->close();
        CHECK(elapsedMs(start) < 1500);
        co_await waitFor(&pending);
        REQUIRE(pending.has_value());
        REQUIRE_FALSE(*pending);
        CHECK(pending->error().code == McpErrc::connection_closed);
        co_await t->close();
    };
    loop.run(scenario(transport.get()));
}

TEST_CASE(
    "WebSocket: a server that never answers the upgrade bounds open by connectTimeout and open can be "
    "cancelled",
    "[mcp][websocket]") {
    // Listening but never accepting: the TCP connection completes, the upgrade is never answered.
    asio::io_context io;
    asio::ip::tcp::acceptor silent(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    const std::string url = "ws://127.0.0.1:" + std::to_string(silent.local_endpoint().port()) + "/mcp";
    SECTION("timeout") {
        auto config = wsConfig(url);
        config.connectTimeout = 300ms;
        const auto start = std::chrono::steady_clock::now();
        auto error = openError(config);
        CHECK(error.code == McpErrc::connect_failed);
        CHECK_THAT(error.message, Catch::Contains("300 ms"));
        CHECK(elapsedMs(start) < 2000);
    }
    SECTION("cancelled") {
        Loop loop;
        auto transport = makeWebSocketTransport(wsConfig(url));
        auto scenario = [](Transport* t) -> Task<void> {
            const Executor executor = co_await asio::this_coro::executor;
            asio::cancellation_signal signal;
            std::optional<expected<void, McpError>> opened;
            spawnCancellable(t->open(), signal, opened, executor);
            co_await sleepFor(100ms);
            signal.emit(asio::cancellation_type::terminal);
            co_await waitFor(&opened);
            REQUIRE(opened.has_value());
            REQUIRE_FALSE(*opened);
            CHECK(opened->error().code == McpErrc::cancelled);
            co_await t->close();
        };
        const auto start = std::chrono::steady_clock::now();
        loop.run(scenario(transport.get()));
        CHECK(elapsedMs(start) < 2000);
    }
}

TEST_CASE("WebSocket over TLS: wss:// checks the certificate against the trusted ones and the host name",
          "[mcp][websocket][tls]") {
    const reagent::test::SelfSignedCert cert;
    WsBridge bridge({"--tls-cert", cert.certFile(), "--tls-key", cert.keyFile()});
    auto exchange = [](Transport* t) -> Task<std::string> {
        auto initialized = co_await openAndInitialize(t);
        if (!initialized) {
            co_return initialized.error().describe();
        }
        auto sent = co_await t->send(echoRequest(2, "over TLS"));
        REQUIRE(sent);
        auto echoed = co_await responseTo(t, 2);
        REQUIRE(echoed);
        co_await t->close();
        co_return (*echoed)["result"]["content"][0]["text"].get<std::string>();
    };
    SECTION("trusted (OpenSSL's SSL_CERT_FILE names the test certificate), by host name and by address") {
        const ScopedEnv trust("SSL_CERT_FILE", cert.certFile());
        for (const std::string host : {"localhost", "127.0.0.1"}) {
            Loop loop;
            auto transport = makeWebSocketTransport(wsConfig(bridge.url("wss", host)));
            CHECK(loop.run(exchange(transport.get())) == "Echo: over TLS");
        }
    }
    SECTION("trusted, but issued for another name") {
        // The machine's own name, when it resolves to 127.0.0.1 (the certificate names localhost only).
        char name[256] = {};
        asio::io_context io;
        asio::ip::tcp::resolver resolver(io);
        boost::system::error_code ec;
        const bool named = ::gethostname(name, sizeof name - 1) == 0 && std::string(name) != "localhost";
        const auto addresses = named ? resolver.resolve(name, "0", ec) : decltype(resolver.resolve("", "")){};
        bool loopback = false;
        for (const auto& entry : addresses) {
            loopback = loopback || entry.endpoint().address() == asio::ip::make_address("127.0.0.1");
        }
        if (!named || ec || !loopback) {
            WARN("skipped: the host name does not resolve to 127.0.0.1");
            return;
        }
        const ScopedEnv trust("SSL_CERT_FILE", cert.certFile());
        auto error = openError(wsConfig(bridge.url("wss", name)));
        CHECK(error.code == McpErrc::connect_failed);
        CHECK_THAT(error.message, Catch::Contains("TLS handshake") && Catch::Contains("certificate"));
    }
    SECTION("untrusted") {
        const ScopedEnv trust("SSL_CERT_FILE", std::nullopt);
        auto error = openError(wsConfig(bridge.url("wss", "localhost")));
        CHECK(error.code == McpErrc::connect_failed);
        CHECK_THAT(error.message, Catch::Contains("TLS handshake") && Catch::Contains("certificate"));
    }
    SECTION("plain WebSocket to a TLS port") {
        auto error = openError(wsConfig(bridge.url("ws", "127.0.0.1")));
        CHECK(error.code == McpErrc::connect_failed);
    }
}

TEST_CASE("WebSocket: URLs that are not ws:// or wss:// are invalid_config and close before open is harmless",
          "[mcp][websocket]") {
    auto http = openError(wsConfig("http://127.0.0.1:1/mcp?token=abc"));
    CHECK(http.code == McpErrc::invalid_config);
    CHECK_THAT(http.message, !Catch::Contains("abc"));

    Loop loop;
    auto transport = makeWebSocketTransport(wsConfig("ws://127.0.0.1:1/mcp"));
    REQUIRE(transport);
    loop.run(transport->close());
    loop.run(transport->close());
    auto received = loop.run(transport->receive());
    REQUIRE_FALSE(received);
    CHECK(received.error().code == McpErrc::connection_closed);
}
