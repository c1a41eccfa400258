// OtlpExporter against a loopback OTLP receiver (tests/peers/otlp_receiver.py): what arrives is decoded by
// OpenTelemetry's own protobuf root; retries, refusals, timeouts and secrets as the specification and the
// project's rules say.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "otlp_receiver_support.hpp"
#include "peer_process.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/core/run_to_end.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/telemetry/otlp_exporter.hpp"
#include "reagent/telemetry/tracer.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using namespace reagent::telemetry;
using namespace std::chrono_literals;

namespace {

reagent::test::PeerProcess receiver(std::vector<std::string> args = {}) {
    return reagent::test::otlpReceiver(std::move(args));
}

TelemetryConfig configFor(const reagent::test::PeerProcess& peer,
                          OtlpProtocol protocol = OtlpProtocol::http_protobuf) {
    TelemetryConfig config;
    config.enabled = true;
    config.traces.endpoint = peer.url("/v1/traces");
    config.traces.protocol = protocol;
    config.traces.headers = {{"authorization", "Bearer sk-secret-token"}, {"x-tenant", "team a"}};
    config.resource.attributes = {{"service.name", std::string("billing")}};
    config.traces.timeout = 5s;
    return config;
}

const ExportRetry kQuick{5, 50ms, 200ms};

std::vector<SpanData> oneTrace() {
    auto sink = std::make_shared<InMemorySpanSink>();
    Tracer tracer(SamplerConfig{}, sink, IdGenerator(21));
    {
        Span run = tracer.startSpan("invoke_agent helper", SpanKind::internal);
        Span chat = tracer.startSpan("chat m", SpanKind::client, &run.context());
        chat.setAttribute("gen_ai.usage.input_tokens", std::int64_t{40});
    }
    return sink->take();
}

json received(const reagent::test::PeerProcess& peer) {
    return reagent::test::receivedExports(peer);
}

// The body of a received export, decoded by OpenTelemetry's protobuf root (protobuf bodies only).
json decodedBody(const json& record) {
    return reagent::test::decodedExport(record);
}

}  // namespace

TEST_CASE("OTLP export: a batch arrives, in either encoding, with its headers", "[telemetry][export]") {
    auto peer = receiver();
    const auto spans = oneTrace();

    OtlpExporter protobuf(configFor(peer).traces, configFor(peer).resource, kQuick);
    REQUIRE(reagent::test::runCoro(protobuf.exportSpans(spans)));
    OtlpExporter jsonExporter(configFor(peer, OtlpProtocol::http_json).traces, configFor(peer).resource,
                              kQuick);
    REQUIRE(reagent::test::runCoro(jsonExporter.exportSpans(spans)));

    const json records = received(peer);
    REQUIRE(records.size() == 2);
    CHECK(records[0]["path"] == "/v1/traces");
    CHECK(records[0]["headers"]["content-type"] == "application/x-protobuf");
    CHECK(records[0]["headers"]["authorization"] == "Bearer sk-secret-token");
    CHECK(records[0]["headers"]["x-tenant"] == "team a");
    const json decoded = decodedBody(records[0]);
    const json& list = decoded["resourceSpans"][0]["scopeSpans"][0]["spans"];
    REQUIRE(list.size() == 2);
    CHECK(list[0]["name"] == "chat m");
    CHECK(list[1]["name"] == "invoke_agent helper");
    CHECK(decoded["resourceSpans"][0]["scopeSpans"][0]["scope"]["name"] == "reagent");

    CHECK(records[1]["headers"]["content-type"] == "application/json");
    const auto jsonBody = reagent::base64Decode(records[1]["body_base64"].get<std::string>());
    REQUIRE(jsonBody);
    CHECK(json::parse(*jsonBody)["resourceSpans"][0]["scopeSpans"][0]["spans"].size() == 2);
}

TEST_CASE("OTLP export: 503 then 200 loses nothing, and Retry-After is honoured", "[telemetry][export]") {
    auto peer = receiver({"--fail", "2", "--status", "503", "--retry-after", "1"});
    OtlpExporter exporter(configFor(peer).traces, configFor(peer).resource, kQuick);
    const auto started = std::chrono::steady_clock::now();
    REQUIRE(reagent::test::runCoro(exporter.exportSpans(oneTrace())));
    const json records = received(peer);
    REQUIRE(records.size() == 3);
    // Retry-After: 1 asked for a second between attempts (the backoff alone would be 50 ms).
    CHECK(records[1]["at_ms"].get<std::int64_t>() - records[0]["at_ms"].get<std::int64_t>() >= 900);
    CHECK(std::chrono::steady_clock::now() - started >= 1800ms);
    CHECK(decodedBody(records[2]) == decodedBody(records[0]));  // the same batch, whole
}

TEST_CASE("OTLP export: failures are values that say why, without secrets", "[telemetry][export]") {
    SECTION("a refusal the specification does not retry") {
        auto peer = receiver({"--fail", "9", "--status", "400"});
        OtlpExporter exporter(configFor(peer).traces, configFor(peer).resource, kQuick);
        auto result = reagent::test::runCoro(exporter.exportSpans(oneTrace()));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == TelemetryErrc::export_failed);
        CHECK(result.error().message ==
              "OTLP export to " + peer.url("/v1/traces") + " failed: HTTP 400 (not retried) (1 attempt)");
        CHECK(received(peer).size() == 1);
    }
    SECTION("retryable answers until the attempts run out") {
        auto peer = receiver({"--fail", "9", "--status", "429"});
        OtlpExporter exporter(configFor(peer).traces, configFor(peer).resource, ExportRetry{3, 20ms, 40ms});
        auto result = reagent::test::runCoro(exporter.exportSpans(oneTrace()));
        REQUIRE_FALSE(result);
        CHECK(result.error().message.find("failed: HTTP 429 (3 attempts)") != std::string::npos);
        CHECK(received(peer).size() == 3);
    }
    SECTION("a server asking to wait past the limit: no attempt that cannot finish") {
        auto peer = receiver({"--fail", "9", "--status", "503", "--retry-after", "60"});
        OtlpExporter exporter(configFor(peer).traces, configFor(peer).resource, kQuick);
        const auto started = std::chrono::steady_clock::now();
        auto result = reagent::test::runCoro(exporter.exportSpans(oneTrace()));
        REQUIRE_FALSE(result);
        CHECK(result.error().message.find("the next attempt would pass the 5000 ms limit (1 attempt)") !=
              std::string::npos);
        CHECK(std::chrono::steady_clock::now() - started < 2s);
    }
    SECTION("a receiver that never answers costs the limit, no more") {
        auto peer = receiver({"--hang"});
        auto config = configFor(peer);
        config.traces.timeout = 400ms;
        OtlpExporter exporter(config.traces, config.resource, kQuick);
        const auto started = std::chrono::steady_clock::now();
        auto result = reagent::test::runCoro(exporter.exportSpans(oneTrace()));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == TelemetryErrc::export_failed);
        CHECK(std::chrono::steady_clock::now() - started < 1500ms);
        CHECK(result.error().message.find("sk-secret-token") == std::string::npos);
        CHECK(result.error().message.find("(1 attempt)") != std::string::npos);  // the attempts made
    }
    SECTION("nothing listening, and credentials in the URL are not shown") {
        const reagent::test::ClosedPort closed;
        TelemetryConfig config;
        config.traces.endpoint =
            "http://user:pa55word@127.0.0.1:" + std::to_string(closed.port()) + "/v1/traces";
        config.traces.timeout = 2s;
        OtlpExporter exporter(config.traces, config.resource, ExportRetry{2, 10ms, 10ms});
        auto result = reagent::test::runCoro(exporter.exportSpans(oneTrace()));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == TelemetryErrc::export_failed);
        CHECK(result.error().message.find("pa55word") == std::string::npos);
        CHECK(result.error().message.find("connect_failed") != std::string::npos);
        CHECK(result.error().message.find("(2 attempts)") != std::string::npos);
    }
}
