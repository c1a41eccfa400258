#pragma once
/// \file
/// \brief Spans as OTLP/JSON: the body of an OTLP/HTTP `POST /v1/traces` with `application/json`.

#include <span>
#include <string>

#include "reagent/telemetry/span_data.hpp"

namespace reagent::telemetry {

/// \brief `spans`, produced by `scope` in `resource`, as an `ExportTraceServiceRequest` in OTLP's JSON
/// encoding: the protobuf JSON mapping with OTLP's exceptions (ids as lowercase hex, not base64; enums as
/// integers). 64-bit integers (times, `intValue`) are decimal strings, as proto3 JSON writes them; a
/// double that is not finite is `"NaN"`, `"Infinity"` or `"-Infinity"`. Fields at their default value are
/// left out (a root span has no `parentSpanId`).
[[nodiscard]] std::string encodeTracesJson(const Resource& resource, const InstrumentationScope& scope,
                                           std::span<const SpanData> spans);

}  // namespace reagent::telemetry
