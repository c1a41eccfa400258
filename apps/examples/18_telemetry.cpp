// 18 — Traces and metrics: every run as OpenTelemetry spans and histograms in the GenAI conventions,
// configured in code.
//
// A program gives each agent its telemetry (there is no global tracer). `Telemetry::create` exports through
// a batch processor and a periodic metric reader to OTLP/HTTP endpoints (`TelemetryConfig::traces` and
// `metrics`, or the standard OTEL_EXPORTER_OTLP_ENDPOINT variable through `fromProcessEnvironment`) and,
// as here, to a local file of OTLP/JSON lines. A run is one `invoke_agent` span; each model call a `chat`
// span and each tool call an `execute_tool` span under it; their durations and the tokens are histograms.
// Prompts, answers and tool results stay out of the spans unless asked for.

#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

Task<tools::ToolResult> weather(json args, tools::ToolContext context) {
    // The call's span, to pass on to what the handler calls (a sub-agent, an HTTP request).
    examples::check(context.trace != nullptr && context.trace->valid(), "the call runs in a span");
    co_return "sunny in " + args.value("city", std::string("?"));
}

Task<void> runAndFlush(agent::Agent agent, std::shared_ptr<telemetry::Telemetry> telemetry, int& status) {
    const agent::RunResult result = co_await agent.run("Weather in Oslo and Lima?");
    std::cout << "answer: " << result.output << "\n";
    // Before the program ends: what is still queued is exported, within a bound.
    auto flushed = co_await telemetry->shutdown(std::chrono::seconds(5));
    status = result.success() && flushed ? 0 : 1;
}

int main() {
    const auto file = std::filesystem::temp_directory_path() /
                      ("reagent-example-18-" + std::to_string(::getpid()) + ".jsonl");

    // 1. The configuration, in code. Here no endpoint: the spans and metrics go to the file only. A
    //    collector would be set like this (left off, as none listens here):
    //      config.enabled = true;  config.traces.endpoint = "http://collector:4318/v1/traces";
    //      config.metricsEnabled = true;  config.metrics.endpoint = "http://collector:4318/v1/metrics";
    //      config.traces.compression = telemetry::OtlpCompression::gzip;
    //      config.traces.headers = {{"authorization", "Bearer ..."}};  // never in errors or spans
    telemetry::TelemetryConfig config;
    config.resource.attributes.push_back({"service.name", std::string("weather-desk")});
    config.conventions = telemetry::GenAiConventions::latest;  // as OTEL_SEMCONV_STABILITY_OPT_IN would
    config.batch.scheduleDelay = std::chrono::milliseconds(100);
    config.metricExportInterval = std::chrono::seconds(10);  // OTEL_METRIC_EXPORT_INTERVAL; 60 s by default

    boost::asio::io_context io;
    auto telemetry = telemetry::Telemetry::create(io.get_executor(), config, file);
    examples::check(telemetry.has_value() && *telemetry != nullptr, "the telemetry opens");

    // 2. An agent that traces into it: a model asking for two calls in parallel, then answering.
    auto model = std::make_shared<llm::ScriptedProvider>();
    model
        ->then(llm::ScriptedTurn::toolCalls(
            {{"c1", "weather", json{{"city", "Oslo"}}}, {"c2", "weather", json{{"city", "Lima"}}}}))
        .then(llm::ScriptedTurn::text("Oslo and Lima are sunny."));
    auto tool = tools::ToolBuilder::create("weather")
                    .description("Today's weather in a city")
                    .param("city", "string", "The city", {.required = true})
                    .handler(weather)
                    .build();
    examples::check(tool.has_value(), "the tool builds");
    auto agent = agent::Agent::create()
                     .withName("forecaster")
                     .withProvider(model)
                     .withTool(std::move(*tool))
                     .withTelemetry(*telemetry)
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    int status = 1;
    boost::asio::co_spawn(io, runAndFlush(std::move(*agent), *telemetry, status), boost::asio::detached);
    io.run();
    examples::check(status == 0, "the run succeeded and its spans and metrics were written");

    // 3. What a collector would have received: one trace, a root and four children, and the metrics.
    std::ifstream in(file);
    std::vector<json> spans;
    std::vector<std::string> metrics;
    for (std::string line; std::getline(in, line);) {
        const json request = json::parse(line);  // kept: the loops below read into it
        if (request.contains("resourceMetrics")) {
            for (const json& metric : request["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
                metrics.push_back(metric["name"].get<std::string>());
                std::cout << "metric " << metrics.back() << ": " << metric["histogram"]["dataPoints"].size()
                          << " points\n";
            }
            continue;
        }
        for (const json& span : request["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
            spans.push_back(span);
            std::cout << "span " << span["name"].get<std::string>() << "\n";
        }
    }
    std::filesystem::remove(file);
    examples::check(spans.size() == 5, "invoke_agent, two chat spans, two execute_tool spans");
    examples::check(
        metrics == std::vector<std::string>{"gen_ai.client.token.usage", "gen_ai.client.operation.duration"},
        "the token usage and the operations' durations");
    for (const json& span : spans) {
        examples::check(span["traceId"] == spans[0]["traceId"], "one trace");
    }
    return 0;
}
