#pragma once
/// \file
/// \brief Spans as OTLP/protobuf: the body of an OTLP/HTTP `POST /v1/traces` with
/// `application/x-protobuf`, OTLP's default encoding.

#include <span>
#include <string>

#include "reagent/telemetry/span_data.hpp"

namespace reagent::telemetry {

/// \brief `spans`, produced by `scope` in `resource`, as a serialized `ExportTraceServiceRequest`
/// (opentelemetry-proto's `collector/trace/v1`), written by hand to the protobuf wire format: no protobuf
/// library. Fields at their proto3 default are left out, as a protobuf library leaves them out; an
/// attribute's value (a `oneof`) is always written, even when it is the default (`false`, `0`, `""`).
[[nodiscard]] std::string encodeTracesProtobuf(const Resource& resource, const InstrumentationScope& scope,
                                               std::span<const SpanData> spans);

}  // namespace reagent::telemetry
