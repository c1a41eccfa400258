#pragma once
/// \file
/// \brief `TelemetryConfig`: where and how traces are exported, read from OpenTelemetry's standard
/// environment variables (`fromEnvironment`) or set in code.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/telemetry/span_data.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

/// \brief The OTLP/HTTP encodings (`OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`, `http/json`).
enum class OtlpProtocol { http_protobuf, http_json };

/// \brief How an export's body is compressed (`OTEL_EXPORTER_OTLP_COMPRESSION`: `none`, `gzip`).
enum class OtlpCompression { none, gzip };

/// \brief Where and how one signal (traces, metrics) is exported over OTLP/HTTP.
struct OtlpDestination {
    /// The full URL posted to (`.../v1/traces`, `.../v1/metrics`).
    std::string endpoint;
    OtlpProtocol protocol = OtlpProtocol::http_protobuf;
    /// Sent with every export (an API key, say). Their values never appear in messages or traces.
    std::vector<std::pair<std::string, std::string>> headers;
    /// How long one export may take, retries included.
    std::chrono::milliseconds timeout{10'000};
    /// `gzip`: the body is sent with `Content-Encoding: gzip`.
    OtlpCompression compression = OtlpCompression::none;
};

/// \brief The samplers of `OTEL_TRACES_SAMPLER`, with their standard names.
enum class SamplerKind {
    always_on,
    always_off,
    traceidratio,
    parentbased_always_on,
    parentbased_always_off,
    parentbased_traceidratio,
};

struct SamplerConfig {
    /// OpenTelemetry's default: a root is sampled, a child follows its parent.
    SamplerKind kind = SamplerKind::parentbased_always_on;
    /// For the ratio samplers (`OTEL_TRACES_SAMPLER_ARG`): the share of traces sampled, in [0, 1].
    double ratio = 1.0;
};

/// \brief Which GenAI semantic conventions the spans follow. OpenTelemetry's transition plan keeps
/// v1.36.0 unless `OTEL_SEMCONV_STABILITY_OPT_IN` lists `gen_ai_latest_experimental`.
enum class GenAiConventions {
    /// v1.36.0: `gen_ai.system` names the provider (`openai`, `anthropic`, `gemini`); no cache or
    /// reasoning token counts.
    v1_36,
    /// The latest (v1.41): `gen_ai.provider.name` (`openai`, `anthropic`, `gcp.gemini`), and the cache
    /// and reasoning token counts.
    latest,
};

/// \brief The batch processor's limits, with OpenTelemetry's defaults (`OTEL_BSP_MAX_QUEUE_SIZE`,
/// `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, `OTEL_BSP_SCHEDULE_DELAY`).
struct BatchOptions {
    /// Spans waiting beyond this are dropped (and counted): a run never blocks on a full queue.
    std::size_t maxQueueSize = 2048;
    /// At most this many spans per export; a full batch is exported at once.
    std::size_t maxExportBatchSize = 512;
    /// How long an ended span may wait for more to join its batch.
    std::chrono::milliseconds scheduleDelay{5000};
};

/// \brief Where and how an agent's traces and metrics go.
struct TelemetryConfig {
    /// False: no span is recorded or exported (no endpoint configured, `OTEL_SDK_DISABLED=true`, or
    /// `OTEL_TRACES_EXPORTER=none`).
    bool enabled = false;
    /// Where spans are posted (`.../v1/traces`).
    OtlpDestination traces;
    /// False: no metric is recorded or exported (no endpoint, `OTEL_SDK_DISABLED=true`, or
    /// `OTEL_METRICS_EXPORTER=none`).
    bool metricsEnabled = false;
    /// Where metrics are posted (`.../v1/metrics`).
    OtlpDestination metrics;
    /// How often recorded metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`); an interval in which
    /// nothing was recorded exports nothing. `Telemetry::flush` and `shutdown` export at once.
    std::chrono::milliseconds metricExportInterval{60'000};
    /// `service.name` and the rest of `OTEL_RESOURCE_ATTRIBUTES`, plus the `telemetry.sdk.*` attributes.
    Resource resource;
    SamplerConfig sampler;
    BatchOptions batch;
    /// Record the messages, instructions and tool arguments and results on the spans
    /// (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). Off by default: they may hold what users
    /// typed and what tools read.
    bool captureContent = false;
    /// `latest` when `OTEL_SEMCONV_STABILITY_OPT_IN` lists `gen_ai_latest_experimental`.
    GenAiConventions conventions = GenAiConventions::v1_36;
    /// What was set but not usable and left at its default (an unknown sampler, a bad ratio, a malformed
    /// `OTEL_RESOURCE_ATTRIBUTES`), as the specification asks: reported, not fatal.
    std::vector<std::string> warnings;
};

/// \brief Looks up an environment variable; none when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// \brief The configuration OpenTelemetry's standard variables describe, as its SDKs read them.
///
/// Traces are exported when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set,
/// metrics when `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is, unless
/// `OTEL_SDK_DISABLED` is `true` or `OTEL_TRACES_EXPORTER` (`OTEL_METRICS_EXPORTER`) is `none`. An empty
/// variable counts as unset. For each signal (`SIGNAL` is `TRACES` or `METRICS`):
/// - `OTEL_EXPORTER_OTLP_SIGNAL_ENDPOINT` is used as it is; `OTEL_EXPORTER_OTLP_ENDPOINT` is a base to
///   which `v1/traces` (`v1/metrics`) is appended.
/// - `OTEL_EXPORTER_OTLP_[SIGNAL_]PROTOCOL`: `http/protobuf` (the default) or `http/json`.
/// - `OTEL_EXPORTER_OTLP_[SIGNAL_]HEADERS`: `key=value,...`, values percent-decoded; the signal's keys win
///   over the general variable's.
/// - `OTEL_EXPORTER_OTLP_[SIGNAL_]TIMEOUT` (milliseconds), `OTEL_EXPORTER_OTLP_[SIGNAL_]COMPRESSION`
///   (`none` or `gzip`).
/// - `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds); `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`
///   `cumulative` (other preferences are reported and cumulative is used).
/// - `OTEL_SERVICE_NAME`, else `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, else
///   `unknown_service:<defaultServiceName>`.
/// - `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`.
/// - `OTEL_BSP_SCHEDULE_DELAY` (milliseconds), `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`
///   (a batch larger than the queue is cut to the queue's size).
/// - `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true` or `false`).
/// - `OTEL_SEMCONV_STABILITY_OPT_IN` (a comma-separated list; `gen_ai_latest_experimental` is read).
///
/// \par Errors
/// `invalid_config`, naming the variable, for what cannot mean what the user wants: an endpoint that is
/// not an `http` or `https` URL, an unsupported protocol (`grpc`), a malformed header list (its values are
/// not quoted: they hold secrets), a timeout that is not a positive number of milliseconds, a compression
/// other than `none` or `gzip`, an unknown exporter.
[[nodiscard]] expected<TelemetryConfig, TelemetryError> fromEnvironment(const EnvironmentLookup& lookup,
                                                                        std::string_view defaultServiceName);

/// \brief `fromEnvironment` with this process's environment.
[[nodiscard]] expected<TelemetryConfig, TelemetryError> fromProcessEnvironment(
    std::string_view defaultServiceName);

/// \brief `key=value` pairs separated by commas, as W3C Baggage writes them (and so the OTLP header and
/// resource attribute variables): spaces and tabs around keys and values are dropped, values are
/// percent-decoded. None when an entry has no `=`, an empty key, or a bad percent escape.
[[nodiscard]] std::optional<std::vector<std::pair<std::string, std::string>>> parseKeyValueList(
    std::string_view text);

}  // namespace reagent::telemetry
