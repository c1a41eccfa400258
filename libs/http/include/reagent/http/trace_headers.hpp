#pragma once
/// \file
/// \brief `setTraceContext`: the W3C Trace Context headers of an outgoing request.

#include "reagent/core/trace_context.hpp"
#include "reagent/http/http_headers.hpp"

namespace reagent::http {

/// \brief Sets the W3C Trace Context headers of `trace` (`traceparent`, and `tracestate` when it has one) on
/// an outgoing request, so that the server continues the caller's trace; nothing when `trace` is not valid
/// (nothing is traced).
void setTraceContext(HttpHeaders& headers, const SpanContext& trace);

}  // namespace reagent::http
