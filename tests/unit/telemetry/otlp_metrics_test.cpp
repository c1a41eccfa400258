// Metrics in OTLP/JSON, field by field; the protobuf form is checked by OpenTelemetry's own decoder in
// tests/integration/telemetry (otlp_decode_test.cpp), against this same JSON.

#include "reagent/telemetry/otlp_metrics.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace reagent::telemetry;

TEST_CASE("OTLP/JSON metrics: a cumulative histogram with its points, buckets and attributes",
          "[telemetry][otlp][metrics]") {
    MetricData metric{"gen_ai.client.operation.duration", "GenAI operation duration.", "s", {}};
    metric.points.push_back(HistogramPoint{{{"gen_ai.operation.name", std::string("chat")}},
                                           1'700'000'000'000'000'000ULL,
                                           1'700'000'060'000'000'000ULL,
                                           3,
                                           1.75,
                                           0.25,
                                           1.0,
                                           {1, 2, 0},
                                           {0.5, 1.0}});
    metric.points.push_back(HistogramPoint{{}, 5, 6, 0, 0, 0, 0, {0, 0, 0}, {0.5, 1.0}});
    const std::vector<MetricData> metrics{metric};
    const json body = json::parse(encodeMetricsJson(Resource{{{"service.name", std::string("desk")}}},
                                                    InstrumentationScope{"reagent", "0.1.0"}, metrics));
    const json& resourceMetrics = body.at("resourceMetrics").at(0);
    CHECK(resourceMetrics.at("resource").at("attributes").at(0).at("key") == "service.name");
    const json& scope = resourceMetrics.at("scopeMetrics").at(0);
    CHECK(scope.at("scope") == json{{"name", "reagent"}, {"version", "0.1.0"}});
    const json& out = scope.at("metrics").at(0);
    CHECK(out.at("name") == "gen_ai.client.operation.duration");
    CHECK(out.at("unit") == "s");
    CHECK(out.at("description") == "GenAI operation duration.");
    CHECK(out.at("histogram").at("aggregationTemporality") == 2);  // cumulative
    const json& point = out.at("histogram").at("dataPoints").at(0);
    CHECK(point.at("startTimeUnixNano") == "1700000000000000000");
    CHECK(point.at("timeUnixNano") == "1700000060000000000");
    CHECK(point.at("count") == "3");
    CHECK(point.at("sum") == 1.75);
    CHECK(point.at("min") == 0.25);
    CHECK(point.at("max") == 1.0);
    CHECK(point.at("bucketCounts") == json{"1", "2", "0"});
    CHECK(point.at("explicitBounds") == json{0.5, 1.0});
    CHECK(point.at("attributes").at(0) ==
          json{{"key", "gen_ai.operation.name"}, {"value", {{"stringValue", "chat"}}}});
    const json& empty = out.at("histogram").at("dataPoints").at(1);
    CHECK_FALSE(empty.contains("attributes"));
    CHECK_FALSE(empty.contains("min"));  // no value, no minimum
}
