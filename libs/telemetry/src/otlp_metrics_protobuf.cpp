#include "proto_writer.hpp"
#include "reagent/telemetry/otlp_metrics.hpp"

namespace reagent::telemetry {

namespace {

using detail::ProtoWriter;

// metrics.proto's AggregationTemporality: every point counts everything since its start.
constexpr std::uint64_t kCumulative = 2;

// HistogramDataPoint { start_time_unix_nano = 2; time_unix_nano = 3; count = 4; sum = 5;
// bucket_counts = 6; explicit_bounds = 7; attributes = 9; min = 11; max = 12; }. The repeated numbers are
// packed, as proto3 writes them; `sum`, `min` and `max` are `optional`, so always written.
ProtoWriter protoHistogramPoint(const HistogramPoint& point) {
    ProtoWriter out;
    out.fixed64IfSet(2, point.startTimeUnixNano);
    out.fixed64IfSet(3, point.timeUnixNano);
    out.fixed64IfSet(4, point.count);
    out.doubleField(5, point.sum);
    if (!point.bucketCounts.empty()) {
        ProtoWriter packed;
        for (const std::uint64_t count : point.bucketCounts) {
            packed.little(count, 8);
        }
        out.messageField(6, packed);
    }
    if (!point.explicitBounds.empty()) {
        ProtoWriter packed;
        for (const double bound : point.explicitBounds) {
            packed.littleDouble(bound);
        }
        out.messageField(7, packed);
    }
    detail::protoAttributes(out, 9, point.attributes);
    if (point.count > 0) {
        out.doubleField(11, point.min);
        out.doubleField(12, point.max);
    }
    return out;
}

// Metric { name = 1; description = 2; unit = 3; histogram = 9; }
// Histogram { data_points = 1; aggregation_temporality = 2; }
ProtoWriter protoMetric(const MetricData& metric) {
    ProtoWriter histogram;
    for (const HistogramPoint& point : metric.points) {
        histogram.messageField(1, protoHistogramPoint(point));
    }
    histogram.varintField(2, kCumulative);
    ProtoWriter out;
    out.stringIfSet(1, metric.name);
    out.stringIfSet(2, metric.description);
    out.stringIfSet(3, metric.unit);
    out.messageField(9, histogram);
    return out;
}

}  // namespace

std::string encodeMetricsProtobuf(const Resource& resource, const InstrumentationScope& scope,
                                  std::span<const MetricData> metrics) {
    std::vector<ProtoWriter> items;
    items.reserve(metrics.size());
    for (const MetricData& item : metrics) {
        items.push_back(protoMetric(item));
    }
    return detail::exportRequest(resource, scope, items);
}

}  // namespace reagent::telemetry
