#include "reagent/telemetry/otlp_json.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "reagent/telemetry/id_generator.hpp"

using nlohmann::json;
using namespace reagent::telemetry;

namespace {

// A root span (an agent's run) and its child (a model call), as a run would produce them.
std::vector<SpanData> twoSpans() {
    IdGenerator ids(1);
    SpanData root;
    root.context = SpanContext{ids.traceId(), ids.spanId(), kSampledFlag};
    root.name = "invoke_agent helper";
    root.kind = SpanKind::internal;
    root.startTimeUnixNano = 1'700'000'000'000'000'000ULL;
    root.endTimeUnixNano = 1'700'000'000'500'000'000ULL;
    root.attributes = {{"gen_ai.operation.name", std::string("invoke_agent")},
                       {"gen_ai.agent.name", std::string("helper")}};
    root.status = StatusCode::ok;

    SpanData chat;
    chat.context = SpanContext{root.context.traceId, ids.spanId(), kSampledFlag, "rojo=1"};
    chat.parentSpanId = root.context.spanId;
    chat.name = "chat gpt-4.1";
    chat.kind = SpanKind::client;
    chat.startTimeUnixNano = root.startTimeUnixNano + 1000;
    chat.endTimeUnixNano = root.endTimeUnixNano - 1000;
    chat.attributes = {{"gen_ai.usage.input_tokens", std::int64_t{40}},
                       {"gen_ai.response.finish_reasons", std::vector<std::string>{"tool_calls"}},
                       {"sampled.ratio", 0.5},
                       {"gen_ai.request.stream", false}};
    chat.events = {{"retry", chat.startTimeUnixNano + 10, {{"attempt", std::int64_t{2}}}}};
    chat.status = StatusCode::error;
    chat.statusMessage = "provider_failed: overloaded";
    return {root, chat};
}

}  // namespace

TEST_CASE("OTLP/JSON: the request's envelope, resource and scope", "[telemetry][otlp]") {
    const auto spans = twoSpans();
    const json body = json::parse(encodeTracesJson(Resource{{{"service.name", std::string("billing")}}},
                                                   InstrumentationScope{"reagent", "0.1.0"}, spans));
    REQUIRE(body["resourceSpans"].size() == 1);
    const json& resourceSpans = body["resourceSpans"][0];
    CHECK(resourceSpans["resource"]["attributes"] ==
          json::parse(R"([{"key":"service.name","value":{"stringValue":"billing"}}])"));
    REQUIRE(resourceSpans["scopeSpans"].size() == 1);
    CHECK(resourceSpans["scopeSpans"][0]["scope"] == json::parse(R"({"name":"reagent","version":"0.1.0"})"));
    CHECK(resourceSpans["scopeSpans"][0]["spans"].size() == 2);
}

TEST_CASE("OTLP/JSON: a span's fields as the encoding writes them", "[telemetry][otlp]") {
    const auto spans = twoSpans();
    const json body = json::parse(encodeTracesJson(Resource{}, InstrumentationScope{"reagent", ""}, spans));
    const json& list = body["resourceSpans"][0]["scopeSpans"][0]["spans"];
    const json& root = list[0];
    const json& chat = list[1];

    CHECK(root["traceId"] == spans[0].context.traceId.hex());  // hex, not base64
    CHECK(root["traceId"].get<std::string>().size() == 32);
    CHECK(root["spanId"].get<std::string>().size() == 16);
    CHECK_FALSE(root.contains("parentSpanId"));  // a root span
    CHECK(root["kind"] == 1);                    // enums are integers
    CHECK(root["startTimeUnixNano"] == "1700000000000000000");
    CHECK(root["endTimeUnixNano"] == "1700000000500000000");
    CHECK(root["status"] == json::parse(R"({"code":1})"));
    CHECK(root["flags"] == 1);
    CHECK_FALSE(root.contains("events"));

    CHECK(chat["parentSpanId"] == spans[0].context.spanId.hex());
    CHECK(chat["traceId"] == root["traceId"]);
    CHECK(chat["kind"] == 3);
    CHECK(chat["traceState"] == "rojo=1");
    CHECK(chat["attributes"] == json::parse(R"([
        {"key":"gen_ai.usage.input_tokens","value":{"intValue":"40"}},
        {"key":"gen_ai.response.finish_reasons","value":{"arrayValue":{"values":[{"stringValue":"tool_calls"}]}}},
        {"key":"sampled.ratio","value":{"doubleValue":0.5}},
        {"key":"gen_ai.request.stream","value":{"boolValue":false}}])"));
    CHECK(chat["events"] == json::parse(R"([{"name":"retry","timeUnixNano":"1700000000000001010",
        "attributes":[{"key":"attempt","value":{"intValue":"2"}}]}])"));
    CHECK(chat["status"] == json::parse(R"({"code":2,"message":"provider_failed: overloaded"})"));
}

TEST_CASE("OTLP/JSON: values JSON cannot hold as they are", "[telemetry][otlp]") {
    SpanData span = twoSpans()[0];
    span.attributes = {{"nan", std::numeric_limits<double>::quiet_NaN()},
                       {"up", std::numeric_limits<double>::infinity()},
                       {"down", -std::numeric_limits<double>::infinity()},
                       {"big", std::numeric_limits<std::int64_t>::min()},
                       {"bytes", std::string("ok \xff end")}};
    span.status = StatusCode::unset;
    const std::vector<SpanData> spans{span};
    const json body = json::parse(encodeTracesJson(Resource{}, InstrumentationScope{"reagent", ""}, spans));
    const json& written = body["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
    const json& attributes = written["attributes"];
    CHECK(attributes[0]["value"]["doubleValue"] == "NaN");
    CHECK(attributes[1]["value"]["doubleValue"] == "Infinity");
    CHECK(attributes[2]["value"]["doubleValue"] == "-Infinity");
    CHECK(attributes[3]["value"]["intValue"] == "-9223372036854775808");
    CHECK(attributes[4]["value"]["stringValue"] == "ok \xEF\xBF\xBD end");  // invalid UTF-8 replaced
    CHECK_FALSE(written.contains("status"));                                // unset is the default
}
