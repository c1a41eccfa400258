#include "reagent/telemetry/telemetry_config.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string>

using namespace reagent::telemetry;

namespace {

using Variables = std::map<std::string, std::string, std::less<>>;

reagent::expected<TelemetryConfig, TelemetryError> read(const Variables& variables) {
    return fromEnvironment(
        [&variables](std::string_view name) -> std::optional<std::string> {
            const auto found = variables.find(name);
            if (found == variables.end()) {
                return std::nullopt;
            }
            return found->second;
        },
        "reagent");
}

std::string attribute(const TelemetryConfig& config, const std::string& key) {
    for (const Attribute& item : config.resource.attributes) {
        if (item.key == key) {
            return std::get<std::string>(item.value);
        }
    }
    return "(missing)";
}

std::string error(const Variables& variables) {
    auto config = read(variables);
    REQUIRE_FALSE(config);
    CHECK(config.error().code == TelemetryErrc::invalid_config);
    return config.error().message;
}

}  // namespace

TEST_CASE("telemetry config: nothing set is off, with the defaults of the specification",
          "[telemetry][config]") {
    auto config = read({});
    REQUIRE(config);
    CHECK_FALSE(config->enabled);
    CHECK_FALSE(config->metricsEnabled);
    CHECK(config->traces.protocol == OtlpProtocol::http_protobuf);
    CHECK(config->traces.timeout == std::chrono::milliseconds(10'000));
    CHECK(config->traces.compression == OtlpCompression::none);
    CHECK(config->metricExportInterval == std::chrono::milliseconds(60'000));
    CHECK(config->sampler.kind == SamplerKind::parentbased_always_on);
    CHECK(attribute(*config, "service.name") == "unknown_service:reagent");
    CHECK(attribute(*config, "telemetry.sdk.name") == "reagent");
    CHECK(attribute(*config, "telemetry.sdk.language") == "cpp");
    CHECK(attribute(*config, "telemetry.sdk.version") != "(missing)");
    CHECK(config->warnings.empty());
}

TEST_CASE("telemetry config: the endpoints", "[telemetry][config]") {
    SECTION("the general endpoint is a base: v1/traces is appended to its path") {
        CHECK(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}})->traces.endpoint ==
              "http://collector:4318/v1/traces");
        CHECK(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example/base/"}})->traces.endpoint ==
              "https://otel.example/base/v1/traces");
        CHECK(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example/base"}})->traces.endpoint ==
              "https://otel.example/base/v1/traces");
        CHECK(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}})->enabled);
    }
    SECTION("the traces endpoint is used as it is, and wins") {
        auto config = read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"},
                            {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:9999/custom/path"}});
        REQUIRE(config);
        CHECK(config->traces.endpoint == "http://b:9999/custom/path");
        CHECK(config->enabled);
    }
    SECTION("an empty variable counts as unset") {
        auto config = read(
            {{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", " "}, {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"}});
        REQUIRE(config);
        CHECK(config->traces.endpoint == "http://a:4318/v1/traces");
    }
    SECTION("what is not an http(s) URL is refused, naming the variable") {
        CHECK(error({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"}}) ==
              "OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL");
        CHECK(error({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "grpc://collector:4317"}}) ==
              "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not an http or https URL");
        CHECK(error({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http:///path"}}) ==
              "OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL");
    }
    SECTION("turned off on purpose") {
        CHECK_FALSE(
            read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"}, {"OTEL_SDK_DISABLED", "TRUE"}})->enabled);
        CHECK_FALSE(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"}, {"OTEL_TRACES_EXPORTER", "none"}})
                        ->enabled);
        CHECK(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"}, {"OTEL_SDK_DISABLED", "false"}})
                  ->enabled);
        auto odd = read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"}, {"OTEL_SDK_DISABLED", "yes"}});
        REQUIRE(odd);
        CHECK(odd->enabled);
        REQUIRE(odd->warnings.size() == 1);
        CHECK(odd->warnings[0] == "OTEL_SDK_DISABLED 'yes' is neither true nor false; taken as false");
        CHECK(error({{"OTEL_TRACES_EXPORTER", "zipkin"}}) ==
              "OTEL_TRACES_EXPORTER 'zipkin' is not supported: use otlp or none");
    }
}

TEST_CASE("telemetry config: protocol, headers, timeout, compression", "[telemetry][config]") {
    CHECK(read({{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"}})->traces.protocol == OtlpProtocol::http_json);
    CHECK(read({{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"},
                {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"}})
              ->traces.protocol == OtlpProtocol::http_protobuf);
    CHECK(error({{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}}) ==
          "OTEL_EXPORTER_OTLP_PROTOCOL 'grpc' is not supported: use http/protobuf or http/json");

    auto headers = read({{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20abc , x-tenant = one"},
                         {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-tenant=two,x-extra=%3D"}});
    REQUIRE(headers);
    CHECK(headers->traces.headers ==
          std::vector<std::pair<std::string, std::string>>{
              {"authorization", "Bearer abc"}, {"x-extra", "="}, {"x-tenant", "two"}});
    const std::string secret = "sk-live-do-not-print";
    const std::string refused = error({{"OTEL_EXPORTER_OTLP_HEADERS", "api-key" + secret}});
    CHECK(refused == "OTEL_EXPORTER_OTLP_HEADERS is not a list of key=value pairs (values percent-encoded)");
    CHECK(refused.find(secret) == std::string::npos);
    CHECK(error({{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "k=bad%zz"}})
              .find("OTEL_EXPORTER_OTLP_TRACES_HEADERS") == 0);

    CHECK(read({{"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"}})->traces.timeout == std::chrono::milliseconds(2500));
    CHECK(read({{"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"}, {"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "100"}})
              ->traces.timeout == std::chrono::milliseconds(100));
    CHECK(error({{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s"}}) ==
          "OTEL_EXPORTER_OTLP_TIMEOUT '10s' is not a positive number of milliseconds");
    CHECK(error({{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "0"}}).find("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") == 0);

    CHECK(read({{"OTEL_EXPORTER_OTLP_COMPRESSION", "none"}})->traces.compression == OtlpCompression::none);
    CHECK(read({{"OTEL_EXPORTER_OTLP_COMPRESSION", "GZIP"}})->traces.compression == OtlpCompression::gzip);
    CHECK(
        read({{"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"}, {"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "none"}})
            ->metrics.compression == OtlpCompression::none);
    CHECK(error({{"OTEL_EXPORTER_OTLP_COMPRESSION", "br"}}) ==
          "OTEL_EXPORTER_OTLP_COMPRESSION 'br' is not supported: use gzip or none");
    CHECK(
        error({{"OTEL_EXPORTER_OTLP_COMPRESSION", "none"}, {"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "zstd"}})
            .find("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION 'zstd'") == 0);
}

TEST_CASE("telemetry config: metrics beside traces, each with its own variables", "[telemetry][config]") {
    SECTION("the general endpoint enables both, with v1/metrics appended") {
        auto config = read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}});
        REQUIRE(config);
        CHECK(config->enabled);
        CHECK(config->metricsEnabled);
        CHECK(config->metrics.endpoint == "http://collector:4318/v1/metrics");
    }
    SECTION("the signal's variables win over the general ones, for that signal only") {
        auto config = read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"},
                            {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9090/in"},
                            {"OTEL_EXPORTER_OTLP_HEADERS", "a=1"},
                            {"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "b=2"},
                            {"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/json"},
                            {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "700"},
                            {"OTEL_METRIC_EXPORT_INTERVAL", "1500"}});
        REQUIRE(config);
        CHECK(config->metrics.endpoint == "http://m:9090/in");
        CHECK(config->traces.endpoint == "http://collector:4318/v1/traces");
        CHECK(config->metrics.protocol == OtlpProtocol::http_json);
        CHECK(config->traces.protocol == OtlpProtocol::http_protobuf);
        CHECK(config->metrics.headers ==
              std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "2"}});
        CHECK(config->traces.headers == std::vector<std::pair<std::string, std::string>>{{"a", "1"}});
        CHECK(config->metrics.timeout == std::chrono::milliseconds(700));
        CHECK(config->metricExportInterval == std::chrono::milliseconds(1500));
    }
    SECTION("metrics alone, or switched off") {
        auto alone = read({{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9090/v1/metrics"}});
        CHECK_FALSE(alone->enabled);
        CHECK(alone->metricsEnabled);
        auto off =
            read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_METRICS_EXPORTER", "none"}});
        CHECK(off->enabled);
        CHECK_FALSE(off->metricsEnabled);
        CHECK_FALSE(read({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_SDK_DISABLED", "true"}})
                        ->metricsEnabled);
        CHECK(error({{"OTEL_METRICS_EXPORTER", "prometheus"}}) ==
              "OTEL_METRICS_EXPORTER 'prometheus' is not supported: use otlp or none");
        CHECK(error({{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "collector:4318"}}) ==
              "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is not an http or https URL");
    }
    SECTION("what cannot be used is reported and left at its default") {
        auto config = read({{"OTEL_METRIC_EXPORT_INTERVAL", "soon"},
                            {"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "delta"}});
        REQUIRE(config);
        CHECK(config->metricExportInterval == std::chrono::milliseconds(60'000));
        REQUIRE(config->warnings.size() == 2);
        CHECK(config->warnings[0].find("OTEL_METRIC_EXPORT_INTERVAL 'soon'") == 0);
        CHECK(config->warnings[1] ==
              "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE 'delta' is not supported; metrics are "
              "exported cumulative");
        CHECK(read({{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "Cumulative"}})->warnings.empty());
    }
}

TEST_CASE("telemetry config: the resource and the sampler", "[telemetry][config]") {
    auto config =
        read({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes,deployment.environment=prod%2Deu"}});
    REQUIRE(config);
    CHECK(attribute(*config, "service.name") == "from-attributes");
    CHECK(attribute(*config, "deployment.environment") == "prod-eu");
    CHECK(attribute(*read({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=a"}, {"OTEL_SERVICE_NAME", "b"}}),
                    "service.name") == "b");

    auto broken = read({{"OTEL_RESOURCE_ATTRIBUTES", "team=core,broken"}});
    REQUIRE(broken);  // discarded as a whole, with a warning, as the specification asks
    CHECK(attribute(*broken, "team") == "(missing)");
    REQUIRE(broken->warnings.size() == 1);
    CHECK(broken->warnings[0].find("OTEL_RESOURCE_ATTRIBUTES") == 0);

    auto ratio =
        read({{"OTEL_TRACES_SAMPLER", "parentbased_traceidratio"}, {"OTEL_TRACES_SAMPLER_ARG", "0.25"}});
    REQUIRE(ratio);
    CHECK(ratio->sampler.kind == SamplerKind::parentbased_traceidratio);
    CHECK(ratio->sampler.ratio == 0.25);
    CHECK(read({{"OTEL_TRACES_SAMPLER", "always_off"}})->sampler.kind == SamplerKind::always_off);

    auto unknown = read({{"OTEL_TRACES_SAMPLER", "jaeger_remote"}});
    REQUIRE(unknown);
    CHECK(unknown->sampler.kind == SamplerKind::parentbased_always_on);
    CHECK(unknown->warnings ==
          std::vector<std::string>{"OTEL_TRACES_SAMPLER 'jaeger_remote' is not a sampler reagent has; using "
                                   "parentbased_always_on"});
    auto badRatio = read({{"OTEL_TRACES_SAMPLER", "traceidratio"}, {"OTEL_TRACES_SAMPLER_ARG", "1.5"}});
    REQUIRE(badRatio);
    CHECK(badRatio->sampler.ratio == 1.0);
    CHECK(badRatio->warnings ==
          std::vector<std::string>{"OTEL_TRACES_SAMPLER_ARG '1.5' is not a ratio from 0 to 1; "
                                   "using 1.0"});
}

TEST_CASE("key=value lists as W3C Baggage writes them", "[telemetry][config]") {
    CHECK(parseKeyValueList("") == std::vector<std::pair<std::string, std::string>>{});
    CHECK(parseKeyValueList(" a = 1 ,, b=%41%2c ") ==
          std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "A,"}});
    CHECK(parseKeyValueList("a=") == std::vector<std::pair<std::string, std::string>>{{"a", ""}});
    CHECK_FALSE(parseKeyValueList("=1"));
    CHECK_FALSE(parseKeyValueList("a"));
    CHECK_FALSE(parseKeyValueList("a=%4"));
    CHECK_FALSE(parseKeyValueList("a=%"));
}

TEST_CASE("telemetry config: the batch processor, content capture and the conventions",
          "[telemetry][config]") {
    SECTION("the defaults") {
        const auto config = read({});
        CHECK(config->batch.maxQueueSize == 2048);
        CHECK(config->batch.maxExportBatchSize == 512);
        CHECK(config->batch.scheduleDelay == std::chrono::milliseconds(5000));
        CHECK_FALSE(config->captureContent);
        CHECK(config->conventions == GenAiConventions::v1_36);
    }
    SECTION("set") {
        const auto config = read({{"OTEL_BSP_SCHEDULE_DELAY", "250"},
                                  {"OTEL_BSP_MAX_QUEUE_SIZE", "100"},
                                  {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "500"},
                                  {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "TRUE"},
                                  {"OTEL_SEMCONV_STABILITY_OPT_IN", "http, gen_ai_latest_experimental"}});
        CHECK(config->batch.scheduleDelay == std::chrono::milliseconds(250));
        CHECK(config->batch.maxQueueSize == 100);
        CHECK(config->batch.maxExportBatchSize == 100);  // cut to the queue
        CHECK(config->captureContent);
        CHECK(config->conventions == GenAiConventions::latest);
        CHECK(config->warnings.empty());
    }
    SECTION("values that cannot be used are reported and left at their defaults") {
        const auto config = read({{"OTEL_BSP_SCHEDULE_DELAY", "-1"},
                                  {"OTEL_BSP_MAX_QUEUE_SIZE", "many"},
                                  {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "yes"},
                                  {"OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest"}});
        REQUIRE(config);
        CHECK(config->batch.scheduleDelay == std::chrono::milliseconds(5000));
        CHECK(config->batch.maxQueueSize == 2048);
        CHECK_FALSE(config->captureContent);
        CHECK(config->conventions == GenAiConventions::v1_36);
        REQUIRE(config->warnings.size() == 3);
        CHECK(config->warnings[0].find("OTEL_BSP_SCHEDULE_DELAY '-1'") != std::string::npos);
    }
}
