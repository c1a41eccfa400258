#include "reagent/http/trace_headers.hpp"

namespace reagent::http {

void setTraceContext(HttpHeaders& headers, const SpanContext& trace) {
    if (!trace.valid()) {
        return;
    }
    headers.set("traceparent", formatTraceparent(trace));
    if (!trace.traceState.empty()) {
        headers.set("tracestate", trace.traceState);
    }
}

}  // namespace reagent::http
