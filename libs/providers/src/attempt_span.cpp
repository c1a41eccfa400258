#include "attempt_span.hpp"

#include "reagent/http/trace_headers.hpp"
#include "reagent/http/url_parts.hpp"

namespace reagent::providers::detail {

AttemptSpan::AttemptSpan(telemetry::Tracer* tracer, const SpanContext& parent, http::HttpRequest& request,
                         int resends) {
    if (tracer == nullptr || !parent.valid()) {
        http::setTraceContext(request.headers, parent);
        return;
    }
    span_ = tracer->startSpan(request.method, telemetry::SpanKind::client, &parent);
    http::setTraceContext(request.headers, span_.context());
    if (!span_.recording()) {
        return;
    }
    span_.setAttribute("http.request.method", request.method);
    if (const auto parts = http::urlParts(request.url)) {
        span_.setAttribute("server.address", parts->host);
        span_.setAttribute("server.port", static_cast<std::int64_t>(parts->port));
        span_.setAttribute("url.full", parts->withoutQuery);  // the query may hold a key
    }
    if (resends > 0) {
        span_.setAttribute("http.request.resend_count", static_cast<std::int64_t>(resends));
    }
}

void AttemptSpan::end(int status, const llm::ProviderError* error) {
    if (span_.recording()) {
        if (status != 0) {
            span_.setAttribute("http.response.status_code", static_cast<std::int64_t>(status));
        }
        if (status >= 400) {
            span_.setAttribute("error.type", std::to_string(status));  // the conventions: the status code
            span_.setStatus(telemetry::StatusCode::error);
        } else if (error != nullptr) {
            span_.setAttribute("error.type", std::string(llm::toString(error->code)));
            span_.setStatus(telemetry::StatusCode::error, error->describe());
        }
    }
    span_.end();
}

}  // namespace reagent::providers::detail
