#include "attempt_span.hpp"

#include <charconv>
#include <string_view>

#include "reagent/http/trace_headers.hpp"

namespace reagent::providers::detail {

namespace {

// The URL's parts the conventions name: the host, the port (the scheme's default when none is given) and
// the URL without its query (which may hold a key) or fragment.
struct UrlParts {
    std::string host;
    std::int64_t port = 0;
    std::string full;
};

UrlParts partsOf(std::string_view url) {
    UrlParts parts;
    const auto schemeEnd = url.find("://");
    if (schemeEnd == std::string_view::npos) {
        return parts;
    }
    const std::string_view scheme = url.substr(0, schemeEnd);
    const auto authorityStart = schemeEnd + 3;
    const auto pathStart = url.find_first_of("/?#", authorityStart);
    std::string_view authority = url.substr(authorityStart, pathStart - authorityStart);
    if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
        authority.remove_prefix(at + 1);  // credentials are never recorded
    }
    std::string_view host = authority;
    std::string_view port;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        host = authority.substr(1, close == std::string_view::npos ? authority.size() : close - 1);
        if (close != std::string_view::npos && close + 1 < authority.size() && authority[close + 1] == ':') {
            port = authority.substr(close + 2);
        }
    } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    parts.host = std::string(host);
    parts.port = scheme == "https" ? 443 : 80;
    if (!port.empty()) {
        std::int64_t number = 0;
        if (std::from_chars(port.data(), port.data() + port.size(), number).ec == std::errc{}) {
            parts.port = number;
        }
    }
    const auto queryStart = url.find_first_of("?#", authorityStart);
    parts.full = std::string(scheme) + "://" + std::string(authority) +
                 std::string(pathStart == std::string_view::npos || pathStart == queryStart
                                 ? std::string_view()
                                 : url.substr(pathStart, queryStart - pathStart));
    return parts;
}

}  // namespace

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
    const UrlParts parts = partsOf(request.url);
    span_.setAttribute("http.request.method", request.method);
    span_.setAttribute("server.address", parts.host);
    span_.setAttribute("server.port", parts.port);
    span_.setAttribute("url.full", parts.full);
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
