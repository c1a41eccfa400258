// Tool handlers reaching the MCP client: sampling, elicitation, log lines, rich content and
// structuredContent, cancellation and timeouts of server-to-client requests.

#include "reagent/mcp/tool_channel.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "reagent/mcp/server.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"

namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;

namespace {

// What the handlers saw, for the checks (the handlers are captureless coroutines).
struct Seen {
    std::optional<tools::ToolError> error;
    bool ended = false;
};
Seen seen;

Task<tools::ToolResult> askModel(json args, tools::ToolContext context) {
    mcp::SamplingRequest request;
    request.messages.push_back(
        mcp::SamplingMessage{"user", json{{"type", "text"}, {"text", args.value("q", "hi")}}});
    request.maxTokens = 7;
    request.systemPrompt = "be brief";
    auto asked = mcp::sample(context, std::move(request));
    auto answer = co_await std::move(asked);
    seen.ended = true;
    if (!answer) {
        seen.error = answer.error();
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "model said " + answer->content.value("text", std::string()) + " (" + answer->model + ")";
}

Task<tools::ToolResult> askUser(json, tools::ToolContext context) {
    mcp::ElicitRequest request;
    request.message = "name?";
    request.requestedSchema = json{{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}};
    auto asked = mcp::elicit(context, std::move(request));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "action " + answer->action + " " + answer->content.dump();
}

Task<tools::ToolResult> rich(json, tools::ToolContext context) {
    mcp::logToClient(context, mcp::LogLevel::debug, "hidden at info");
    mcp::logToClient(context, mcp::LogLevel::warning, json{{"step", 1}}, "rich");
    context.content->push_back(json{{"type", "image"}, {"data", "AAAA"}, {"mimeType", "image/png"}});
    *context.structured = json{{"n", 1}};
    co_return std::string("text first");
}

Task<tools::ToolResult> onlyImage(json, tools::ToolContext context) {
    context.content->push_back(json{{"type", "image"}, {"data", "AAAA"}, {"mimeType", "image/png"}});
    co_return std::string();
}

std::shared_ptr<tools::ToolRegistry> registry() {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto add = [&](const char* name, tools::ToolHandler handler) {
        auto builder = tools::ToolBuilder::create(name);
        builder.description(name).handler(std::move(handler));
        if (std::string(name) == "rich") {
            builder.outputSchema(json{{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}});
        }
        REQUIRE(registry->add(*builder.build()));
    };
    add("ask_model", askModel);
    add("ask_user", askUser);
    add("rich", rich);
    add("only_image", onlyImage);
    return registry;
}

struct Harness {
    explicit Harness(mcp::ServerOptions options = {}) : server(registry(), std::move(options)) {
        session = server.connect(io.get_executor(), [this](mcp::OutgoingFrame frame) {
            out.push_back(json::parse(frame.frame));
            related.push_back(frame.relatedRequest);
        });
    }
    void pump() {
        io.restart();
        io.poll();
    }
    json send(const json& message) {
        out.clear();
        related.clear();
        session->receive(message.dump());
        pump();
        return out.empty() ? json() : out.back();
    }
    json initialize(json capabilities) {
        return send(json{{"jsonrpc", "2.0"},
                         {"id", 0},
                         {"method", "initialize"},
                         {"params",
                          {{"protocolVersion", "2025-11-25"},
                           {"capabilities", std::move(capabilities)},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    }
    boost::asio::io_context io;
    mcp::Server server;
    std::shared_ptr<mcp::ServerSession> session;
    std::vector<json> out;
    std::vector<std::optional<mcp::RequestId>> related;
};

json call(int id, const std::string& name, json arguments = json::object()) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "tools/call"},
                {"params", {{"name", name}, {"arguments", std::move(arguments)}}}};
}

json answer(const json& request, json result) {
    return json{{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", std::move(result)}};
}

}  // namespace

TEST_CASE("a handler samples the client's model on the call's stream", "[mcp][server][channel]") {
    Harness h;
    h.initialize(json{{"sampling", json::object()}});
    const auto asked = h.send(call(5, "ask_model", json{{"q", "2+2?"}}));
    REQUIRE(asked["method"] == "sampling/createMessage");
    CHECK(asked["params"] ==
          json{{"messages", {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "2+2?"}}}}}},
               {"maxTokens", 7},
               {"systemPrompt", "be brief"}});
    REQUIRE(h.related.back());
    CHECK(*h.related.back() == mcp::RequestId(std::int64_t{5}));  // on the tools/call's stream
    CHECK(h.session->inFlight() == 1);

    const auto result = h.send(answer(asked, json{{"role", "assistant"},
                                                  {"content", {{"type", "text"}, {"text", "4"}}},
                                                  {"model", "m1"},
                                                  {"stopReason", "endTurn"}}));
    CHECK(result["id"] == 5);
    CHECK(result["result"]["content"][0]["text"] == "model said 4 (m1)");

    // The client's error comes back as the tool's error.
    const auto again = h.send(call(6, "ask_model"));
    const auto refused = h.send(json{
        {"jsonrpc", "2.0"}, {"id", again["id"]}, {"error", {{"code", -1}, {"message", "user said no"}}}});
    CHECK(refused["result"]["isError"] == true);
    CHECK(refused["result"]["content"][0]["text"].get<std::string>().find("user said no") !=
          std::string::npos);
}

TEST_CASE("sampling without the client's capability is a clear tool error", "[mcp][server][channel]") {
    Harness h;
    h.initialize(json::object());
    const auto result = h.send(call(1, "ask_model"));
    CHECK(result["result"]["isError"] == true);
    CHECK(result["result"]["content"][0]["text"] ==
          "failed: the client did not declare the sampling capability in initialize, so the server cannot "
          "send it sampling/createMessage");

    // A call made without an MCP server (an agent's) has no channel.
    tools::ToolContext bare;
    auto task = mcp::sample(bare, mcp::SamplingRequest{});
    const auto outcome = reagent::test::runCoro(std::move(task));
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message.find("no way back to an MCP client") != std::string::npos);
}

TEST_CASE("elicitation: the user declines", "[mcp][server][channel]") {
    Harness h;
    h.initialize(json{{"elicitation", json::object()}});
    const auto asked = h.send(call(2, "ask_user"));
    REQUIRE(asked["method"] == "elicitation/create");
    CHECK(asked["params"]["message"] == "name?");
    const auto result = h.send(answer(asked, json{{"action", "decline"}}));
    CHECK(result["result"]["content"][0]["text"] == "action decline null");
    const auto again = h.send(call(3, "ask_user"));
    const auto accepted = h.send(answer(again, json{{"action", "accept"}, {"content", {{"name", "ada"}}}}));
    CHECK(accepted["result"]["content"][0]["text"] == R"(action accept {"name":"ada"})");
    const auto third = h.send(call(4, "ask_user"));
    const auto malformed = h.send(answer(third, json{{"nothing", true}}));
    CHECK(malformed["result"]["isError"] == true);
}

TEST_CASE("a cancelled call forgets its pending request to the client", "[mcp][server][channel]") {
    seen = Seen{};
    Harness h;
    h.initialize(json{{"sampling", json::object()}});
    const auto asked = h.send(call(9, "ask_model"));
    REQUIRE(asked["method"] == "sampling/createMessage");
    h.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 9}}}});
    CHECK(h.out.empty());  // no response to a cancelled call
    CHECK(h.session->inFlight() == 0);
    // The late answer is not delivered anywhere, and nothing is sent for it.
    h.send(answer(asked, json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "late"}}}}));
    CHECK(h.out.empty());
    // The session still serves.
    const auto next = h.send(call(10, "ask_model"));
    CHECK(next["method"] == "sampling/createMessage");
    CHECK(next["id"] != asked["id"]);
}

TEST_CASE("a call cancelled before its coroutine has started is cancelled all the same",
          "[mcp][server][channel]") {
    seen = Seen{};
    Harness h;
    h.initialize(json{{"sampling", json::object()}});
    h.out.clear();
    // Both frames are handled before the call's coroutine runs (it starts through the event loop).
    h.session->receive(call(9, "ask_model").dump());
    h.session->receive(
        json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 9}}}}
            .dump());
    h.pump();
    // The call does not wait for the client's answer to a request it may have sent, and gets no response.
    CHECK(h.session->inFlight() == 0);
    for (const auto& frame : h.out) {
        CHECK_FALSE(frame.contains("result"));
        CHECK_FALSE(frame.contains("error"));
    }
}

TEST_CASE("a request to the client times out", "[mcp][server][channel]") {
    mcp::ServerOptions options;
    options.clientRequestTimeout = std::chrono::milliseconds(20);
    Harness h(options);
    h.initialize(json{{"sampling", json::object()}});
    h.send(call(1, "ask_model"));
    h.out.clear();
    h.io.restart();
    h.io.run();  // until the timeout fires and the call answers
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["result"]["isError"] == true);
    CHECK(h.out[0]["result"]["content"][0]["text"].get<std::string>().rfind(
              "timeout: the client did not answer", 0) == 0);
}

TEST_CASE("rich content, structuredContent, outputSchema and call-tied log lines", "[mcp][server][channel]") {
    Harness h;
    h.initialize(json::object());
    const auto tools =
        h.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}})["result"]["tools"];
    for (const auto& tool : tools) {
        CHECK(tool.contains("outputSchema") == (tool["name"] == "rich"));
    }
    const auto result = h.send(call(2, "rich"));
    REQUIRE(h.out.size() == 2);  // the warning (the debug line is below the session's level), the result
    CHECK(h.out[0]["method"] == "notifications/message");
    CHECK(h.out[0]["params"] == json{{"level", "warning"}, {"logger", "rich"}, {"data", {{"step", 1}}}});
    CHECK(*h.related[0] == mcp::RequestId(std::int64_t{2}));
    CHECK(result["result"]["content"] ==
          json::array({{{"type", "text"}, {"text", "text first"}},
                       {{"type", "image"}, {"data", "AAAA"}, {"mimeType", "image/png"}}}));
    CHECK(result["result"]["structuredContent"] == json{{"n", 1}});

    const auto image = h.send(call(3, "only_image"));
    CHECK(image["result"]["content"] ==
          json::array({{{"type", "image"}, {"data", "AAAA"}, {"mimeType", "image/png"}}}));
    CHECK_FALSE(image["result"].contains("structuredContent"));
}

TEST_CASE("an answer inside a batch reaches its handler in any version", "[mcp][server][channel][batch]") {
    Harness h;
    h.initialize(json{{"sampling", json::object()}});
    const auto asked = h.send(call(1, "ask_model"));
    REQUIRE(asked["method"] == "sampling/createMessage");
    const json batch = json::array({answer(
        asked, json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "b"}}}, {"model", "m"}})});
    const auto result = h.send(batch);
    REQUIRE(h.out.size() == 1);  // no refusal: the batch held only a response
    CHECK(result["result"]["content"][0]["text"] == "model said b (m)");
}
