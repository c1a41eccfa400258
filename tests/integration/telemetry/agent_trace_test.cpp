// A traced agent exporting through the batch processor to the loopback OTLP receiver: the run with two model
// calls and three parallel tools arrives as exactly its span tree, in either encoding, as OpenTelemetry's
// own protobuf root reads it; a receiver that fails first loses nothing; one that never answers costs the
// run nothing; no content and no secret is in any exported byte; the CLI's --trace-file and OTEL_* export.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <reagent/reagent.hpp>
#include <set>
#include <string>
#include <vector>

#include "otlp_receiver_support.hpp"
#include "peer_process.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::ToolCall;
using namespace reagent::telemetry;
using namespace std::chrono_literals;

namespace {

ScriptedTurn threeCalls() {
    ModelReply reply;
    reply.toolCalls = {ToolCall{"c1", "lookup", json{{"word", "private-alpha"}}},
                       ToolCall{"c2", "lookup", json{{"word", "private-beta"}}},
                       ToolCall{"c3", "lookup", json{{"word", "private-gamma"}}}};
    reply.usage = reagent::llm::Usage{120, 30, 0, 0, 0};
    reply.model = "model-2026";
    reply.id = "resp-a";
    return ScriptedTurn::reply(std::move(reply));
}

ScriptedTurn finalAnswer() {
    ModelReply reply;
    reply.text = "private-answer";
    reply.usage = reagent::llm::Usage{200, 10, 0, 0, 0};
    reply.model = "model-2026";
    reply.id = "resp-b";
    return ScriptedTurn::reply(std::move(reply));
}

reagent::tools::Tool lookup() {
    return reagent::tools::ToolBuilder::create("lookup")
        .description("Looks a word up")
        .param("word", "string", "The word", {.required = true})
        .handler([](json args, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
            co_return "private-meaning of " + args["word"].get<std::string>();
        })
        .build()
        .value();
}

struct TracedRun {
    reagent::agent::RunResult result;
    std::chrono::steady_clock::duration runTime{};
    reagent::expected<void, TelemetryError> flushed;
    BatchStats stats;
};

// Runs the scripted agent traced into `config`'s endpoint, then shuts the telemetry down within `bound`.
TracedRun tracedRun(TelemetryConfig config, std::chrono::milliseconds bound = 10s) {
    boost::asio::io_context io;
    config.batch.scheduleDelay = 50ms;
    auto telemetry = Telemetry::create(io.get_executor(), config).value();
    REQUIRE(telemetry);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(threeCalls()).then(finalAnswer());
    auto agent = Agent::create()
                     .withName("researcher")
                     .withProvider(provider)
                     .withTool(lookup())
                     .withTelemetry(telemetry)
                     .build();
    REQUIRE(agent);
    TracedRun out;
    auto body = [&]() -> reagent::Task<void> {
        const auto start = std::chrono::steady_clock::now();
        out.result = co_await agent->run("private-prompt");
        out.runTime = std::chrono::steady_clock::now() - start;
        out.flushed = co_await telemetry->shutdown(bound);
    };
    auto done = boost::asio::co_spawn(io, body(), boost::asio::use_future);
    io.run();
    done.get();
    out.stats = telemetry->stats();
    return out;
}

TelemetryConfig agentConfigFor(const reagent::test::PeerProcess& peer, OtlpProtocol protocol) {
    TelemetryConfig config;
    config.enabled = true;
    config.traces.endpoint = peer.url("/v1/traces");
    config.traces.protocol = protocol;
    config.traces.headers = {{"authorization", "Bearer sk-very-secret"}};
    config.resource.attributes = {{"service.name", std::string("desk")}};
    config.traces.timeout = 2s;
    return config;
}

// The spans of every export received, decoded, by name.
std::vector<json> exportedSpans(const reagent::test::PeerProcess& peer, bool json) {
    std::vector<nlohmann::json> spans;
    for (const auto& record : reagent::test::receivedExports(peer)) {
        if (record["path"] != "/v1/traces") {
            continue;
        }
        const auto body = reagent::test::decodedExport(record, json);
        for (const auto& span : body["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
            spans.push_back(span);
        }
    }
    return spans;
}

std::map<std::string, json> attributesOf(const json& span) {
    std::map<std::string, json> out;
    for (const auto& attribute : span.value("attributes", json::array())) {
        const json& value = attribute["value"];
        out[attribute["key"]] = value.begin().value();
    }
    return out;
}

}  // namespace

TEST_CASE("a traced run arrives as its span tree, in either encoding, without content or secrets",
          "[telemetry][agent]") {
    const bool jsonEncoding = GENERATE(false, true);
    CAPTURE(jsonEncoding);
    auto peer = reagent::test::otlpReceiver();
    const auto run =
        tracedRun(agentConfigFor(peer, jsonEncoding ? OtlpProtocol::http_json : OtlpProtocol::http_protobuf));
    REQUIRE(run.result.success());
    REQUIRE(run.flushed);
    CHECK(run.stats.exported == 6);

    const auto records = reagent::test::receivedExports(peer);
    REQUIRE(!records.empty());
    for (const auto& record : records) {
        CHECK(record["headers"]["authorization"] == "Bearer sk-very-secret");  // sent, as configured
        const auto body = reagent::base64Decode(record["body_base64"].get<std::string>()).value();
        for (const char* secret : {"private-", "sk-very-secret"}) {
            CHECK(body.find(secret) == std::string::npos);
        }
    }

    const auto spans = exportedSpans(peer, jsonEncoding);
    REQUIRE(spans.size() == 6);
    std::map<std::string, std::vector<json>> byName;
    for (const auto& span : spans) {
        byName[span["name"]].push_back(span);
    }
    REQUIRE(byName["invoke_agent researcher"].size() == 1);
    REQUIRE(byName["chat"].size() == 2);
    REQUIRE(byName["execute_tool lookup"].size() == 3);
    const json& root = byName["invoke_agent researcher"][0];
    CHECK_FALSE(root.contains("parentSpanId"));
    CHECK(root["kind"] == 1);  // INTERNAL
    for (const auto& span : spans) {
        CHECK(span["traceId"] == root["traceId"]);
        if (span["name"] != root["name"]) {
            CHECK(span["parentSpanId"] == root["spanId"]);
        }
    }
    const auto rootAttributes = attributesOf(root);
    CHECK(rootAttributes.at("gen_ai.operation.name") == "invoke_agent");
    CHECK(rootAttributes.at("gen_ai.agent.name") == "researcher");
    CHECK(rootAttributes.at("gen_ai.usage.input_tokens") == "320");  // 64-bit integers as strings
    CHECK(rootAttributes.at("gen_ai.usage.output_tokens") == "40");

    std::set<std::string> responseIds;
    for (const auto& chat : byName["chat"]) {
        CHECK(chat["kind"] == 3);  // CLIENT
        const auto attributes = attributesOf(chat);
        CHECK(attributes.at("gen_ai.operation.name") == "chat");
        CHECK(attributes.at("gen_ai.system") == "scripted");
        CHECK(attributes.at("gen_ai.response.model") == "model-2026");
        responseIds.insert(attributes.at("gen_ai.response.id").get<std::string>());
    }
    CHECK(responseIds == std::set<std::string>{"resp-a", "resp-b"});
    std::set<std::string> callIds;
    for (const auto& tool : byName["execute_tool lookup"]) {
        const auto attributes = attributesOf(tool);
        CHECK(attributes.at("gen_ai.tool.name") == "lookup");
        callIds.insert(attributes.at("gen_ai.tool.call.id").get<std::string>());
    }
    CHECK(callIds == std::set<std::string>{"c1", "c2", "c3"});
}

TEST_CASE("a receiver that answers 503 first loses nothing, and one that never answers costs the run nothing",
          "[telemetry][agent]") {
    SECTION("503, then 200") {
        auto peer = reagent::test::otlpReceiver({"--fail", "1", "--status", "503", "--retry-after", "0"});
        const auto run = tracedRun(agentConfigFor(peer, OtlpProtocol::http_protobuf));
        REQUIRE(run.result.success());
        CHECK(run.flushed);
        CHECK(run.stats.exported == 6);
        CHECK(run.stats.failed == 0);
        // The refused batch came again: every span arrived, the first batch's twice.
        const auto spans = exportedSpans(peer, false);
        std::set<std::string> ids;
        for (const auto& span : spans) {
            ids.insert(span["spanId"].get<std::string>());
        }
        CHECK(ids.size() == 6);
        CHECK(spans.size() > 6);
    }
    SECTION("never answers") {
        auto peer = reagent::test::otlpReceiver({"--hang"});
        const auto run = tracedRun(agentConfigFor(peer, OtlpProtocol::http_protobuf), 300ms);
        REQUIRE(run.result.success());
        CHECK(run.runTime < 1s);  // the run never waited for its spans' export
        REQUIRE_FALSE(run.flushed);
        CHECK(run.flushed.error().code == TelemetryErrc::export_failed);
        CHECK(run.stats.exported == 0);
    }
}

namespace {

// The points of `name` in every metrics export received, decoded: the last export's (they are cumulative).
std::vector<json> exportedPoints(const reagent::test::PeerProcess& peer, bool jsonEncoding,
                                 const std::string& name) {
    std::vector<json> points;
    for (const auto& record : reagent::test::receivedExports(peer)) {
        if (record["path"] != "/v1/metrics") {
            continue;
        }
        points.clear();
        const auto body = reagent::test::decodedExport(record, jsonEncoding);
        for (const auto& metric : body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
            if (metric["name"] == name) {
                CHECK(metric["histogram"]["aggregationTemporality"] == 2);
                points = metric["histogram"]["dataPoints"].get<std::vector<json>>();
            }
        }
    }
    return points;
}

// The sum of the counts of the points whose attribute `key` is `value`.
std::uint64_t countWhere(const std::vector<json>& points, const std::string& key, const std::string& value) {
    std::uint64_t count = 0;
    for (const auto& point : points) {
        if (attributesOf(point).count(key) != 0 && attributesOf(point).at(key) == value) {
            count += std::stoull(point["count"].get<std::string>());
        }
    }
    return count;
}

}  // namespace

TEST_CASE("a traced run's metrics arrive at the metrics endpoint, in either encoding, gzipped when asked",
          "[telemetry][agent][metrics]") {
    const bool jsonEncoding = GENERATE(false, true);
    const bool gzip = GENERATE(false, true);
    CAPTURE(jsonEncoding, gzip);
    auto peer = reagent::test::otlpReceiver();
    TelemetryConfig config =
        agentConfigFor(peer, jsonEncoding ? OtlpProtocol::http_json : OtlpProtocol::http_protobuf);
    config.metricsEnabled = true;
    config.metrics = config.traces;
    config.metrics.endpoint = peer.url("/v1/metrics");
    if (gzip) {
        config.traces.compression = OtlpCompression::gzip;
        config.metrics.compression = OtlpCompression::gzip;
    }
    const auto run = tracedRun(config);
    REQUIRE(run.result.success());
    REQUIRE(run.flushed);

    int metricExports = 0;
    for (const auto& record : reagent::test::receivedExports(peer)) {
        metricExports += record["path"] == "/v1/metrics" ? 1 : 0;
        CHECK(record["headers"].value("content-encoding", "none") == (gzip ? "gzip" : "none"));
        const auto body = reagent::base64Decode(record["body_base64"].get<std::string>()).value();
        CHECK(body.find("private-") == std::string::npos);
    }
    CHECK(metricExports == 1);  // at shutdown: the 60 s interval never passed
    CHECK(exportedSpans(peer, jsonEncoding).size() == 6);

    const auto tokens = exportedPoints(peer, jsonEncoding, "gen_ai.client.token.usage");
    REQUIRE(tokens.size() == 2);
    for (const auto& point : tokens) {
        const auto attributes = attributesOf(point);
        CHECK(attributes.at("gen_ai.operation.name") == "chat");
        CHECK(attributes.at("gen_ai.system") == "scripted");
        CHECK(attributes.at("gen_ai.response.model") == "model-2026");
        CHECK(point["count"] == "2");
        CHECK(point["sum"] == (attributes.at("gen_ai.token.type") == "input" ? 320 : 40));
        CHECK(point["bucketCounts"].size() == point["explicitBounds"].size() + 1);
    }
    const auto durations = exportedPoints(peer, jsonEncoding, "gen_ai.client.operation.duration");
    CHECK(countWhere(durations, "gen_ai.operation.name", "chat") == 2);
    CHECK(countWhere(durations, "gen_ai.operation.name", "execute_tool") == 3);
    CHECK(countWhere(durations, "gen_ai.tool.name", "lookup") == 3);
    CHECK(countWhere(durations, "gen_ai.operation.name", "invoke_agent") == 1);
    CHECK(countWhere(durations, "error.type", "failed") == 0);
}
