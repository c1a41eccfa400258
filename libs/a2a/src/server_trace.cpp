#include "server_trace.hpp"

#include <utility>
#include <variant>

namespace reagent::a2a::detail {

namespace {

// The methods the HTTP conventions name; any other is `_OTHER`, so that a client cannot grow the
// metric's cardinality.
std::string knownMethod(const std::string& method) {
    for (const char* known : {"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"}) {
        if (method == known) {
            return method;
        }
    }
    return "_OTHER";
}

}  // namespace

SpanContext callerTrace(const http::HttpHeaders& headers) {
    const auto traceparent = headers.find("traceparent");
    if (!traceparent) {
        return {};
    }
    auto read = telemetry::parseTraceparent(*traceparent, headers.find("tracestate").value_or(""));
    return read ? std::move(*read) : SpanContext{};
}

ServedRequest::ServedRequest(std::shared_ptr<telemetry::Telemetry> telemetry,
                             const http::ServerRequest& request, std::string route)
    : telemetry_(std::move(telemetry)),
      method_(knownMethod(request.method)),
      route_(std::move(route)),
      start_(std::chrono::steady_clock::now()) {
    const SpanContext caller = callerTrace(request.headers);
    span_ = telemetry_->tracer().startSpan(route_.empty() ? method_ : method_ + " " + route_,
                                           telemetry::SpanKind::server, &caller);
    context_ = span_.context();
    if (span_.recording()) {
        span_.setAttribute("http.request.method", method_);
        span_.setAttribute("url.scheme", std::string("http"));
        if (!route_.empty()) {
            span_.setAttribute("http.route", route_);
        }
    }
}

void ServedRequest::call(const std::string& method, const std::string& methodOriginal,
                         const jsonrpc::RequestId& id, int errorCode) {
    rpcErrorCode_ = errorCode;
    if (!span_.recording() || method.empty()) {
        return;
    }
    span_.setAttribute("rpc.system.name", std::string("jsonrpc"));
    span_.setAttribute("rpc.method", method);
    if (!methodOriginal.empty()) {
        span_.setAttribute("rpc.method_original", methodOriginal);
    }
    span_.setAttribute("jsonrpc.protocol.version", std::string("2.0"));
    span_.setAttribute("jsonrpc.request.id", jsonrpc::toString(id));
}

void ServedRequest::end(const http::ServerAnswer& answer) {
    const unsigned status = std::visit([](const auto& reply) { return reply.status; }, answer.reply);
    const bool failed = status >= 500;  // the conventions: a 4xx is the client's error, not the server's
    if (span_.recording()) {
        span_.setAttribute("http.response.status_code", static_cast<std::int64_t>(status));
        if (failed) {
            span_.setAttribute("error.type", std::to_string(status));
            span_.setStatus(telemetry::StatusCode::error);
        } else if (rpcErrorCode_ != 0) {
            // A JSON-RPC error travels in a 200: the RPC conventions name it by its code, as a string.
            const std::string code = std::to_string(rpcErrorCode_);
            span_.setAttribute("rpc.response.status_code", code);
            span_.setAttribute("error.type", code);
            span_.setStatus(telemetry::StatusCode::error);
        }
    }
    span_.end();
    if (const telemetry::Instruments* metrics = telemetry_->instruments()) {
        std::vector<telemetry::Attribute> attributes;
        attributes.reserve(5);
        attributes.push_back({"http.request.method", method_});
        attributes.push_back({"url.scheme", std::string("http")});
        if (!route_.empty()) {
            attributes.push_back({"http.route", route_});
        }
        attributes.push_back({"http.response.status_code", static_cast<std::int64_t>(status)});
        if (failed) {
            attributes.push_back({"error.type", std::to_string(status)});
        }
        metrics->httpServerDuration.record(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
            std::move(attributes));
    }
}

}  // namespace reagent::a2a::detail
