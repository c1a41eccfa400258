// mcp::Server's session core with no transport: frames in, frames out through a vector sink.

#include "reagent/mcp/server.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <map>

#include "reagent/mcp/protocol_version.hpp"
#include "reagent/telemetry/telemetry.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"

namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;

namespace {

std::shared_ptr<tools::ToolRegistry> registryOf(int count) {
    auto registry = std::make_shared<tools::ToolRegistry>();
    for (int i = 0; i < count; ++i) {
        auto builder = tools::ToolBuilder::create("t" + std::to_string(i));
        builder.description("tool " + std::to_string(i))
            .handler(
                [](json, tools::ToolContext) -> Task<tools::ToolResult> { co_return std::string("ok"); });
        REQUIRE(registry->add(*builder.build()));
    }
    return registry;
}

// A session whose frames land in `out`, parsed.
struct Harness {
    explicit Harness(std::shared_ptr<tools::ToolRegistry> registry, mcp::ServerOptions options = {})
        : server(std::move(registry), std::move(options)) {
        session = server.connect(io.get_executor(), [this](mcp::OutgoingFrame frame) {
            out.push_back(json::parse(frame.frame));
            related.push_back(frame.relatedRequest);
        });
    }
    json call(const json& message) {
        out.clear();
        session->receive(message.dump());
        io.run();
        io.restart();
        return out.empty() ? json() : out.back();
    }
    json initialize(const std::string& version = "2025-11-25") {
        return call(json{{"jsonrpc", "2.0"},
                         {"id", 0},
                         {"method", "initialize"},
                         {"params",
                          {{"protocolVersion", version},
                           {"capabilities", json::object()},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    }
    boost::asio::io_context io;
    mcp::Server server;
    std::shared_ptr<mcp::ServerSession> session;
    std::vector<json> out;
    std::vector<std::optional<mcp::RequestId>> related;
};

json request(int id, std::string method, json params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}};
}

}  // namespace

TEST_CASE("server negotiates the protocol version", "[mcp][server]") {
    CHECK(mcp::negotiateVersion("2025-06-18") == "2025-06-18");
    CHECK(mcp::negotiateVersion("2025-03-26") == "2025-03-26");
    CHECK(mcp::negotiateVersion("2024-11-05") == "2025-11-25");
    Harness h(registryOf(1));
    auto reply = h.initialize("2025-06-18");
    CHECK(reply["result"]["protocolVersion"] == "2025-06-18");
    CHECK(h.session->initialized());
    CHECK(h.session->clientInfo()["name"] == "t");
    CHECK(h.initialize()["error"]["code"] == mcp::kInvalidRequest);  // twice
}

TEST_CASE("server refuses requests before initialize but answers ping", "[mcp][server]") {
    Harness h(registryOf(1));
    CHECK(h.call(request(1, "ping"))["result"] == json::object());
    const auto refused = h.call(request(2, "tools/list"));
    CHECK(refused["error"]["code"] == mcp::kInvalidRequest);
    CHECK(refused["id"] == 2);
    h.initialize();
    CHECK(h.call(request(3, "tools/list"))["result"]["tools"].size() == 1);
}

TEST_CASE("server protocol errors: parse and invalid request and unknown method and bad params",
          "[mcp][server]") {
    Harness h(registryOf(1));
    h.initialize();
    h.out.clear();
    h.session->receive("{not json");
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["error"]["code"] == mcp::kParseError);
    CHECK(h.out[0]["id"].is_null());
    h.out.clear();
    h.session->receive(R"({"jsonrpc":"1.0","id":5,"method":"ping"})");
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["error"]["code"] == mcp::kInvalidRequest);
    CHECK(h.out[0]["id"] == 5);
    CHECK(h.call(request(6, "prompts/list"))["error"]["code"] == mcp::kMethodNotFound);
    CHECK(h.call(request(7, "tools/call", json{{"name", "missing"}}))["error"]["code"] ==
          mcp::kInvalidParams);
    CHECK(h.call(request(8, "tools/call", json{{"arguments", json::object()}}))["error"]["code"] ==
          mcp::kInvalidParams);
    CHECK(h.call(request(9, "tools/call", json{{"name", "t0"}, {"arguments", 3}}))["error"]["code"] ==
          mcp::kInvalidParams);
    CHECK(h.call(request(10, "logging/setLevel", json{{"level", "loud"}}))["error"]["code"] ==
          mcp::kInvalidParams);
    // A notification never gets an answer, even an unknown one.
    h.out.clear();
    h.session->receive(R"({"jsonrpc":"2.0","method":"notifications/whatever"})");
    CHECK(h.out.empty());
}

TEST_CASE("server pages tools/list with an opaque cursor", "[mcp][server]") {
    mcp::ServerOptions options;
    options.pageSize = 2;
    Harness h(registryOf(5), options);
    h.initialize();
    std::vector<std::string> names;
    json params = json::object();
    int pages = 0;
    while (true) {
        const auto page = h.call(request(pages + 1, "tools/list", params));
        for (const auto& tool : page["result"]["tools"]) {
            names.push_back(tool["name"]);
            CHECK(tool["annotations"]["readOnlyHint"] == true);
        }
        ++pages;
        if (!page["result"].contains("nextCursor")) {
            break;
        }
        params = json{{"cursor", page["result"]["nextCursor"]}};
    }
    CHECK(pages == 3);
    CHECK(names == std::vector<std::string>{"t0", "t1", "t2", "t3", "t4"});
    CHECK(h.call(request(9, "tools/list", json{{"cursor", "tools@99"}}))["error"]["code"] ==
          mcp::kInvalidParams);
    CHECK(h.call(request(9, "tools/list", json{{"cursor", 3}}))["error"]["code"] == mcp::kInvalidParams);
}

TEST_CASE("server calls a tool and bounds its result", "[mcp][server]") {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto builder = tools::ToolBuilder::create("big");
    builder.description("a long answer").handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
        co_return std::string(100, 'x') + "é";
    });
    REQUIRE(registry->add(*builder.build()));
    mcp::ServerOptions options;
    options.maxResultBytes = 101;  // cuts through the two bytes of é
    Harness h(registry, options);
    h.initialize();
    const auto reply = h.call(request(4, "tools/call", json{{"name", "big"}}));
    const std::string text = reply["result"]["content"][0]["text"];
    CHECK(text.rfind(std::string(100, 'x') + "\n[output cut: 2 more bytes not shown]", 0) == 0);
    CHECK_FALSE(reply["result"].contains("isError"));
    REQUIRE(h.related.back());
    CHECK(*h.related.back() == mcp::RequestId(std::int64_t{4}));
}

TEST_CASE("a traced server continues the client's trace in a span per call, which the tool runs in",
          "[mcp][server][telemetry]") {
    namespace telemetry = reagent::telemetry;
    auto seen = std::make_shared<std::vector<reagent::SpanContext>>();
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto builder = tools::ToolBuilder::create("look");
    builder.description("looks")
        .param("fail", "boolean", "fail instead")
        .handler([seen](json args, tools::ToolContext context) -> Task<tools::ToolResult> {
            seen->push_back(context.trace != nullptr ? *context.trace : reagent::SpanContext{});
            if (args.value("fail", false)) {
                co_return reagent::fail(tools::ToolError{tools::ToolErrc::failed, "private detail"});
            }
            co_return std::string("seen");
        });
    REQUIRE(registry->add(*builder.build()));
    auto sink = std::make_shared<telemetry::InMemorySpanSink>();
    mcp::ServerOptions options;
    options.telemetry = std::make_shared<telemetry::Telemetry>(telemetry::SamplerConfig{}, sink);
    Harness h(registry, options);
    h.initialize();

    const std::string traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    h.call(request(5, "tools/call",
                   json{{"name", "look"},
                        {"arguments", json::object()},
                        {"_meta", {{"traceparent", traceparent}, {"tracestate", "a=1"}}}}));
    h.call(request(6, "tools/call", json{{"name", "look"}, {"arguments", {{"fail", true}}}}));
    h.call(request(
        7, "tools/call",
        json{{"name", "look"}, {"arguments", json::object()}, {"_meta", {{"traceparent", "garbage"}}}}));

    std::vector<telemetry::SpanData> spans;
    for (auto& span : sink->spans()) {
        if (span.name.rfind("tools/call", 0) == 0) {
            spans.push_back(std::move(span));
        }
    }
    REQUIRE(spans.size() == 3);
    REQUIRE(seen->size() == 3);
    const auto remote = telemetry::parseTraceparent(traceparent).value();
    const telemetry::SpanData& continued = spans[0];
    CHECK(continued.name == "tools/call look");
    CHECK(continued.kind == telemetry::SpanKind::server);
    CHECK(continued.context.traceId == remote.traceId);
    CHECK(continued.parentSpanId == remote.spanId);
    CHECK(continued.context.traceState == "a=1");
    CHECK(seen->at(0) == continued.context);
    const auto attribute = [](const telemetry::SpanData& span, const std::string& key) {
        for (const auto& item : span.attributes) {
            if (item.key == key) {
                return std::get<std::string>(item.value);
            }
        }
        return std::string("<none>");
    };
    CHECK(attribute(continued, "mcp.method.name") == "tools/call");
    CHECK(attribute(continued, "gen_ai.tool.name") == "look");
    CHECK(attribute(continued, "jsonrpc.request.id") == "5");

    // Without a caller's context, or with a malformed one, the call starts a trace of its own.
    CHECK_FALSE(spans[1].parentSpanId.valid());
    CHECK(spans[1].status == telemetry::StatusCode::error);
    CHECK(attribute(spans[1], "error.type") == "tool_error");
    CHECK(spans[1].statusMessage.find("private") == std::string::npos);
    CHECK_FALSE(spans[2].parentSpanId.valid());
    CHECK(spans[2].context.traceId != remote.traceId);
}

TEST_CASE("a traced server spans and times every request, with the JSON-RPC code of those that fail",
          "[mcp][server][telemetry][metrics]") {
    namespace telemetry = reagent::telemetry;
    auto sink = std::make_shared<telemetry::InMemorySpanSink>();
    mcp::ServerOptions options;
    options.telemetry = std::make_shared<telemetry::Telemetry>(telemetry::SamplerConfig{}, sink);
    Harness h(registryOf(1), options);
    h.initialize();
    h.call(request(2, "tools/list", json::object()));
    h.call(request(3, "tools/call", json{{"name", "nowhere"}, {"arguments", json::object()}}));
    h.call(request(4, "no/such/method", json::object()));

    const auto spans = sink->spans();
    REQUIRE(spans.size() == 4);
    const auto attribute = [](const telemetry::SpanData& span, const std::string& key) {
        for (const auto& item : span.attributes) {
            if (item.key == key) {
                return std::get<std::string>(item.value);
            }
        }
        return std::string("<none>");
    };
    CHECK(spans[0].name == "initialize");
    CHECK(attribute(spans[0], "network.transport") == "pipe");  // frames without HTTP headers
    CHECK(spans[1].name == "tools/list");
    CHECK(spans[1].kind == telemetry::SpanKind::server);
    CHECK(spans[1].status == telemetry::StatusCode::unset);
    CHECK(attribute(spans[1], "mcp.method.name") == "tools/list");
    CHECK(attribute(spans[1], "mcp.protocol.version") == std::string(mcp::kLatestProtocolVersion));
    CHECK(attribute(spans[1], "jsonrpc.request.id") == "2");
    CHECK(spans[2].name == "tools/call nowhere");
    CHECK(spans[2].status == telemetry::StatusCode::error);
    CHECK(attribute(spans[2], "error.type") == "-32602");
    CHECK(attribute(spans[2], "rpc.response.status_code") == "-32602");
    CHECK(spans[2].statusMessage == "Unknown tool: nowhere");
    CHECK(attribute(spans[3], "error.type") == "-32601");

    const auto metrics = options.telemetry->collectMetrics();
    const auto found = std::find_if(metrics.begin(), metrics.end(), [](const telemetry::MetricData& metric) {
        return metric.name == "mcp.server.operation.duration";
    });
    REQUIRE(found != metrics.end());
    CHECK(found->unit == "s");
    std::map<std::string, std::uint64_t> byMethod;
    for (const auto& point : found->points) {
        for (const auto& item : point.attributes) {
            if (item.key == "mcp.method.name") {
                byMethod[std::get<std::string>(item.value)] += point.count;
            }
        }
    }
    CHECK(byMethod == std::map<std::string, std::uint64_t>{
                          {"initialize", 1}, {"no/such/method", 1}, {"tools/call", 1}, {"tools/list", 1}});
}

TEST_CASE("server tells initialised sessions when the registry changes and logs at their level",
          "[mcp][server]") {
    auto registry = registryOf(1);
    Harness h(registry);
    Harness before(registry);  // never initialised: told nothing
    h.initialize();
    h.out.clear();
    before.out.clear();
    REQUIRE(registry->remove("t0"));
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["method"] == "notifications/tools/list_changed");
    CHECK(before.out.empty());

    h.out.clear();
    h.server.log(mcp::LogLevel::debug, "hidden");  // below the default level (info)
    h.server.log(mcp::LogLevel::warning, json{{"k", 1}}, "owner");
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["params"] == json{{"level", "warning"}, {"logger", "owner"}, {"data", {{"k", 1}}}});
    CHECK(h.call(request(5, "logging/setLevel", json{{"level", "debug"}}))["result"] == json::object());
    h.out.clear();
    h.session->log(mcp::LogLevel::debug, "shown");
    CHECK(h.out.size() == 1);
}
