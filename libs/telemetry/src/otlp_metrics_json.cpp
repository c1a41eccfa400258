#include "otlp_json_values.hpp"
#include "reagent/telemetry/otlp_metrics.hpp"

namespace reagent::telemetry {

namespace {

using nlohmann::json;

json histogramPoint(const HistogramPoint& point) {
    json counts = json::array();
    for (const std::uint64_t count : point.bucketCounts) {
        counts.push_back(std::to_string(count));
    }
    json bounds = json::array();
    for (const double bound : point.explicitBounds) {
        bounds.push_back(detail::doubleValue(bound));
    }
    json out = {{"startTimeUnixNano", std::to_string(point.startTimeUnixNano)},
                {"timeUnixNano", std::to_string(point.timeUnixNano)},
                {"sum", detail::doubleValue(point.sum)},
                {"bucketCounts", std::move(counts)},
                {"explicitBounds", std::move(bounds)}};
    if (!point.attributes.empty()) {
        out["attributes"] = detail::attributes(point.attributes);
    }
    if (point.count > 0) {  // proto3's JSON form leaves a zero out, as the protobuf form does
        out["count"] = std::to_string(point.count);
        out["min"] = detail::doubleValue(point.min);
        out["max"] = detail::doubleValue(point.max);
    }
    return out;
}

json metricJson(const MetricData& metric) {
    json points = json::array();
    for (const HistogramPoint& point : metric.points) {
        points.push_back(histogramPoint(point));
    }
    json out = {{"name", metric.name},
                {"histogram", {{"dataPoints", std::move(points)}, {"aggregationTemporality", 2}}}};
    if (!metric.description.empty()) {
        out["description"] = metric.description;
    }
    if (!metric.unit.empty()) {
        out["unit"] = metric.unit;
    }
    return out;
}

}  // namespace

std::string encodeMetricsJson(const Resource& resource, const InstrumentationScope& scope,
                              std::span<const MetricData> metrics) {
    json list = json::array();
    for (const MetricData& metric : metrics) {
        list.push_back(metricJson(metric));
    }
    const json request = {{"resourceMetrics",
                           json::array({{{"resource", detail::resourceJson(resource)},
                                         {"scopeMetrics", json::array({{{"scope", detail::scopeJson(scope)},
                                                                        {"metrics", std::move(list)}}})}}})}};
    return request.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace reagent::telemetry
