#pragma once
/// \file
/// \brief `OtlpExporter`: sends batches of spans to an OTLP/HTTP endpoint, retrying as the OTLP
/// specification says.

#include <chrono>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/telemetry/span_data.hpp"
#include "reagent/telemetry/telemetry_config.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

/// \brief How an export is retried: at most `maxAttempts` requests, waiting between them what the server
/// asks (`Retry-After`) or else an exponential backoff from `initialBackoff` (× 1.5 each time) up to
/// `maxBackoff`, all within `TelemetryConfig::timeout`.
struct ExportRetry {
    int maxAttempts = 5;
    std::chrono::milliseconds initialBackoff{1000};
    std::chrono::milliseconds maxBackoff{5000};
};

/// \brief Posts batches to `TelemetryConfig::tracesEndpoint` in its protocol's encoding, with its headers.
///
/// A batch is retried when the request could not be made or was answered 429, 502, 503 or 504 (the codes
/// OTLP/HTTP names retryable), and not otherwise. The whole export, waits included, keeps to
/// `TelemetryConfig::timeout`.
///
/// \par Errors
/// `export_failed`, with the endpoint (credentials removed), the last status or transport error and the
/// attempts made; `cancelled` when the caller was cancelled. Never a header's value. Nothing is thrown.
///
/// \par Thread safety
/// One exporter is used from one executor at a time (it holds an `http::HttpClient`).
class OtlpExporter {
  public:
    explicit OtlpExporter(TelemetryConfig config, ExportRetry retry = {}, http::HttpClientConfig http = {});

    [[nodiscard]] Task<expected<void, TelemetryError>> exportSpans(std::vector<SpanData> spans);

  private:
    [[nodiscard]] Task<expected<void, TelemetryError>> exportBatch(std::vector<SpanData> spans);

    TelemetryConfig config_;
    ExportRetry retry_;
    http::HttpClient client_;
};

}  // namespace reagent::telemetry
