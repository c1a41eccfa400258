// The MCP client's rules with no I/O (libs/mcp/client/src/client_session.hpp), step by step: the handshake,
// the request table, deadlines and cancellation, what the server sends, drops, reconnection and giving up,
// the retry rule, and the results read. The driver over a transport is tested in client_test.cpp.
#include "client_session.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

using nlohmann::json;
using namespace std::chrono_literals;
using reagent::mcp::McpErrc;
using reagent::mcp::McpError;
using reagent::mcp::ServerConfig;
using reagent::mcp::detail::ClientSession;
using reagent::mcp::detail::Clock;
using reagent::mcp::detail::Offer;
using reagent::mcp::detail::Phase;

namespace {

ServerConfig serverConfig() {
    ServerConfig config;
    config.name = "files";
    config.command = "unused";
    config.maxReconnects = 2;
    config.reconnectDelay = 100ms;
    return config;
}

ClientSession session(Offer offer = {}) {
    offer.clientInfo = {"reagent", "0.1.0", "tester"};
    return ClientSession(serverConfig(), offer);
}

std::string response(std::int64_t id, const json& result) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump();
}

const std::optional<std::vector<reagent::mcp::Root>> kNoRoots;

}  // namespace

TEST_CASE("the handshake: initialize's params follow the offer, the result's version is checked",
          "[mcp][client-session]") {
    Offer offer;
    offer.roots = true;
    offer.sampling = true;
    auto client = session(offer);
    const json params = client.initializeParams();
    CHECK(params["protocolVersion"] == "2025-11-25");
    CHECK(params["clientInfo"] == json{{"name", "reagent"}, {"version", "0.1.0"}, {"title", "tester"}});
    CHECK(params["capabilities"].contains("roots"));
    CHECK(params["capabilities"].contains("sampling"));
    CHECK_FALSE(params["capabilities"].contains("elicitation"));

    auto refused = client.acceptInitialize(json{{"protocolVersion", "1999-01-01"}});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == McpErrc::unsupported_version);
    CHECK_THAT(refused.error().message, Catch::Contains("MCP server 'files'"));
    CHECK_THAT(refused.error().message, Catch::Contains("2024-11-05"));

    // The HTTP+SSE era's version is accepted from a server, though the client offers the newest.
    auto legacy = session(offer).acceptInitialize(
        json{{"protocolVersion", "2024-11-05"}, {"serverInfo", {{"name", "old"}, {"version", "1"}}}});
    REQUIRE(legacy);
    CHECK(legacy->protocolVersion == "2024-11-05");

    auto accepted = client.acceptInitialize(json{{"protocolVersion", "2025-06-18"},
                                                 {"serverInfo", {{"name", "srv"}, {"version", "2"}}},
                                                 {"capabilities", {{"tools", json::object()}}},
                                                 {"instructions", "be nice"}});
    REQUIRE(accepted);
    CHECK(accepted->protocolVersion == "2025-06-18");
    CHECK(accepted->implementation.name == "srv");
    CHECK(accepted->instructions == "be nice");
    CHECK(json::parse(client.initializedNotification())["method"] == "notifications/initialized");

    CHECK(client.phase() == Phase::connecting);
    client.connected(*accepted, Clock::now());
    CHECK(client.phase() == Phase::connected);
    CHECK(client.server().implementation.name == "srv");

    const McpError failed = client.handshakeFailed(McpError{McpErrc::remote_error, "boom"});
    CHECK(failed.code == McpErrc::connect_failed);
    CHECK(failed.message == "MCP server 'files' did not initialise: boom");
    CHECK(client.handshakeFailed(McpError{McpErrc::timeout, "slow"}).code == McpErrc::timeout);
}

TEST_CASE(
    "the request table: responses reach their own request in any order, late and unknown ones are "
    "problems",
    "[mcp][client-session]") {
    auto client = session();
    auto first = client.startRequest("tools/list", json::object(), false);
    auto second = client.startRequest("ping", nullptr, false);
    CHECK(first.id != second.id);
    CHECK(client.waiting() == 2);

    auto effects = client.receive(response(second.id, json{{"b", 2}}), kNoRoots);
    REQUIRE(effects.completions.size() == 1);
    CHECK(effects.completions[0].id == second.id);
    CHECK((*effects.completions[0].outcome)["b"] == 2);
    effects = client.receive(response(first.id, json{{"a", 1}}), kNoRoots);
    REQUIRE(effects.completions.size() == 1);
    CHECK(effects.completions[0].id == first.id);
    CHECK(client.waiting() == 0);

    effects = client.receive(response(first.id, json::object()), kNoRoots);  // answered already
    CHECK(effects.completions.empty());
    CHECK(effects.problems.size() == 1);
    effects = client.receive("{not json", kNoRoots);
    CHECK(effects.problems.size() == 1);
}

TEST_CASE(
    "deadlines: expired requests are reported until abandoned, abandoning sends notifications/cancelled "
    "and a late response is a problem",
    "[mcp][client-session]") {
    auto client = session();
    const auto now = Clock::now();
    auto early = client.startRequest("tools/call", json::object(), false);
    auto later = client.startRequest("tools/call", json::object(), false);
    CHECK(client.nextDeadline(now) == Clock::time_point::max());  // not armed before the send
    client.armDeadline(early.id, now + 1s);
    client.armDeadline(later.id, now + 5s);
    CHECK(client.nextDeadline(now) == now + 1s);
    CHECK(client.expired(now).empty());
    CHECK(client.expired(now + 2s) == std::vector<std::int64_t>{early.id});
    // An expired request does not hide the next deadline from the sweeper.
    CHECK(client.nextDeadline(now + 2s) == now + 5s);

    const json notice = json::parse(client.abandon(early.id, false));
    CHECK(notice["method"] == "notifications/cancelled");
    CHECK(notice["params"]["requestId"] == early.id);
    CHECK(notice["params"]["reason"] == "timed out");
    CHECK(json::parse(client.abandon(later.id, true))["params"]["reason"] == "cancelled by the client");
    CHECK(client.waiting() == 0);
    auto late = client.receive(response(early.id, json::object()), kNoRoots);
    CHECK(late.completions.empty());
    CHECK(late.problems.size() == 1);
    CHECK(client.timeoutError("tools/call").message ==
          "tools/call to MCP server 'files' got no response in time");
    CHECK(client.cancelledError("tools/call").code == McpErrc::cancelled);
}

TEST_CASE(
    "what the server sends: progress by token, logs, list_changed, cancellations, requests answered "
    "or handed to handlers",
    "[mcp][client-session]") {
    Offer offer;
    offer.roots = true;
    offer.sampling = true;
    auto client = session(offer);
    auto call = client.startRequest("tools/call", json{{"name", "slow"}}, true);
    const json sent = json::parse(call.frame);
    const json token = sent["params"]["_meta"]["progressToken"];
    REQUIRE(token.is_string());

    const json progress{
        {"jsonrpc", "2.0"},
        {"method", "notifications/progress"},
        {"params", {{"progressToken", token}, {"progress", 1}, {"total", 4}, {"message", "1/4"}}}};
    auto effects = client.receive(progress.dump(), kNoRoots);
    REQUIRE(effects.progress.size() == 1);
    CHECK(effects.progress[0].id == call.id);
    CHECK(effects.progress[0].progress.total == 4);
    CHECK(effects.progress[0].progress.message == "1/4");
    const json stranger{{"jsonrpc", "2.0"},
                        {"method", "notifications/progress"},
                        {"params", {{"progressToken", "other"}, {"progress", 1}}}};
    CHECK(client.receive(stranger.dump(), kNoRoots).progress.empty());

    const json log{{"jsonrpc", "2.0"},
                   {"method", "notifications/message"},
                   {"params", {{"level", "info"}, {"logger", "db"}, {"data", "hello"}}}};
    effects = client.receive(log.dump(), kNoRoots);
    REQUIRE(effects.logs.size() == 1);
    CHECK(effects.logs[0].logger == "db");
    CHECK(client
              .receive(json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}.dump(),
                       kNoRoots)
              .toolsChanged);
    const json cancel{
        {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "s-1"}}}};
    CHECK(client.receive(cancel.dump(), kNoRoots).cancelInbound == std::vector<std::string>{"\"s-1\""});

    // ping and roots/list are answered at once; sampling goes to its handler; the rest is refused.
    effects = client.receive(json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "ping"}}.dump(), kNoRoots);
    REQUIRE(effects.replies.size() == 1);
    CHECK(json::parse(effects.replies[0]) == json{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object()}});
    const std::optional<std::vector<reagent::mcp::Root>> roots =
        std::vector<reagent::mcp::Root>{{"file:///work", "work"}};
    effects = client.receive(json{{"jsonrpc", "2.0"}, {"id", 8}, {"method", "roots/list"}}.dump(), roots);
    REQUIRE(effects.replies.size() == 1);
    CHECK(json::parse(effects.replies[0])["result"]["roots"][0]["uri"] == "file:///work");
    effects = client.receive(
        json{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "sampling/createMessage"}, {"params", json::object()}}
            .dump(),
        kNoRoots);
    REQUIRE(effects.serve.size() == 1);
    CHECK(effects.replies.empty());
    effects = client.receive(json{{"jsonrpc", "2.0"}, {"id", 10}, {"method", "elicitation/create"}}.dump(),
                             kNoRoots);
    REQUIRE(effects.replies.size() == 1);
    CHECK(json::parse(effects.replies[0])["error"]["code"] == -32601);
}

TEST_CASE("a drop fails what waits and starts reconnecting once, stale reports are ignored",
          "[mcp][client-session]") {
    auto client = session();
    const auto generation = client.newTransport();
    client.connected({}, Clock::now());
    auto waiting = client.startRequest("tools/call", json::object(), true);
    CHECK_FALSE(client.dropped(generation + 1, McpError{McpErrc::connection_closed, "old"}));

    auto drop = client.dropped(generation, McpError{McpErrc::connection_closed, "the pipe closed"});
    REQUIRE(drop);
    CHECK(drop->failed == std::vector<std::int64_t>{waiting.id});
    CHECK(drop->reconnect);
    CHECK(drop->error.code == McpErrc::connection_closed);
    CHECK(drop->error.message == "MCP server 'files' disconnected: the pipe closed");
    CHECK(client.phase() == Phase::reconnecting);
    CHECK(client.waiting() == 0);
    // A second report while reconnecting fails nothing more and starts nothing.
    auto again = client.dropped(generation, McpError{McpErrc::connection_closed, "again"});
    REQUIRE(again);
    CHECK_FALSE(again->reconnect);

    client.setPhase(Phase::closed);
    CHECK_FALSE(client.dropped(generation, McpError{McpErrc::connection_closed, "after close"}));
}

TEST_CASE("reconnection: delays double, attempts are counted, and past maxReconnects the client gives up",
          "[mcp][client-session]") {
    auto client = session();
    client.newTransport();
    const auto start = Clock::now();
    client.connected({}, start);
    REQUIRE(client.dropped(client.generation(), McpError{McpErrc::connection_closed, "gone"}));
    client.beginReconnect(start + 1s);
    const McpError last{McpErrc::connect_failed, "refused"};
    auto first = client.nextAttempt(last);
    REQUIRE(std::holds_alternative<ClientSession::Attempt>(first));
    CHECK(std::get<ClientSession::Attempt>(first).delay == 100ms);
    CHECK_THAT(std::get<ClientSession::Attempt>(first).notice.message, Catch::Contains("attempt 1 of 2"));
    auto second = client.nextAttempt(last);
    REQUIRE(std::holds_alternative<ClientSession::Attempt>(second));
    CHECK(std::get<ClientSession::Attempt>(second).delay == 200ms);
    auto gaveUp = client.nextAttempt(last);
    REQUIRE(std::holds_alternative<McpError>(gaveUp));
    CHECK(client.phase() == Phase::failed);
    REQUIRE(client.lastError());
    CHECK_THAT(client.lastError()->message, Catch::Contains("gave up after 2") && Catch::Contains("refused"));

    // Up long enough again: the count starts over.
    client.newTransport();
    client.connected({}, start);
    REQUIRE(client.dropped(client.generation(), McpError{McpErrc::connection_closed, "gone"}));
    client.beginReconnect(start + 31s);
    auto fresh = client.nextAttempt(last);
    REQUIRE(std::holds_alternative<ClientSession::Attempt>(fresh));
    CHECK_THAT(std::get<ClientSession::Attempt>(fresh).notice.message, Catch::Contains("attempt 1 of 2"));
}

TEST_CASE("results: tool pages, the retry rule from annotations, call results", "[mcp][client-session]") {
    auto client = session();
    const json page{{"tools",
                     {{{"name", "read"}, {"annotations", {{"readOnlyHint", true}}}},
                      {{"name", "write"}, {"annotations", {{"destructiveHint", true}}}},
                      {{"description", "no name"}}}},
                    {"nextCursor", "p2"}};
    auto read = client.readToolPage(page);
    REQUIRE(read);
    CHECK(read->tools.size() == 2);
    CHECK(read->problems.size() == 1);
    CHECK(read->nextCursor == "p2");
    CHECK(read->tools[0].inputSchema == json{{"type", "object"}});
    CHECK(client.mayResend("read"));
    CHECK_FALSE(client.mayResend("write"));
    CHECK_FALSE(client.mayResend("unknown"));
    auto malformed = client.readToolPage(json{{"tools", "nope"}});
    REQUIRE_FALSE(malformed);
    CHECK(malformed.error().code == McpErrc::malformed_message);

    auto result = ClientSession::readCallResult(
        json{{"content", {{{"type", "text"}, {"text", "hi"}}}}, {"isError", true}});
    CHECK(result.text == "hi");
    CHECK(result.isError);
    auto structured = ClientSession::readCallResult(json{{"structuredContent", {{"n", 1}}}});
    CHECK(structured.text == R"({"n":1})");
}

namespace {

using reagent::unexpected;
using reagent::mcp::ProtocolEra;
using reagent::mcp::RpcError;
using reagent::mcp::detail::Era;
using reagent::mcp::detail::ProbeVerdict;
using Kind = ProbeVerdict::Kind;

ClientSession sessionFor(ProtocolEra era, reagent::mcp::TransportKind transport) {
    ServerConfig config = serverConfig();
    config.era = era;
    config.transport = transport;
    config.url = "http://127.0.0.1:1/mcp";
    Offer offer;
    offer.clientInfo = {"reagent", "0.1.0", ""};
    offer.elicitation = true;
    return ClientSession(config, offer);
}

json discoverResult(const json& versions) {
    return json{
        {"supportedVersions", versions},
        {"capabilities", {{"tools", {{"listChanged", true}}}}},
        {"instructions", "use the tools"},
        {"resultType", "complete"},
        {"ttlMs", 0},
        {"cacheScope", "private"},
        {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "modern"}, {"version", "2.0"}}}}}};
}

RpcError unsupported(const json& supported) {
    return RpcError{-32022, "Unsupported protocol version",
                    json{{"supported", supported}, {"requested", "x"}}};
}

}  // namespace

TEST_CASE(
    "the era: a probe carries the 2026 envelope, and a DiscoverResult naming 2026-07-28 means no handshake",
    "[mcp][client-session][era]") {
    auto client = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
    REQUIRE(client.probes());
    client.speakModern("2026-07-28");
    const auto probe = client.startRequest("server/discover", json::object(), false);
    const json frame = json::parse(probe.frame);
    const json meta = frame["params"]["_meta"];
    CHECK(meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28");
    CHECK(meta["io.modelcontextprotocol/clientInfo"] == json{{"name", "reagent"}, {"version", "0.1.0"}});
    // The capabilities offered are declared on every request (input_required questions use them).
    CHECK(meta["io.modelcontextprotocol/clientCapabilities"] ==
          json{{"elicitation", {{"form", json::object()}}}});

    CHECK_FALSE(meta.contains("io.modelcontextprotocol/logLevel"));  // no log lines wanted

    const ProbeVerdict verdict = client.judgeProbe(discoverResult(json::array({"2026-07-28"})), false);
    REQUIRE(verdict.kind == Kind::modern);
    CHECK(verdict.server.protocolVersion == "2026-07-28");
    CHECK(verdict.server.implementation.name == "modern");
    CHECK(verdict.server.capabilities["tools"]["listChanged"] == true);
    CHECK(verdict.server.instructions == "use the tools");
    CHECK(client.era() == Era::modern);

    // Every later request carries the envelope, its own _meta kept.
    const auto call = client.startRequest("tools/call", json{{"name", "t"}, {"_meta", {{"trace", 1}}}}, true);
    const json sent = json::parse(call.frame);
    CHECK(sent["params"]["_meta"]["trace"] == 1);
    CHECK(sent["params"]["_meta"].contains("progressToken"));
    CHECK(sent["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28");
}

TEST_CASE("the era: -32022 naming 2026-07-28 is corrected once, other answers mean the handshake",
          "[mcp][client-session][era]") {
    SECTION("-32022 naming the modern version: probe again, and a second refusal is an error") {
        auto client = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
        client.speakModern("2026-07-28");
        const ProbeVerdict first =
            client.judgeProbe(unexpected(unsupported(json::array({"2026-07-28"}))), false);
        REQUIRE(first.kind == Kind::retry);
        CHECK(first.version == "2026-07-28");
        const ProbeVerdict second =
            client.judgeProbe(unexpected(unsupported(json::array({"2026-07-28"}))), true);
        REQUIRE(second.kind == Kind::failed);
        CHECK(second.error.code == McpErrc::unsupported_version);
        CHECK(second.error.message.find("twice") != std::string::npos);
    }
    SECTION("-32022 naming only handshake versions, -32601, -32000: the handshake, and no probe next time") {
        for (const RpcError& answer :
             {unsupported(json::array({"2025-06-18"})), RpcError{-32601, "Method not found", nullptr},
              RpcError{-32000, "Bad Request: Server not initialized", nullptr}}) {
            auto client = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::stdio);
            client.speakModern("2026-07-28");
            const ProbeVerdict verdict = client.judgeProbe(unexpected(answer), false);
            CHECK(verdict.kind == Kind::legacy);
            CHECK_FALSE(verdict.restart);
            CHECK(client.era() == Era::legacy);
            CHECK_FALSE(client.probes());
            const json frame = json::parse(client.startRequest("tools/list", json::object(), false).frame);
            CHECK_FALSE(frame["params"].contains("_meta"));
        }
    }
    SECTION("versions of neither era: unsupported_version naming them") {
        auto client = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
        client.speakModern("2026-07-28");
        const ProbeVerdict verdict =
            client.judgeProbe(unexpected(unsupported(json::array({"2031-01-01"}))), false);
        REQUIRE(verdict.kind == Kind::failed);
        CHECK(verdict.error.code == McpErrc::unsupported_version);
        CHECK(verdict.error.message.find("2031-01-01") != std::string::npos);
    }
    SECTION("a DiscoverResult without 2026-07-28 among its versions: the handshake") {
        auto client = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
        client.speakModern("2026-07-28");
        CHECK(client.judgeProbe(discoverResult(json::array({"2027-01-01"})), false).kind == Kind::legacy);
    }
}

TEST_CASE(
    "the era: no answer is the handshake on stdio (a new process when it exited) and an error over HTTP",
    "[mcp][client-session][era]") {
    auto stdio = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::stdio);
    stdio.speakModern("2026-07-28");
    const ProbeVerdict silent = stdio.judgeProbeFailure(McpError{McpErrc::timeout, "no answer"});
    CHECK(silent.kind == Kind::legacy);
    CHECK_FALSE(silent.restart);

    auto exited = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::stdio);
    exited.speakModern("2026-07-28");
    const ProbeVerdict gone = exited.judgeProbeFailure(McpError{McpErrc::connection_closed, "exited"});
    CHECK(gone.kind == Kind::legacy);
    CHECK(gone.restart);

    auto http = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
    http.speakModern("2026-07-28");
    const ProbeVerdict late = http.judgeProbeFailure(McpError{McpErrc::timeout, "no answer"});
    REQUIRE(late.kind == Kind::failed);
    CHECK(late.error.code == McpErrc::timeout);
    CHECK(http.judgeProbeFailure(McpError{McpErrc::connect_failed, "HTTP 400"}).kind == Kind::legacy);
    auto denied = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
    denied.speakModern("2026-07-28");
    CHECK(denied.judgeProbeFailure(McpError{McpErrc::unauthorized, "401"}).kind == Kind::failed);
}

TEST_CASE("the era: `modern` refuses a server of the handshake era, `legacy` and SSE never probe",
          "[mcp][client-session][era]") {
    auto modern = sessionFor(ProtocolEra::modern, reagent::mcp::TransportKind::stdio);
    REQUIRE(modern.probes());
    modern.speakModern("2026-07-28");
    const ProbeVerdict verdict =
        modern.judgeProbe(unexpected(RpcError{-32601, "Method not found", nullptr}), false);
    REQUIRE(verdict.kind == Kind::failed);
    CHECK(verdict.error.code == McpErrc::unsupported_version);
    CHECK(verdict.error.message.find("era modern") != std::string::npos);

    CHECK_FALSE(sessionFor(ProtocolEra::legacy, reagent::mcp::TransportKind::stdio).probes());
    CHECK_FALSE(sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::sse).probes());
    CHECK_FALSE(sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::websocket).probes());
}

TEST_CASE("the era: a client that takes log lines asks for them on every 2026 request",
          "[mcp][client-session][era]") {
    Offer offer;
    offer.logLevel = "warning";
    ClientSession client = session(offer);
    client.speakModern("2026-07-28");
    const auto first = client.startRequest("tools/list", json::object(), false);
    const auto second = client.startRequest("tools/call", json{{"_meta", {{"progressToken", "p"}}}}, false);
    CHECK(json::parse(first.frame)["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "warning");
    const json meta = json::parse(second.frame)["params"]["_meta"];
    CHECK(meta["io.modelcontextprotocol/logLevel"] == "warning");
    CHECK(meta["progressToken"] == "p");  // the request's own _meta stays
}

TEST_CASE("the era: a 2026 result's resultType: absent or complete is the answer, input_required asks",
          "[mcp][client-session][era]") {
    using ResultKind = reagent::mcp::detail::ClientSession::ResultKind;
    auto client = sessionFor(ProtocolEra::automatic, reagent::mcp::TransportKind::streamable_http);
    client.speakModern("2026-07-28");
    CHECK(client.checkResult("tools/call", json{{"content", json::array()}}) == ResultKind::complete);
    CHECK(client.checkResult("tools/call", json{{"resultType", "complete"}}) == ResultKind::complete);
    CHECK(client.checkResult("tools/call", json{{"resultType", "input_required"}, {"requestState", "s"}}) ==
          ResultKind::inputRequired);
    // Neither questions nor a state, questions of the wrong type, or on a method that may not ask.
    auto empty = client.checkResult("tools/call", json{{"resultType", "input_required"}});
    REQUIRE_FALSE(empty);
    CHECK(empty.error().code == McpErrc::malformed_message);
    CHECK_FALSE(
        client.checkResult("tools/call", json{{"resultType", "input_required"}, {"inputRequests", 3}}));
    CHECK_FALSE(
        client.checkResult("tools/list", json{{"resultType", "input_required"}, {"requestState", "s"}}));
    auto odd = client.checkResult("tools/call", json{{"resultType", 7}});
    REQUIRE_FALSE(odd);
    CHECK(odd.error().code == McpErrc::malformed_message);
    // In the handshake era the member means nothing.
    auto legacy = session();
    CHECK(legacy.checkResult("tools/call", json{{"resultType", "input_required"}}));
}
