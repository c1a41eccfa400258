#include "reagent/telemetry/telemetry_config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>

#include "reagent/core/percent_encoding.hpp"
#include "reagent/http/http_headers.hpp"

namespace reagent::telemetry {

namespace {

using http::trimWhitespace;

TelemetryError invalidConfig(std::string message) {
    return TelemetryError{TelemetryErrc::invalid_config, std::move(message)};
}

std::string lowered(std::string_view text) {
    std::string out(trimWhitespace(text));
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// The variable's value; none when it is unset or empty (the specification treats both alike).
std::optional<std::string> read(const EnvironmentLookup& lookup, std::string_view name) {
    auto value = lookup(name);
    if (value && trimWhitespace(*value).empty()) {
        return std::nullopt;
    }
    return value;
}

// The signal's variable when set, else the general one (`OTEL_EXPORTER_OTLP_TRACES_X`,
// `OTEL_EXPORTER_OTLP_X`); `name` is set to the one read, for messages.
std::optional<std::string> readSignal(const EnvironmentLookup& lookup, std::string_view signal,
                                      std::string_view suffix, std::string& name) {
    name = "OTEL_EXPORTER_OTLP_" + std::string(signal) + "_" + std::string(suffix);
    if (auto value = read(lookup, name)) {
        return value;
    }
    name = "OTEL_EXPORTER_OTLP_" + std::string(suffix);
    return read(lookup, name);
}

bool isHttpUrl(std::string_view url) {
    const auto schemeEnd = url.find("://");
    if (schemeEnd == std::string_view::npos) {
        return false;
    }
    const std::string scheme = lowered(url.substr(0, schemeEnd));
    const std::string_view rest = url.substr(schemeEnd + 3);
    return (scheme == "http" || scheme == "https") && !rest.empty() && rest.front() != '/';
}

// The base endpoint with `path` (`v1/traces`) appended to its path.
std::string withSignalPath(std::string base, std::string_view path) {
    const auto schemeEnd = base.find("://");
    const auto pathStart = base.find('/', schemeEnd + 3);
    if (pathStart == std::string::npos) {
        return base + "/" + std::string(path);
    }
    if (base.back() != '/') {
        base += '/';
    }
    return base + std::string(path);
}

const char* samplerName(SamplerKind kind) {
    switch (kind) {
        case SamplerKind::always_on:
            return "always_on";
        case SamplerKind::always_off:
            return "always_off";
        case SamplerKind::traceidratio:
            return "traceidratio";
        case SamplerKind::parentbased_always_on:
            return "parentbased_always_on";
        case SamplerKind::parentbased_always_off:
            return "parentbased_always_off";
        case SamplerKind::parentbased_traceidratio:
            return "parentbased_traceidratio";
    }
    return "parentbased_always_on";
}

void readSampler(const EnvironmentLookup& lookup, TelemetryConfig& config) {
    if (auto name = read(lookup, "OTEL_TRACES_SAMPLER")) {
        const std::string wanted = lowered(*name);
        bool known = false;
        for (int i = 0; i <= static_cast<int>(SamplerKind::parentbased_traceidratio); ++i) {
            if (wanted == samplerName(static_cast<SamplerKind>(i))) {
                config.sampler.kind = static_cast<SamplerKind>(i);
                known = true;
            }
        }
        if (!known) {
            config.warnings.push_back("OTEL_TRACES_SAMPLER '" + *name +
                                      "' is not a sampler reagent has; using parentbased_always_on");
        }
    }
    const bool ratio = config.sampler.kind == SamplerKind::traceidratio ||
                       config.sampler.kind == SamplerKind::parentbased_traceidratio;
    if (auto argument = read(lookup, "OTEL_TRACES_SAMPLER_ARG"); argument && ratio) {
        const std::string text(trimWhitespace(*argument));
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size() || !(value >= 0.0 && value <= 1.0)) {
            config.warnings.push_back("OTEL_TRACES_SAMPLER_ARG '" + text +
                                      "' is not a ratio from 0 to 1; using 1.0");
        } else {
            config.sampler.ratio = value;
        }
    }
}

void readResource(const EnvironmentLookup& lookup, std::string_view defaultServiceName,
                  TelemetryConfig& config) {
    std::vector<std::pair<std::string, std::string>> attributes;
    if (auto text = read(lookup, "OTEL_RESOURCE_ATTRIBUTES")) {
        if (auto parsed = parseKeyValueList(*text)) {
            attributes = std::move(*parsed);
        } else {
            // The specification: a value that does not decode is discarded as a whole.
            config.warnings.push_back(
                "OTEL_RESOURCE_ATTRIBUTES is not a list of key=value pairs (percent-encoded); it was "
                "ignored");
        }
    }
    std::string serviceName = "unknown_service:" + std::string(defaultServiceName);
    for (const auto& [key, value] : attributes) {
        if (key == "service.name") {
            serviceName = value;
        }
    }
    if (auto name = read(lookup, "OTEL_SERVICE_NAME")) {
        serviceName = std::string(trimWhitespace(*name));
    }
    config.resource.attributes.push_back({"service.name", serviceName});
    for (const auto& [key, value] : attributes) {
        if (key != "service.name") {
            config.resource.attributes.push_back({key, value});
        }
    }
    config.resource.attributes.push_back({"telemetry.sdk.name", std::string("reagent")});
    config.resource.attributes.push_back({"telemetry.sdk.language", std::string("cpp")});
    config.resource.attributes.push_back({"telemetry.sdk.version", std::string(REAGENT_TELEMETRY_VERSION)});
}

// A positive whole number from `name`, or a warning and `fallback` (the specification's rule for values
// that cannot be used).
template <class T>
T readCount(const EnvironmentLookup& lookup, const char* name, T fallback, TelemetryConfig& config) {
    auto text = read(lookup, name);
    if (!text) {
        return fallback;
    }
    const std::string value(trimWhitespace(*text));
    long long number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc{} || end != value.data() + value.size() || number <= 0) {
        config.warnings.push_back(std::string(name) + " '" + value +
                                  "' is not a positive whole number; the default is used");
        return fallback;
    }
    return static_cast<T>(number);
}

void readBatch(const EnvironmentLookup& lookup, TelemetryConfig& config) {
    BatchOptions& batch = config.batch;
    batch.scheduleDelay = std::chrono::milliseconds(
        readCount<long long>(lookup, "OTEL_BSP_SCHEDULE_DELAY", batch.scheduleDelay.count(), config));
    batch.maxQueueSize = readCount(lookup, "OTEL_BSP_MAX_QUEUE_SIZE", batch.maxQueueSize, config);
    batch.maxExportBatchSize =
        readCount(lookup, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", batch.maxExportBatchSize, config);
    if (batch.maxExportBatchSize > batch.maxQueueSize) {
        batch.maxExportBatchSize = batch.maxQueueSize;
    }
}

void readContentCapture(const EnvironmentLookup& lookup, TelemetryConfig& config) {
    constexpr const char* kName = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
    if (auto text = read(lookup, kName)) {
        const std::string value = lowered(*text);
        if (value == "true") {
            config.captureContent = true;
        } else if (value != "false") {
            config.warnings.push_back(std::string(kName) + " '" + std::string(trimWhitespace(*text)) +
                                      "' is neither true nor false; taken as false");
        }
    }
}

void readConventions(const EnvironmentLookup& lookup, TelemetryConfig& config) {
    if (auto text = read(lookup, "OTEL_SEMCONV_STABILITY_OPT_IN")) {
        std::string_view rest = *text;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            if (lowered(rest.substr(0, comma)) == "gen_ai_latest_experimental") {
                config.conventions = GenAiConventions::latest;
            }
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
}

// The endpoint, protocol, headers, timeout and compression of one signal (`TRACES`, `METRICS`) into
// `out`; true when an endpoint is set.
expected<bool, TelemetryError> readDestination(const EnvironmentLookup& lookup, std::string_view signal,
                                               OtlpDestination& out) {
    const std::string prefix = "OTEL_EXPORTER_OTLP_" + std::string(signal) + "_";
    std::string name = prefix + "ENDPOINT";
    if (auto endpoint = read(lookup, name)) {
        if (!isHttpUrl(trimWhitespace(*endpoint))) {
            return fail(invalidConfig(name + " is not an http or https URL"));
        }
        out.endpoint = std::string(trimWhitespace(*endpoint));
    } else if (auto base = read(lookup, "OTEL_EXPORTER_OTLP_ENDPOINT")) {
        if (!isHttpUrl(trimWhitespace(*base))) {
            return fail(invalidConfig("OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL"));
        }
        out.endpoint = withSignalPath(std::string(trimWhitespace(*base)), "v1/" + lowered(signal));
    }

    if (auto protocol = readSignal(lookup, signal, "PROTOCOL", name)) {
        const std::string wanted = lowered(*protocol);
        if (wanted == "http/protobuf") {
            out.protocol = OtlpProtocol::http_protobuf;
        } else if (wanted == "http/json") {
            out.protocol = OtlpProtocol::http_json;
        } else {
            return fail(invalidConfig(name + " '" + std::string(trimWhitespace(*protocol)) +
                                      "' is not supported: use http/protobuf or http/json"));
        }
    }

    std::map<std::string, std::string> headers;
    for (const std::string& variable : {std::string("OTEL_EXPORTER_OTLP_HEADERS"), prefix + "HEADERS"}) {
        if (auto text = read(lookup, variable)) {
            auto parsed = parseKeyValueList(*text);
            if (!parsed) {
                // Header values are credentials: the message names the variable, not its content.
                return fail(
                    invalidConfig(variable + " is not a list of key=value pairs (values percent-encoded)"));
            }
            for (auto& [key, value] : *parsed) {
                headers[lowered(key)] = std::move(value);
            }
        }
    }
    out.headers.assign(headers.begin(), headers.end());

    if (auto timeout = readSignal(lookup, signal, "TIMEOUT", name)) {
        const std::string text(trimWhitespace(*timeout));
        long long milliseconds = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), milliseconds);
        if (error != std::errc{} || end != text.data() + text.size() || milliseconds <= 0) {
            return fail(invalidConfig(name + " '" + text + "' is not a positive number of milliseconds"));
        }
        out.timeout = std::chrono::milliseconds(milliseconds);
    }

    if (auto compression = readSignal(lookup, signal, "COMPRESSION", name)) {
        const std::string wanted = lowered(*compression);
        if (wanted == "gzip") {
            out.compression = OtlpCompression::gzip;
        } else if (wanted == "none") {
            out.compression = OtlpCompression::none;
        } else {
            return fail(invalidConfig(name + " '" + std::string(trimWhitespace(*compression)) +
                                      "' is not supported: use gzip or none"));
        }
    }
    return !out.endpoint.empty();
}

// Whether the signal is exported: `configured` unless its exporter variable says `none`.
expected<bool, TelemetryError> readExporter(const EnvironmentLookup& lookup, const char* variable,
                                            bool configured) {
    if (auto exporter = read(lookup, variable)) {
        const std::string wanted = lowered(*exporter);
        if (wanted == "none") {
            return false;
        }
        if (wanted != "otlp") {
            return fail(invalidConfig(std::string(variable) + " '" + std::string(trimWhitespace(*exporter)) +
                                      "' is not supported: use otlp or none"));
        }
    }
    return configured;
}

void readMetricReader(const EnvironmentLookup& lookup, TelemetryConfig& config) {
    config.metricExportInterval = std::chrono::milliseconds(readCount<long long>(
        lookup, "OTEL_METRIC_EXPORT_INTERVAL", config.metricExportInterval.count(), config));
    constexpr const char* kTemporality = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE";
    if (auto preference = read(lookup, kTemporality); preference && lowered(*preference) != "cumulative") {
        config.warnings.push_back(std::string(kTemporality) + " '" +
                                  std::string(trimWhitespace(*preference)) +
                                  "' is not supported; metrics are exported cumulative");
    }
}

}  // namespace

std::optional<std::vector<std::pair<std::string, std::string>>> parseKeyValueList(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::string_view rest = text;
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view entry = trimWhitespace(rest.substr(0, comma));
        if (!entry.empty()) {
            const auto equals = entry.find('=');
            if (equals == std::string_view::npos) {
                return std::nullopt;
            }
            const std::string_view key = trimWhitespace(entry.substr(0, equals));
            auto value = percentDecoded(trimWhitespace(entry.substr(equals + 1)));
            if (key.empty() || !value) {
                return std::nullopt;
            }
            out.emplace_back(std::string(key), std::move(*value));
        }
        if (comma == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(comma + 1);
    }
    return out;
}

expected<TelemetryConfig, TelemetryError> fromEnvironment(const EnvironmentLookup& lookup,
                                                          std::string_view defaultServiceName) {
    TelemetryConfig config;
    readResource(lookup, defaultServiceName, config);
    readSampler(lookup, config);
    readBatch(lookup, config);
    readContentCapture(lookup, config);
    readConventions(lookup, config);

    auto traces = readDestination(lookup, "TRACES", config.traces);
    if (!traces) {
        return fail(std::move(traces.error()));
    }
    auto metrics = readDestination(lookup, "METRICS", config.metrics);
    if (!metrics) {
        return fail(std::move(metrics.error()));
    }
    auto tracesExported = readExporter(lookup, "OTEL_TRACES_EXPORTER", *traces);
    if (!tracesExported) {
        return fail(std::move(tracesExported.error()));
    }
    auto metricsExported = readExporter(lookup, "OTEL_METRICS_EXPORTER", *metrics);
    if (!metricsExported) {
        return fail(std::move(metricsExported.error()));
    }
    readMetricReader(lookup, config);
    bool disabledAll = false;
    if (auto disabled = read(lookup, "OTEL_SDK_DISABLED")) {
        const std::string value = lowered(*disabled);
        if (value == "true") {
            disabledAll = true;
        } else if (value != "false") {
            config.warnings.push_back("OTEL_SDK_DISABLED '" + std::string(trimWhitespace(*disabled)) +
                                      "' is neither true nor false; taken as false");
        }
    }
    config.enabled = *tracesExported && !disabledAll;
    config.metricsEnabled = *metricsExported && !disabledAll;
    return config;
}

expected<TelemetryConfig, TelemetryError> fromProcessEnvironment(std::string_view defaultServiceName) {
    return fromEnvironment(
        [](std::string_view name) -> std::optional<std::string> {
            const char* value = std::getenv(std::string(name).c_str());
            if (value == nullptr) {
                return std::nullopt;
            }
            return std::string(value);
        },
        defaultServiceName);
}

}  // namespace reagent::telemetry
