#pragma once
/// \file
/// \brief `TelemetryConfig`: where and how traces are exported, read from OpenTelemetry's standard
/// environment variables (`fromEnvironment`) or set in code.

#include <chrono>
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

/// \brief Where and how an agent's traces go.
struct TelemetryConfig {
    /// False: nothing is recorded or exported (no endpoint configured, `OTEL_SDK_DISABLED=true`, or
    /// `OTEL_TRACES_EXPORTER=none`).
    bool enabled = false;
    /// The full URL spans are posted to (`.../v1/traces`).
    std::string tracesEndpoint;
    OtlpProtocol protocol = OtlpProtocol::http_protobuf;
    /// Sent with every export (an API key, say). Their values never appear in messages or traces.
    std::vector<std::pair<std::string, std::string>> headers;
    /// How long one export may take.
    std::chrono::milliseconds timeout{10'000};
    /// `service.name` and the rest of `OTEL_RESOURCE_ATTRIBUTES`, plus the `telemetry.sdk.*` attributes.
    Resource resource;
    SamplerConfig sampler;
    /// What was set but not usable and left at its default (an unknown sampler, a bad ratio, a malformed
    /// `OTEL_RESOURCE_ATTRIBUTES`), as the specification asks: reported, not fatal.
    std::vector<std::string> warnings;
};

/// \brief Looks up an environment variable; none when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// \brief The configuration OpenTelemetry's standard variables describe, as its SDKs read them.
///
/// Enabled when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, unless
/// `OTEL_SDK_DISABLED` is `true` or `OTEL_TRACES_EXPORTER` is `none`. An empty variable counts as unset.
/// - `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as it is; `OTEL_EXPORTER_OTLP_ENDPOINT` is a base to
///   which `v1/traces` is appended.
/// - `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL`: `http/protobuf` (the default) or `http/json`.
/// - `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`: `key=value,...`, values percent-decoded; the traces variable's
///   keys win over the general one's.
/// - `OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT` (milliseconds), `OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION`
///   (`none`; `gzip` is refused until the exporter compresses).
/// - `OTEL_SERVICE_NAME`, else `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, else
///   `unknown_service:<defaultServiceName>`.
/// - `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`.
///
/// \par Errors
/// `invalid_config`, naming the variable, for what cannot mean what the user wants: an endpoint that is
/// not an `http` or `https` URL, an unsupported protocol (`grpc`), a malformed header list (its values are
/// not quoted: they hold secrets), a timeout that is not a positive number of milliseconds, a compression
/// other than `none`, an unknown exporter.
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
