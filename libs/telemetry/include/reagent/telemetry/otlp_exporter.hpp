#pragma once
/// \file
/// \brief `OtlpExporter`: sends batches of spans, or collected metrics, to an OTLP/HTTP endpoint,
/// retrying as the OTLP specification says.

#include <chrono>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/telemetry/metric_data.hpp"
#include "reagent/telemetry/span_data.hpp"
#include "reagent/telemetry/telemetry_config.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

/// \brief How an export is retried: at most `maxAttempts` requests, waiting between them what the server
/// asks (`Retry-After`) or else an exponential backoff from `initialBackoff` (× 1.5 each time) up to
/// `maxBackoff`, all within `OtlpDestination::timeout`.
struct ExportRetry {
    int maxAttempts = 5;
    std::chrono::milliseconds initialBackoff{1000};
    std::chrono::milliseconds maxBackoff{5000};
};

/// \brief Posts to one `OtlpDestination` (a signal's endpoint) in its protocol's encoding, compressed
/// as it says, with its headers.
///
/// A request is retried when it could not be made or was answered 429, 502, 503 or 504 (the codes
/// OTLP/HTTP names retryable), and not otherwise. The whole export, waits included, keeps to
/// `OtlpDestination::timeout`.
///
/// \par Errors
/// `export_failed`, with the endpoint (credentials removed), the last status or transport error and the
/// attempts made; `cancelled` when the caller was cancelled. Never a header's value. Nothing is thrown.
///
/// \par Thread safety
/// One exporter is used from one executor at a time (it holds an `http::HttpClient`).
class OtlpExporter {
  public:
    OtlpExporter(OtlpDestination destination, Resource resource, ExportRetry retry = {},
                 http::HttpClientConfig http = {});

    /// \brief Posts `spans` (to the traces endpoint).
    [[nodiscard]] Task<expected<void, TelemetryError>> exportSpans(std::vector<SpanData> spans);
    /// \brief Posts `metrics` (to the metrics endpoint).
    [[nodiscard]] Task<expected<void, TelemetryError>> exportMetrics(std::vector<MetricData> metrics);

  private:
    [[nodiscard]] Task<expected<void, TelemetryError>> post(std::string body);

    OtlpDestination destination_;
    Resource resource_;
    ExportRetry retry_;
    http::HttpClient client_;
};

}  // namespace reagent::telemetry
