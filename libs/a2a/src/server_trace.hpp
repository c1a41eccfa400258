#pragma once
// One request to the A2A server in OpenTelemetry's HTTP server conventions (internal to reagent::a2a): a
// span `{method} {route}` (kind server) continuing the caller's `traceparent`, which the task's run then
// continues, and the request's `http.server.request.duration`.

#include <chrono>
#include <memory>
#include <string>

#include "reagent/core/trace_context.hpp"
#include "reagent/http/server_connections.hpp"
#include "reagent/jsonrpc/message.hpp"
#include "reagent/telemetry/telemetry.hpp"

namespace reagent::a2a::detail {

/// The caller's span, from its W3C Trace Context headers; a malformed one is ignored (a new trace
/// starts), as the specification asks.
[[nodiscard]] SpanContext callerTrace(const http::HttpHeaders& headers);

class ServedRequest {
  public:
    /// `route`: the request's known path (the JSON-RPC endpoint, the card), or empty for any other.
    ServedRequest(std::shared_ptr<telemetry::Telemetry> telemetry, const http::ServerRequest& request,
                  std::string route);
    ServedRequest(const ServedRequest&) = delete;
    ServedRequest& operator=(const ServedRequest&) = delete;

    /// What the request's work continues: the server span, or the caller's span when nothing records.
    [[nodiscard]] const SpanContext& context() const noexcept { return context_; }
    /// The request was a JSON-RPC call (`Decision`): its method, id and the code of the error answered
    /// (0: none), in the RPC conventions.
    void call(const std::string& method, const std::string& methodOriginal, const jsonrpc::RequestId& id,
              int errorCode);
    /// The answer was given (for a stream: its headers).
    void end(const http::ServerAnswer& answer);

  private:
    std::shared_ptr<telemetry::Telemetry> telemetry_;
    std::string method_;
    std::string route_;
    std::chrono::steady_clock::time_point start_;
    int rpcErrorCode_ = 0;
    telemetry::Span span_;
    SpanContext context_;
};

}  // namespace reagent::a2a::detail
