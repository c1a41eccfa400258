// reagent's two OTLP encodings of one batch, read back by OpenTelemetry's own protobuf root (generated
// from opentelemetry-proto, shipped in @opentelemetry/otlp-transformer): both must say the same thing, in
// the fields the specification names.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/core/run_to_end.hpp"
#include "reagent/telemetry/id_generator.hpp"
#include "reagent/telemetry/otlp_json.hpp"
#include "reagent/telemetry/otlp_metrics.hpp"
#include "reagent/telemetry/otlp_protobuf.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using namespace reagent::telemetry;

namespace {

// An agent's run as spans: the run, a model call that failed once and was retried, and a tool call.
std::vector<SpanData> runSpans() {
    IdGenerator ids(11);
    const TraceId trace = ids.traceId();
    SpanData run;
    run.context = SpanContext{trace, ids.spanId(), kSampledFlag, "vendor=opaque"};
    run.name = "invoke_agent helper";
    run.startTimeUnixNano = 1'764'000'000'000'000'000ULL;
    run.endTimeUnixNano = run.startTimeUnixNano + 2'000'000;
    run.attributes = {{"gen_ai.operation.name", std::string("invoke_agent")},
                      {"gen_ai.agent.name", std::string("helper")},
                      {"gen_ai.conversation.id", std::string("")}};
    run.status = StatusCode::ok;

    SpanData chat;
    chat.context = SpanContext{trace, ids.spanId(), kSampledFlag};
    chat.parentSpanId = run.context.spanId;
    chat.name = "chat gpt-4.1";
    chat.kind = SpanKind::client;
    chat.startTimeUnixNano = run.startTimeUnixNano + 10;
    chat.endTimeUnixNano = run.startTimeUnixNano + 900'000;
    chat.attributes = {{"gen_ai.usage.input_tokens", std::int64_t{40}},
                       {"gen_ai.usage.output_tokens", std::int64_t{0}},
                       {"gen_ai.request.temperature", 0.2},
                       {"gen_ai.request.top_p", std::numeric_limits<double>::infinity()},
                       {"gen_ai.response.finish_reasons", std::vector<std::string>{"tool_calls"}},
                       {"gen_ai.request.stream", false},
                       {"offset", std::int64_t{-5}}};
    chat.events = {{"gen_ai.retry", chat.startTimeUnixNano + 5, {{"attempt", std::int64_t{1}}}},
                   {"empty", chat.startTimeUnixNano + 6, {}}};
    chat.status = StatusCode::error;
    chat.statusMessage = "provider_failed: HTTP 529 overloaded \xC3\xA9";

    SpanData tool;
    tool.context = SpanContext{trace, ids.spanId(), 0};
    tool.parentSpanId = run.context.spanId;
    tool.name = "execute_tool echo";
    tool.startTimeUnixNano = run.startTimeUnixNano + 1'000'000;
    tool.endTimeUnixNano = run.startTimeUnixNano + 1'000'500;
    tool.attributes = {{"gen_ai.tool.name", std::string("echo")},
                       {"gen_ai.tool.call.id", std::string("call_1")}};
    return {run, chat, tool};
}

const Resource kResource{
    {{"service.name", std::string("billing")}, {"service.instance.id", std::int64_t{7}}}};
const InstrumentationScope kScope{"reagent", "0.1.0"};

// `protobuf` and `jsonText` (one request) read back by OpenTelemetry's schema of `signal`.
json decodedBodies(const std::string& protobuf, const std::string& jsonText, const char* signal) {
    const reagent::test::TempDir dir;
    std::ofstream(dir.path / "batch.pb", std::ios::binary) << protobuf;
    std::ofstream(dir.path / "batch.json") << jsonText;
    reagent::SubprocessOptions options;
    options.program = REAGENT_NODE;
    options.args = {REAGENT_OTLP_DECODE, (dir.path / "batch.pb").string(), (dir.path / "batch.json").string(),
                    signal};
    reagent::RunLimits limits;
    limits.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto ran = reagent::test::runCoro(reagent::runToEnd(options, limits));
    REQUIRE(ran);
    INFO(ran->stderrText);
    REQUIRE(ran->exitCode == 0);
    return json::parse(ran->stdoutText);
}

json decoded(const std::vector<SpanData>& spans) {
    return decodedBodies(encodeTracesProtobuf(kResource, kScope, spans),
                         encodeTracesJson(kResource, kScope, spans), "traces");
}

}  // namespace

TEST_CASE("OTLP: the protobuf and JSON encodings read back the same through OpenTelemetry's own schema",
          "[telemetry][otlp][integration]") {
    const auto spans = runSpans();
    const json out = decoded(spans);
    CHECK(out["fromProtobuf"] == out["fromJson"]);

    const json& request = out["fromProtobuf"];
    const json& resourceSpans = request["resourceSpans"][0];
    CHECK(resourceSpans["resource"]["attributes"] == json::parse(R"([
        {"key":"service.name","value":{"stringValue":"billing"}},
        {"key":"service.instance.id","value":{"intValue":"7"}}])"));
    CHECK(resourceSpans["scopeSpans"][0]["scope"] == json::parse(R"({"name":"reagent","version":"0.1.0"})"));
    const json& list = resourceSpans["scopeSpans"][0]["spans"];
    REQUIRE(list.size() == 3);

    const json& run = list[0];
    CHECK(run["traceId"] == spans[0].context.traceId.hex());
    CHECK(run["spanId"] == spans[0].context.spanId.hex());
    CHECK_FALSE(run.contains("parentSpanId"));
    CHECK(run["traceState"] == "vendor=opaque");
    CHECK(run["flags"] == 1);
    CHECK(run["kind"] == 1);
    CHECK(run["startTimeUnixNano"] == "1764000000000000000");
    CHECK(run["endTimeUnixNano"] == "1764000000002000000");
    CHECK(run["status"] == json::parse(R"({"code":1})"));
    // A oneof member at its default is still there: an empty string is a string.
    CHECK(run["attributes"][2] ==
          json::parse(R"({"key":"gen_ai.conversation.id","value":{"stringValue":""}})"));

    const json& chat = list[1];
    CHECK(chat["parentSpanId"] == spans[0].context.spanId.hex());
    CHECK(chat["kind"] == 3);
    CHECK(chat["attributes"] == json::parse(R"([
        {"key":"gen_ai.usage.input_tokens","value":{"intValue":"40"}},
        {"key":"gen_ai.usage.output_tokens","value":{"intValue":"0"}},
        {"key":"gen_ai.request.temperature","value":{"doubleValue":0.2}},
        {"key":"gen_ai.request.top_p","value":{"doubleValue":"Infinity"}},
        {"key":"gen_ai.response.finish_reasons","value":{"arrayValue":{"values":[{"stringValue":"tool_calls"}]}}},
        {"key":"gen_ai.request.stream","value":{"boolValue":false}},
        {"key":"offset","value":{"intValue":"-5"}}])"));
    CHECK(chat["events"] == json::parse(R"([
        {"timeUnixNano":"1764000000000000015","name":"gen_ai.retry",
         "attributes":[{"key":"attempt","value":{"intValue":"1"}}]},
        {"timeUnixNano":"1764000000000000016","name":"empty"}])"));
    CHECK(chat["status"] ==
          json::parse(R"({"message":"provider_failed: HTTP 529 overloaded \u00e9","code":2})"));

    const json& tool = list[2];
    CHECK_FALSE(tool.contains("flags"));  // not sampled: no flag set
    CHECK(tool["parentSpanId"] == spans[0].context.spanId.hex());
    CHECK_FALSE(tool.contains("status"));
}

TEST_CASE("OTLP metrics: the protobuf and JSON encodings read back the same through OpenTelemetry's schema",
          "[telemetry][otlp][metrics][integration]") {
    MetricData durations{"gen_ai.client.operation.duration", "GenAI operation duration.", "s", {}};
    durations.points.push_back(HistogramPoint{
        {{"gen_ai.operation.name", std::string("chat")}, {"gen_ai.request.model", std::string("gpt-4.1")}},
        1'764'000'000'000'000'000ULL,
        1'764'000'060'000'000'000ULL,
        3,
        1.75,
        0.25,
        1.0,
        {1, 2, 0},
        {0.5, 1.0}});
    durations.points.push_back(HistogramPoint{{}, 5, 6, 0, 0, 0, 0, {0, 0, 0}, {0.5, 1.0}});
    MetricData tokens{"gen_ai.client.token.usage", "", "{token}", {}};
    tokens.points.push_back(HistogramPoint{{{"gen_ai.token.type", std::string("input")}},
                                           1'764'000'000'000'000'000ULL,
                                           1'764'000'060'000'000'000ULL,
                                           1,
                                           4096,
                                           4096,
                                           4096,
                                           {0, 1},
                                           {1024}});
    const std::vector<MetricData> metrics{durations, tokens};
    const json out = decodedBodies(encodeMetricsProtobuf(kResource, kScope, metrics),
                                   encodeMetricsJson(kResource, kScope, metrics), "metrics");
    CHECK(out["fromProtobuf"] == out["fromJson"]);

    const json& resourceMetrics = out["fromProtobuf"]["resourceMetrics"][0];
    CHECK(resourceMetrics["resource"]["attributes"][0]["value"]["stringValue"] == "billing");
    const json& scope = resourceMetrics["scopeMetrics"][0];
    CHECK(scope["scope"] == json::parse(R"({"name":"reagent","version":"0.1.0"})"));
    REQUIRE(scope["metrics"].size() == 2);
    const json& first = scope["metrics"][0];
    CHECK(first["name"] == "gen_ai.client.operation.duration");
    CHECK(first["description"] == "GenAI operation duration.");
    CHECK(first["unit"] == "s");
    CHECK(first["histogram"]["aggregationTemporality"] == 2);
    CHECK(first["histogram"]["dataPoints"][0] == json::parse(R"({
        "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},
                      {"key":"gen_ai.request.model","value":{"stringValue":"gpt-4.1"}}],
        "startTimeUnixNano":"1764000000000000000","timeUnixNano":"1764000060000000000",
        "count":"3","sum":1.75,"bucketCounts":["1","2","0"],"explicitBounds":[0.5,1],
        "min":0.25,"max":1})"));
    // A point with nothing counted: no minimum or maximum, and its sum (optional in the schema) is kept.
    const json& empty = first["histogram"]["dataPoints"][1];
    CHECK_FALSE(empty.contains("min"));
    CHECK(empty["sum"] == 0);
    const json& second = scope["metrics"][1];
    CHECK(second["unit"] == "{token}");
    CHECK_FALSE(second.contains("description"));
    CHECK(second["histogram"]["dataPoints"][0]["bucketCounts"] == json::array({"0", "1"}));
}
