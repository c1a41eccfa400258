#pragma once
/// \file
/// \brief W3C Trace Context headers (`traceparent`, `tracestate`) read from a request.

#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

// The identities are the core's: every library passes them on, only this one records spans.
using reagent::formatTraceparent;
using reagent::kSampledFlag;
using reagent::SpanContext;
using reagent::SpanId;
using reagent::TraceId;

/// \brief The context a `traceparent` header carries (and `tracestate`, kept when it is valid), as a
/// remote context.
///
/// Follows W3C Trace Context: lowercase hex only; version `ff` is invalid; version `00` is exactly 55
/// characters; a later version may be longer when a `-` follows the flags (what follows is ignored); the
/// trace and parent ids must not be all zero. An invalid `tracestate` is dropped, not an error, as the
/// specification asks.
///
/// \par Errors
/// `invalid_trace_context`, saying what is wrong (the header itself is not quoted: it comes from outside).
[[nodiscard]] expected<SpanContext, TelemetryError> parseTraceparent(std::string_view traceparent,
                                                                     std::string_view tracestate = {});

/// \brief Whether `tracestate` is a header W3C Trace Context allows: at most 32 comma-separated members
/// `key=value` (empty members and surrounding spaces and tabs ignored), each key once, keys and values of
/// the allowed characters and lengths.
[[nodiscard]] bool validTraceState(std::string_view tracestate);

}  // namespace reagent::telemetry
