// The CLI's telemetry: --trace-file writes the run's spans and metrics as OTLP/JSON lines, without the prompt
// or the answer; a trace file that cannot be opened and an OTEL_* variable that cannot mean what the user
// wants are usage errors, named before anything runs.

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_process.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::CliProcess;
using reagent::test::runCli;

TEST_CASE("run --trace-file writes the run's span tree and metrics as OTLP/JSON lines",
          "[cli][run][telemetry]") {
    const reagent::test::TempDir dir;
    const auto file = (dir.path / "trace.jsonl").string();
    const auto outcome = runCli({"run", "--trace-file", file, "What", "is", "(2+3)*4?"});
    REQUIRE(outcome.status == 0);

    std::ifstream in(file);
    std::map<std::string, int> names;
    std::string traceId;
    std::string all;
    std::map<std::string, json> metrics;
    for (std::string line; std::getline(in, line);) {
        all += line;
        const json request = json::parse(line);
        if (request.contains("resourceMetrics")) {
            for (const json& metric : request["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
                metrics[metric["name"].get<std::string>()] = metric;
            }
            continue;
        }
        const json& resource = request["resourceSpans"][0]["resource"];
        CHECK(resource.dump().find("\"service.name\"") != std::string::npos);
        for (const json& span : request["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
            ++names[span["name"].get<std::string>()];
            if (traceId.empty()) {
                traceId = span["traceId"];
            }
            CHECK(span["traceId"] == traceId);
        }
    }
    CHECK(names["invoke_agent reagent"] == 1);
    CHECK(names["chat"] == 2);  // the demo model names no model
    CHECK(names["execute_tool calculator"] == 1);
    CHECK(names["execute_tool word_count"] == 1);
    CHECK(all.find("(2+3)*4") == std::string::npos);  // the prompt is content: not recorded by default
    // The metrics, written once at the end (cumulative: the last line has them all).
    REQUIRE(metrics.count("gen_ai.client.operation.duration") == 1);
    REQUIRE(metrics.count("gen_ai.client.token.usage") == 1);
    std::uint64_t operations = 0;
    for (const json& point : metrics["gen_ai.client.operation.duration"]["histogram"]["dataPoints"]) {
        operations += std::stoull(point["count"].get<std::string>());
    }
    CHECK(operations == 7);  // two model calls, four tool calls (final-answer among them), the run
}

TEST_CASE("a trace file that cannot be opened, or an unusable OTEL variable, is a usage error",
          "[cli][run][telemetry]") {
    const auto unopened = runCli({"run", "--trace-file", "/nonexistent-dir/trace.jsonl", "hi"});
    CHECK(unopened.status == 2);
    CHECK(unopened.err.find("cannot open the trace file /nonexistent-dir/trace.jsonl") != std::string::npos);

    const auto endpoint =
        CliProcess({"run", "hi"}, std::nullopt, {"OTEL_EXPORTER_OTLP_ENDPOINT=ftp://collector:4318"}).wait();
    CHECK(endpoint.status == 2);
    CHECK(endpoint.err.find("telemetry: OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL") !=
          std::string::npos);

    const auto warned =
        CliProcess({"run", "-q", "hi"}, std::nullopt, {"OTEL_TRACES_SAMPLER=sometimes"}).wait();
    CHECK(warned.status == 0);  // reported, not fatal, as the specification asks
    CHECK(warned.err.find("telemetry: OTEL_TRACES_SAMPLER 'sometimes'") != std::string::npos);
}
