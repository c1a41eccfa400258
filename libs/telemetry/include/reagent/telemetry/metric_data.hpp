#pragma once
/// \file
/// \brief What a collection of metrics holds, in OpenTelemetry's data model: histograms with explicit
/// buckets and cumulative temporality, one point per set of attributes.

#include <cstdint>
#include <string>
#include <vector>

#include "reagent/telemetry/span_data.hpp"

namespace reagent::telemetry {

/// \brief One histogram's aggregate for one set of attributes, since `startTimeUnixNano`.
struct HistogramPoint {
    std::vector<Attribute> attributes;
    /// Nanoseconds since the Unix epoch: when this set of attributes was first recorded.
    std::uint64_t startTimeUnixNano = 0;
    /// When the point was collected.
    std::uint64_t timeUnixNano = 0;
    std::uint64_t count = 0;
    double sum = 0;
    double min = 0;
    double max = 0;
    /// One count per bucket: `explicitBounds.size() + 1` of them. Bucket `i` holds the values in
    /// `(explicitBounds[i-1], explicitBounds[i]]`; the last one those above every bound.
    std::vector<std::uint64_t> bucketCounts;
    std::vector<double> explicitBounds;
    friend bool operator==(const HistogramPoint&, const HistogramPoint&) = default;
};

/// \brief A histogram metric as exported (cumulative: each point counts everything since its start).
struct MetricData {
    std::string name;
    std::string description;
    /// UCUM, as the conventions write it: `s`, `{token}`.
    std::string unit;
    std::vector<HistogramPoint> points;
    friend bool operator==(const MetricData&, const MetricData&) = default;
};

}  // namespace reagent::telemetry
