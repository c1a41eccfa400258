#pragma once
// One HTTP attempt of a model call as an OpenTelemetry HTTP client span (internal to reagent::providers):
// `POST`, kind client, child of the call's `chat` span, its context sent as `traceparent` so that the API
// (or a proxy) continues under the attempt; retries are spans of their own (`http.request.resend_count`).

#include <string>

#include "reagent/core/trace_context.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/telemetry/tracer.hpp"

namespace reagent::providers::detail {

class AttemptSpan {
  public:
    AttemptSpan() = default;
    /// Starts the span of attempt `resends` + 1 of `request` under `parent` and sets the request's trace
    /// headers to it; without a tracer, or a parent to nest in, the headers carry `parent` and no span is
    /// made.
    AttemptSpan(telemetry::Tracer* tracer, const SpanContext& parent, http::HttpRequest& request,
                int resends);

    /// Ends the span: `status` is the HTTP status (0: none came back); `error` how the attempt failed.
    void end(int status, const llm::ProviderError* error);

  private:
    telemetry::Span span_;
};

}  // namespace reagent::providers::detail
