#pragma once
/// \file
/// \brief Metrics as OTLP: the body of an OTLP/HTTP `POST /v1/metrics`, in protobuf
/// (`application/x-protobuf`, the default) or JSON.

#include <span>
#include <string>

#include "reagent/telemetry/metric_data.hpp"

namespace reagent::telemetry {

/// \brief `metrics`, produced by `scope` in `resource`, as a serialized `ExportMetricsServiceRequest`
/// (opentelemetry-proto's `collector/metrics/v1`), histograms with cumulative temporality, written by hand
/// to the protobuf wire format as `encodeTracesProtobuf` is.
[[nodiscard]] std::string encodeMetricsProtobuf(const Resource& resource, const InstrumentationScope& scope,
                                                std::span<const MetricData> metrics);

/// \brief The same request in OTLP/JSON: lowerCamelCase field names, 64-bit integers as strings, the
/// temporality as its number.
[[nodiscard]] std::string encodeMetricsJson(const Resource& resource, const InstrumentationScope& scope,
                                            std::span<const MetricData> metrics);

}  // namespace reagent::telemetry
