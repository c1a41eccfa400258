// mcp::Server in the 2026-07-28 revision, sans-io through a vector sink: the `_meta` envelope and its
// errors, server/discover, stamped results, the HTTP headers checked against the body, stdio pinning,
// multi-round-trip requests (input_required and a sealed requestState), per-request log levels, and a
// 2025 session served beside it.

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/mcp/tool_channel.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;

namespace {

constexpr const char* kModern = "2026-07-28";
const std::string kVersionKey{mcp::kMetaProtocolVersion};
const std::string kCapabilitiesKey{mcp::kMetaClientCapabilities};
const std::string kLogLevelKey{mcp::kMetaLogLevel};
const std::string kServerInfoKey{mcp::kMetaServerInfo};

json nameSchema() {
    return json{{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}};
}

// Asks the user's name (key `user_name`) and greets them; returns the error it got when it cannot ask.
Task<tools::ToolResult> greet(json, tools::ToolContext context) {
    mcp::ElicitRequest question{"What is your name?", nameSchema(), "user_name"};
    auto asked = mcp::elicit(context, std::move(question));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "Hello, " + answer->content.value("name", std::string()) + "!";
}

// Asks two questions in turn (keys `a`, then `b`).
Task<tools::ToolResult> twoQuestions(json, tools::ToolContext context) {
    mcp::ElicitRequest first{"First?", nameSchema(), "a"};
    auto askedA = mcp::elicit(context, std::move(first));
    auto a = co_await std::move(askedA);
    if (!a) {
        co_return reagent::fail(std::move(a.error()));
    }
    mcp::ElicitRequest second{"Second?", nameSchema(), "b"};
    auto askedB = mcp::elicit(context, std::move(second));
    auto b = co_await std::move(askedB);
    if (!b) {
        co_return reagent::fail(std::move(b.error()));
    }
    co_return a->content.value("name", std::string()) + " and " + b->content.value("name", std::string());
}

// Logs one line at info, then answers.
Task<tools::ToolResult> chatty(json, tools::ToolContext context) {
    mcp::logToClient(context, mcp::LogLevel::info, json{{"step", 1}}, "chatty");
    co_return std::string("logged");
}

Task<tools::ToolResult> plain(json, tools::ToolContext) {
    co_return std::string("ok");
}

void addTool(tools::ToolRegistry& registry, const std::string& name, tools::ToolHandler handler,
             json schema = nullptr) {
    auto builder = tools::ToolBuilder::create(name);
    builder.description("tool " + name).handler(std::move(handler));
    if (schema.is_null()) {
        builder.param("greeting", "string", "an optional word");
    } else {
        builder.schema(std::move(schema));
    }
    REQUIRE(registry.add(*builder.build()));
}

std::shared_ptr<tools::ToolRegistry> registry() {
    auto out = std::make_shared<tools::ToolRegistry>();
    addTool(*out, "plain", plain);
    addTool(*out, "greet", greet);
    addTool(*out, "greet_too", greet);  // the same handler under another name
    addTool(*out, "two_questions", twoQuestions);
    addTool(*out, "chatty", chatty);
    // Arguments mirrored in Mcp-Param-* headers.
    addTool(*out, "regional", plain,
            json{{"type", "object"},
                 {"properties",
                  {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                   {"count", {{"type", "integer"}, {"x-mcp-header", "Count"}}}}}});
    return out;
}

// A session whose frames land in `out` (parsed) and `frames` (as sent, with `refusal`).
struct Harness {
    explicit Harness(mcp::Server shared) : server(std::move(shared)) {
        session = server.connect(io.get_executor(), [this](mcp::OutgoingFrame frame) {
            out.push_back(json::parse(frame.frame));
            frames.push_back(std::move(frame));
        });
    }
    explicit Harness(mcp::ServerOptions options = {})
        : Harness(mcp::Server(registry(), std::move(options))) {}

    // Sends `message` (with `headers` when given), runs until the session is idle, and returns the last
    // frame sent.
    json call(const json& message, const mcp::RequestHeaders* headers = nullptr) {
        out.clear();
        frames.clear();
        if (headers != nullptr) {
            session->receive(message.dump(), *headers);
        } else {
            session->receive(message.dump());
        }
        io.run();
        io.restart();
        return out.empty() ? json() : out.back();
    }
    json call(const json& message, const mcp::RequestHeaders& headers) { return call(message, &headers); }
    // `OutgoingFrame::refusal` of the last frame sent (-1: none was).
    [[nodiscard]] int refusal() const { return frames.empty() ? -1 : frames.back().refusal; }

    boost::asio::io_context io;
    mcp::Server server;
    std::shared_ptr<mcp::ServerSession> session;
    std::vector<json> out;
    std::vector<mcp::OutgoingFrame> frames;
};

json request(int id, std::string method, json params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}};
}

// A 2026-07-28 request: `params._meta` gets the version and `capabilities` (kept when already there).
json modern(int id, std::string method, json params = json::object(), json capabilities = json::object()) {
    json& meta = params["_meta"];
    if (!meta.is_object()) {
        meta = json::object();
    }
    meta[kVersionKey] = kModern;
    if (!meta.contains(kCapabilitiesKey)) {
        meta[kCapabilitiesKey] = std::move(capabilities);
    }
    return request(id, std::move(method), std::move(params));
}

json elicitation() {
    return json{{"elicitation", json::object()}};
}

json initialize(int id) {
    return request(id, "initialize",
                   json{{"protocolVersion", "2025-11-25"},
                        {"capabilities", json::object()},
                        {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
}

// The headers a Streamable HTTP client sends with a 2026-07-28 request.
mcp::RequestHeaders headersOf(std::string method, std::optional<std::string> name = std::nullopt) {
    mcp::RequestHeaders headers;
    headers.protocolVersion = kModern;
    headers.method = std::move(method);
    headers.name = std::move(name);
    return headers;
}

// By value: a const json's operator[] asserts on a missing key, and a failing reply lacks some.
std::string textOf(json reply) {
    json& content = reply["result"]["content"];
    return content.is_array() && !content.empty() ? content[0].value("text", std::string()) : std::string();
}

bool isStateError(json reply) {
    return reply["error"]["code"] == mcp::kInvalidParams &&
           reply["error"]["data"]["reason"] == "invalid_request_state";
}

}  // namespace

TEST_CASE("server/discover describes the server with the envelope's stamps", "[mcp][server][modern]") {
    SECTION("private by default") {
        mcp::ServerOptions options;
        options.info = mcp::Implementation{"discoverable", "2.3.4", {}};
        options.cacheTtl = std::chrono::seconds(90);
        Harness h(options);
        auto reply = h.call(modern(1, "server/discover"));
        json& result = reply["result"];
        CHECK(result["supportedVersions"] == json::array({kModern}));
        CHECK(result["capabilities"].contains("tools"));
        CHECK(result["resultType"] == "complete");
        CHECK(result["_meta"][kServerInfoKey]["name"] == "discoverable");
        CHECK(result["_meta"][kServerInfoKey]["version"] == "2.3.4");
        CHECK(result["ttlMs"] == 90'000);
        CHECK(result["cacheScope"] == "private");
        CHECK(h.refusal() == 0);
        CHECK_FALSE(h.session->initialized());  // no handshake happened
    }
    SECTION("public when the options say so") {
        mcp::ServerOptions options;
        options.cachePublic = true;
        Harness h(options);
        auto reply = h.call(modern(1, "server/discover"));
        CHECK(reply["result"]["cacheScope"] == "public");
        CHECK(reply["result"]["ttlMs"] == 0);
        CHECK(reply["result"]["_meta"][kServerInfoKey]["name"] == "reagent");
    }
}

TEST_CASE("modern results are stamped: lists are cacheable, calls are not", "[mcp][server][modern]") {
    mcp::ServerOptions options;
    options.cacheTtl = std::chrono::milliseconds(1500);
    Harness h(options);
    auto list = h.call(modern(1, "tools/list"));
    CHECK(list["result"]["tools"].size() == 6);
    CHECK(list["result"]["resultType"] == "complete");
    CHECK(list["result"]["ttlMs"] == 1500);
    CHECK(list["result"]["cacheScope"] == "private");
    CHECK(list["result"]["_meta"][kServerInfoKey]["name"] == "reagent");
    CHECK(h.refusal() == 0);

    auto called = h.call(modern(2, "tools/call", json{{"name", "plain"}, {"arguments", json::object()}}));
    CHECK(called["id"] == 2);
    CHECK(textOf(called) == "ok");
    CHECK(called["result"]["resultType"] == "complete");
    CHECK_FALSE(called["result"].contains("ttlMs"));
    CHECK_FALSE(called["result"].contains("cacheScope"));
    CHECK(called["result"]["_meta"][kServerInfoKey]["name"] == "reagent");
    REQUIRE(h.frames.size() == 1);
    CHECK(h.frames[0].isResponse);
    CHECK(h.frames[0].relatedRequest == mcp::RequestId(std::int64_t{2}));

    // An unknown tool is a served request's error (HTTP 200), not a refusal.
    auto unknown = h.call(modern(3, "tools/call", json{{"name", "missing"}, {"arguments", json::object()}}));
    CHECK(unknown["error"]["code"] == mcp::kInvalidParams);
    CHECK(h.refusal() == 0);
}

TEST_CASE("modern envelope errors are refusals", "[mcp][server][modern]") {
    Harness h;
    SECTION("_meta without clientCapabilities") {
        auto reply = h.call(request(1, "tools/list", json{{"_meta", {{kVersionKey, kModern}}}}));
        CHECK(reply["error"]["code"] == mcp::kInvalidParams);
        CHECK(reply["error"]["data"]["envelope"]["missing"] == json::array({kCapabilitiesKey}));
        CHECK(h.refusal() == mcp::kInvalidParams);
    }
    SECTION("clientCapabilities that is not an object") {
        auto reply = h.call(
            request(1, "tools/list", json{{"_meta", {{kVersionKey, kModern}, {kCapabilitiesKey, 3}}}}));
        CHECK(reply["error"]["code"] == mcp::kInvalidParams);
        CHECK(h.refusal() == mcp::kInvalidParams);
    }
    SECTION("a version that is not a string") {
        auto reply = h.call(request(
            1, "tools/list", json{{"_meta", {{kVersionKey, 2026}, {kCapabilitiesKey, json::object()}}}}));
        CHECK(reply["error"]["code"] == mcp::kInvalidParams);
        CHECK(h.refusal() == mcp::kInvalidParams);
    }
    SECTION("an unsupported version") {
        auto reply = h.call(request(
            1, "tools/list", json{{"_meta", {{kVersionKey, "v999"}, {kCapabilitiesKey, json::object()}}}}));
        CHECK(reply["error"]["code"] == mcp::kUnsupportedProtocolVersion);
        CHECK(reply["error"]["code"] == -32022);
        CHECK(reply["error"]["data"]["supported"] == json::array({kModern}));
        CHECK(reply["error"]["data"]["requested"] == "v999");
        CHECK(h.refusal() == -32022);
    }
    SECTION("methods 2026-07-28 removed, and unknown ones") {
        for (const char* method : {"ping", "initialize", "logging/setLevel", "resources/subscribe",
                                   "resources/unsubscribe", "prompts/list", "no/such"}) {
            INFO(method);
            json params = json::object();
            if (std::string(method) == "initialize") {
                params = initialize(0)["params"];
            } else if (std::string(method) == "logging/setLevel") {
                params = json{{"level", "debug"}};
            } else if (std::string(method).starts_with("resources/")) {
                params = json{{"uri", "file:///x"}};
            }
            auto reply = h.call(modern(7, method, params));
            CHECK(reply["id"] == 7);
            CHECK(reply["error"]["code"] == mcp::kMethodNotFound);
            CHECK(h.refusal() == mcp::kMethodNotFound);
        }
        CHECK_FALSE(h.session->initialized());  // initialize with the envelope did not initialise
    }
}

TEST_CASE("modern requests are checked against their HTTP headers", "[mcp][server][modern]") {
    Harness h;
    const json list = modern(1, "tools/list");
    SECTION("MCP-Protocol-Version missing or different from _meta") {
        auto headers = headersOf("tools/list");
        headers.protocolVersion.reset();
        CHECK(h.call(list, headers)["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
        headers.protocolVersion = "2025-11-25";
        CHECK(h.call(list, headers)["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
    }
    SECTION("Mcp-Method missing or different") {
        auto headers = headersOf("tools/call");
        CHECK(h.call(list, headers)["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
        headers.method.reset();
        CHECK(h.call(list, headers)["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
    }
    SECTION("Mcp-Name of tools/call") {
        const json call = modern(2, "tools/call", json{{"name", "plain"}, {"arguments", json::object()}});
        CHECK(h.call(call, headersOf("tools/call", "greet"))["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
        CHECK(h.call(call, headersOf("tools/call"))["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
        auto served = h.call(call, headersOf("tools/call", "plain"));
        CHECK(textOf(served) == "ok");
        CHECK(h.refusal() == 0);
    }
    SECTION("matching headers are served") {
        auto reply = h.call(list, headersOf("tools/list"));
        CHECK(reply["result"]["tools"].size() == 6);
        CHECK(reply["result"]["resultType"] == "complete");
        CHECK(h.refusal() == 0);
    }
    SECTION("a 2026 header on a request without the envelope") {
        auto reply = h.call(request(3, "tools/list"), headersOf("tools/list"));
        CHECK(reply["error"]["code"] == mcp::kInvalidParams);
        CHECK(reply["error"]["data"]["envelope"]["missing"] == json::array({kVersionKey, kCapabilitiesKey}));
        CHECK(h.refusal() == mcp::kInvalidParams);
        auto init = h.call(initialize(4), headersOf("initialize"));
        CHECK(init["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
        CHECK_FALSE(h.session->initialized());
    }
    SECTION("a 2025 header on a request without the envelope is a handshake request") {
        auto headers = headersOf("initialize");
        headers.protocolVersion = "2025-11-25";
        auto init = h.call(initialize(4), headers);
        CHECK(init["result"]["protocolVersion"] == "2025-11-25");
        CHECK(h.refusal() == 0);
        CHECK(h.session->initialized());
    }
}

TEST_CASE("modern tools/call arguments marked x-mcp-header must match Mcp-Param-*", "[mcp][server][modern]") {
    Harness h;
    auto callWith = [](json arguments) {
        return modern(5, "tools/call", json{{"name", "regional"}, {"arguments", std::move(arguments)}});
    };
    auto headers = [](std::vector<std::pair<std::string, std::string>> params) {
        auto out = headersOf("tools/call", "regional");
        out.params = std::move(params);
        return out;
    };
    SECTION("an argument set without its header") {
        CHECK(h.call(callWith(json{{"region", "eu"}}), headers({}))["error"]["code"] == mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
    }
    SECTION("a header that differs from the argument") {
        CHECK(h.call(callWith(json{{"region", "eu"}}), headers({{"Region", "us"}}))["error"]["code"] ==
              mcp::kHeaderMismatch);
        CHECK(h.refusal() == -32020);
    }
    SECTION("a header equal to the argument (name compared without case)") {
        CHECK(textOf(h.call(callWith(json{{"region", "eu"}}), headers({{"Region", "eu"}}))) == "ok");
        CHECK(h.refusal() == 0);
        CHECK(textOf(h.call(callWith(json{{"region", "eu"}}), headers({{"region", "eu"}}))) == "ok");
    }
    SECTION("an integer compared as a number") {
        CHECK(textOf(h.call(callWith(json{{"count", 42}}), headers({{"Count", "42"}}))) == "ok");
        CHECK(h.refusal() == 0);
        CHECK(textOf(h.call(callWith(json{{"count", 42}}), headers({{"Count", "42.0"}}))) == "ok");
        CHECK(h.call(callWith(json{{"count", 42}}), headers({{"Count", "43"}}))["error"]["code"] ==
              mcp::kHeaderMismatch);
        CHECK(h.call(callWith(json{{"count", 42}}), headers({{"Count", "42x"}}))["error"]["code"] ==
              mcp::kHeaderMismatch);
    }
    SECTION("no argument, no header needed") {
        CHECK(textOf(h.call(callWith(json::object()), headers({}))) == "ok");
    }
    SECTION("on stdio (no headers) nothing is mirrored") {
        CHECK(textOf(h.call(callWith(json{{"region", "eu"}}))) == "ok");
    }
}

TEST_CASE("stdio: the first request decides the connection's revision", "[mcp][server][modern]") {
    SECTION("a modern request first: a later initialize is refused") {
        Harness h;
        CHECK(h.call(modern(1, "tools/list"))["result"]["resultType"] == "complete");
        auto init = h.call(initialize(2));
        CHECK(init["error"]["code"] == mcp::kUnsupportedProtocolVersion);
        CHECK(init["error"]["data"]["supported"] == json::array({kModern}));
        CHECK(init["error"]["data"]["requested"] == "2025-11-25");
        CHECK_FALSE(h.session->initialized());
    }
    SECTION("a server/discover probe first: initialize still succeeds") {
        Harness h;
        CHECK(h.call(modern(1, "server/discover"))["result"]["supportedVersions"] == json::array({kModern}));
        auto init = h.call(initialize(2));
        CHECK(init["result"]["protocolVersion"] == "2025-11-25");
        CHECK(h.session->initialized());
    }
}

TEST_CASE("modern tool questions become input_required rounds", "[mcp][server][modern]") {
    Harness h;
    const json callParams = {{"name", "greet"}, {"arguments", json::object()}};
    auto first = h.call(modern(1, "tools/call", callParams, elicitation()));
    json& asked = first["result"];
    REQUIRE(asked["resultType"] == "input_required");
    CHECK(h.refusal() == 0);
    CHECK_FALSE(asked.contains("content"));
    CHECK_FALSE(asked.contains("ttlMs"));
    CHECK(asked["inputRequests"]["user_name"]["method"] == "elicitation/create");
    CHECK(asked["inputRequests"]["user_name"]["params"]["message"] == "What is your name?");
    CHECK(asked["inputRequests"]["user_name"]["params"]["requestedSchema"] == nameSchema());
    CHECK_FALSE(asked["inputRequests"]["user_name"]["params"].contains("reagent/inputKey"));
    REQUIRE(asked["requestState"].is_string());
    const std::string state = asked["requestState"];
    CHECK(state.starts_with("v1."));
    CHECK(h.session->inFlight() == 0);

    const json accepted = {{"user_name", {{"action", "accept"}, {"content", {{"name", "Ada"}}}}}};
    auto retry = [&](int id, json params, json capabilities = elicitation()) {
        return h.call(modern(id, "tools/call", std::move(params), std::move(capabilities)));
    };
    auto withState = [&](json responses, json requestState, json params) {
        params["inputResponses"] = std::move(responses);
        params["requestState"] = std::move(requestState);
        return params;
    };

    SECTION("answered: the handler runs again and completes") {
        auto done = retry(2, withState(accepted, state, callParams));
        CHECK(done["id"] == 2);
        CHECK(done["result"]["resultType"] == "complete");
        CHECK(textOf(done).find("Hello, Ada!") != std::string::npos);
        CHECK_FALSE(done["result"].contains("requestState"));
        CHECK(h.refusal() == 0);
    }
    SECTION("a tampered state") {
        auto reply = retry(2, withState(accepted, state + "x", callParams));
        CHECK(isStateError(reply));
        CHECK_FALSE(reply.contains("result"));
        CHECK(h.refusal() == 0);  // not an envelope refusal: HTTP answers it with 200
    }
    SECTION("a state moved to another tool") {
        json other = callParams;
        other["name"] = "greet_too";
        CHECK(isStateError(retry(2, withState(accepted, state, other))));
    }
    SECTION("a state moved to other arguments") {
        json other = callParams;
        other["arguments"] = json{{"greeting", "hi"}};
        CHECK(isStateError(retry(2, withState(accepted, state, other))));
    }
    SECTION("a state that is not a string") {
        CHECK(isStateError(retry(2, withState(accepted, 42, callParams))));
    }
    SECTION("inputResponses that is not an object") {
        auto reply = retry(2, withState(json::array({1}), state, callParams));
        CHECK(reply["error"]["code"] == mcp::kInvalidParams);
        CHECK_FALSE(reply["error"]["data"].contains("reason"));
        CHECK_FALSE(reply.contains("result"));
        CHECK(h.refusal() == 0);
    }
    SECTION("an answer of the wrong shape is asked for again") {
        auto again = retry(2, withState(json{{"user_name", 12345}}, state, callParams));
        CHECK(again["result"]["resultType"] == "input_required");
        CHECK(again["result"]["inputRequests"].contains("user_name"));
        CHECK(again["result"]["requestState"].is_string());
        CHECK(textOf(again).empty());
    }
    SECTION("without the elicitation capability the call is refused") {
        auto refused = retry(2, callParams, json::object());
        CHECK(refused["error"]["code"] == mcp::kMissingClientCapability);
        CHECK(refused["error"]["code"] == -32021);
        CHECK(refused["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
        CHECK(h.refusal() == -32021);
    }
}

TEST_CASE("modern requestState is sealed with the server's key", "[mcp][server][modern]") {
    const json callParams = {{"name", "greet"}, {"arguments", json::object()}};
    const json accepted = {{"user_name", {{"action", "accept"}, {"content", {{"name", "Bo"}}}}}};
    mcp::ServerOptions shared;
    shared.requestStateKey = std::string(32, 'k');
    auto catalog = registry();
    Harness a(mcp::Server(catalog, shared));
    auto asked = a.call(modern(1, "tools/call", callParams, elicitation()));
    REQUIRE(asked["result"]["requestState"].is_string());
    json answered = callParams;
    answered["inputResponses"] = accepted;
    answered["requestState"] = asked["result"]["requestState"];

    SECTION("another server with the same key continues the request") {
        Harness b(mcp::Server(catalog, shared));
        auto done = b.call(modern(2, "tools/call", answered, elicitation()));
        CHECK(textOf(done).find("Hello, Bo!") != std::string::npos);
    }
    SECTION("a server with another key refuses it") {
        mcp::ServerOptions other;
        other.requestStateKey = std::string(32, 'q');
        Harness c(mcp::Server(catalog, other));
        CHECK(isStateError(c.call(modern(2, "tools/call", answered, elicitation()))));
    }
}

TEST_CASE("modern input rounds are bounded and expire", "[mcp][server][modern]") {
    const json callParams = {{"name", "two_questions"}, {"arguments", json::object()}};
    auto answer = [](const char* name) { return json{{"action", "accept"}, {"content", {{"name", name}}}}; };
    auto next = [](json params, json reply, json responses) {
        params["inputResponses"] = std::move(responses);
        params["requestState"] = reply["result"]["requestState"];
        return params;
    };
    SECTION("two rounds of questions complete when the bound allows them") {
        Harness h;
        auto round1 = h.call(modern(1, "tools/call", callParams, elicitation()));
        REQUIRE(round1["result"]["resultType"] == "input_required");
        CHECK(round1["result"]["inputRequests"].contains("a"));
        auto round2 = h.call(
            modern(2, "tools/call", next(callParams, round1, json{{"a", answer("x")}}), elicitation()));
        REQUIRE(round2["result"]["resultType"] == "input_required");
        CHECK(round2["result"]["inputRequests"].contains("b"));
        CHECK_FALSE(round2["result"]["inputRequests"].contains("a"));
        // The state carries answer a: the last round sends only b.
        auto done = h.call(
            modern(3, "tools/call", next(callParams, round2, json{{"b", answer("y")}}), elicitation()));
        CHECK(done["result"]["resultType"] == "complete");
        CHECK(textOf(done) == "x and y");
    }
    SECTION("maxInputRounds bounds how many times a request comes back") {
        // With 1: the first return (with answer a) is served and asks b; the second return is refused.
        mcp::ServerOptions options;
        options.maxInputRounds = 1;
        Harness h(options);
        auto round1 = h.call(modern(1, "tools/call", callParams, elicitation()));
        REQUIRE(round1["result"]["resultType"] == "input_required");
        auto round2 = h.call(
            modern(2, "tools/call", next(callParams, round1, json{{"a", answer("x")}}), elicitation()));
        REQUIRE(round2["result"]["resultType"] == "input_required");
        auto refused = h.call(
            modern(3, "tools/call", next(callParams, round2, json{{"b", answer("y")}}), elicitation()));
        CHECK(refused["error"]["code"] == mcp::kInvalidParams);
        CHECK(refused["error"]["data"]["reason"] == "too_many_rounds");
        CHECK(h.refusal() == 0);
    }
    SECTION("an expired state") {
        // openRound refuses when exp < now (seconds): a negative ttl makes exp a second before issue.
        mcp::ServerOptions options;
        options.requestStateTtl = std::chrono::seconds(-1);
        Harness h(options);
        auto round1 = h.call(modern(1, "tools/call", callParams, elicitation()));
        REQUIRE(round1["result"]["resultType"] == "input_required");
        auto expired = h.call(
            modern(2, "tools/call", next(callParams, round1, json{{"a", answer("x")}}), elicitation()));
        CHECK(isStateError(expired));
    }
}

// maxInputRounds = 0: no request may come back, but a first call is served.
TEST_CASE("modern maxInputRounds bounds returns, not first calls", "[mcp][server][modern]") {
    mcp::ServerOptions options;
    options.maxInputRounds = 0;
    Harness h(options);
    auto reply = h.call(modern(1, "tools/call", json{{"name", "plain"}, {"arguments", json::object()}}));
    INFO(reply.dump());
    CHECK(textOf(reply) == "ok");
}

TEST_CASE("modern log lines follow the request's logLevel", "[mcp][server][modern]") {
    Harness h;
    auto callAt = [](int id, std::optional<std::string> level) {
        json params = {{"name", "chatty"}, {"arguments", json::object()}};
        if (level) {
            params["_meta"] = json{{kLogLevelKey, *level}};
        }
        return modern(id, "tools/call", std::move(params));
    };
    auto logLines = [&h] {
        return std::count_if(h.out.begin(), h.out.end(), [](const json& message) {
            return message.value("method", std::string()) == "notifications/message";
        });
    };
    SECTION("no logLevel: no log lines") {
        CHECK(textOf(h.call(callAt(1, std::nullopt))) == "logged");
        CHECK(logLines() == 0);
        CHECK(h.out.size() == 1);
    }
    SECTION("the server's session-wide log never reaches a modern session") {
        CHECK(textOf(h.call(callAt(5, "debug"))) == "logged");
        h.out.clear();
        h.server.log(mcp::LogLevel::emergency, "everyone");
        h.session->log(mcp::LogLevel::emergency, "this session");
        CHECK(h.out.empty());
    }
    SECTION("debug: the info line is sent, tied to the request") {
        CHECK(textOf(h.call(callAt(2, "debug"))) == "logged");
        REQUIRE(logLines() == 1);
        REQUIRE(h.out.size() == 2);
        CHECK(h.out[0]["params"] == json{{"level", "info"}, {"logger", "chatty"}, {"data", {{"step", 1}}}});
        CHECK(h.frames[0].relatedRequest == mcp::RequestId(std::int64_t{2}));
        CHECK_FALSE(h.frames[0].isResponse);
    }
    SECTION("warning: the info line is below it") {
        CHECK(textOf(h.call(callAt(3, "warning"))) == "logged");
        CHECK(logLines() == 0);
    }
    SECTION("an unknown level is refused") {
        auto reply = h.call(callAt(4, "loud"));
        CHECK(reply["error"]["code"] == mcp::kInvalidParams);
        CHECK(h.refusal() == mcp::kInvalidParams);
        CHECK(logLines() == 0);
    }
}

TEST_CASE("one server serves a 2025 session beside modern requests", "[mcp][server][modern]") {
    mcp::Server server(registry());
    Harness modernClient(server);
    Harness handshake(server);
    CHECK(modernClient.call(modern(1, "tools/list"))["result"]["resultType"] == "complete");

    auto init = handshake.call(initialize(1));
    CHECK(init["result"]["protocolVersion"] == "2025-11-25");
    CHECK_FALSE(init["result"].contains("resultType"));
    auto list = handshake.call(request(2, "tools/list"));
    CHECK(list["result"]["tools"].size() == 6);
    CHECK_FALSE(list["result"].contains("resultType"));
    CHECK_FALSE(list["result"].contains("ttlMs"));
    auto called = handshake.call(request(3, "tools/call", json{{"name", "plain"}}));
    CHECK(textOf(called) == "ok");
    CHECK_FALSE(called["result"].contains("resultType"));
    CHECK_FALSE(called["result"].contains("_meta"));
    CHECK(handshake.refusal() == 0);

    // The modern client is still served as one after the other session's handshake.
    auto again =
        modernClient.call(modern(2, "tools/call", json{{"name", "plain"}, {"arguments", json::object()}}));
    CHECK(again["result"]["resultType"] == "complete");
}

TEST_CASE(
    "a prompt that asks: input_required rounds in 2026-07-28, a question refused without the capability",
    "[mcp][server][modern]") {
    mcp::Server server(registry());
    server.addPrompt(
        mcp::PromptInfo{"about", "Asks what it is about", {}},
        [](mcp::PromptArguments,
           tools::ToolContext context) -> Task<reagent::expected<mcp::PromptResult, mcp::RpcError>> {
            mcp::ElicitRequest question{"About what?", nameSchema(), "topic"};
            auto asked = mcp::elicit(context, std::move(question));
            auto answer = co_await std::move(asked);
            if (!answer) {
                co_return reagent::fail(mcp::RpcError{-32603, answer.error().message, nullptr});
            }
            mcp::PromptResult result;
            result.messages.push_back(mcp::PromptMessage{
                "user", json{{"type", "text"}, {"text", answer->content.value("name", std::string())}}});
            co_return result;
        });
    Harness h(server);
    const json params = {{"name", "about"}};
    auto round1 = h.call(modern(1, "prompts/get", params, elicitation()));
    REQUIRE(round1["result"]["resultType"] == "input_required");
    CHECK(round1["result"]["inputRequests"]["topic"]["method"] == "elicitation/create");
    json retry = params;
    retry["inputResponses"] = {{"topic", {{"action", "accept"}, {"content", {{"name", "tides"}}}}}};
    retry["requestState"] = round1["result"]["requestState"];
    auto done = h.call(modern(2, "prompts/get", retry, elicitation()));
    REQUIRE(done["result"]["resultType"] == "complete");
    CHECK(done["result"]["messages"][0]["content"]["text"] == "tides");
    CHECK_FALSE(done["result"].contains("ttlMs"));

    auto refused = h.call(modern(3, "prompts/get", params));
    CHECK(refused["error"]["code"] == mcp::kMissingClientCapability);
    CHECK(refused["error"]["data"]["requiredCapabilities"].contains("elicitation"));
    CHECK(h.refusal() == mcp::kMissingClientCapability);
}
