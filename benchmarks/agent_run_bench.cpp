// CPU cost of one complete agent run: two model turns (a tool call, then a text answer) and one trivial
// tool, on a reused io_context. No I/O and no sleeping: this is the runtime's own overhead per run.
// Then what a typed answer costs: the same run answering a 1 KB JSON value of a nested described struct,
// without and with its output schema (withOutput<Report>), and the two parts apart (the schema check,
// decodeAs); the answer streamed to a subscriber, without and with the schema (PartialOutput events); and
// the cost of the schema in each wire format's request body.

#include <benchmark/benchmark.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "peer_process.hpp"
#include "reagent/reagent.hpp"

namespace {

using namespace reagent;
using nlohmann::json;

Task<tools::ToolResult> echo(json args, tools::ToolContext) {
    co_return args.value("text", std::string{});
}

expected<tools::Tool, tools::ToolError> echoTool() {
    return tools::ToolBuilder::create("echo")
        .description("Echo the text back")
        .param("text", "string", "Text to echo", {.required = true})
        .handler(echo)
        .build();
}

std::vector<llm::ScriptedTurn> script() {
    return {llm::ScriptedTurn::toolCall("echo", json{{"text", "hello"}}, "call_1"),
            llm::ScriptedTurn::text("done")};
}

agent::Agent buildAgent(std::shared_ptr<llm::Provider> provider) {
    auto tool = echoTool();
    // The same single tool the peers offer: no built-in tools.
    agent::ToolsConfig only;
    auto built = agent::Agent::create()
                     .withProvider(std::move(provider))
                     .withTools(std::move(only))
                     .withTool(std::move(tool))
                     .build();
    if (!built) {
        throw std::runtime_error(built.error().describe());
    }
    return std::move(*built);
}

// Runs one prompt to completion on `io` and checks it ended as scripted.
void runOnce(boost::asio::io_context& io, const agent::Agent& agent, benchmark::State& state) {
    std::optional<agent::RunResult> result;
    boost::asio::co_spawn(io, agent.run("Say hello"),
                          [&](std::exception_ptr, agent::RunResult value) { result = std::move(value); });
    io.run();
    io.restart();
    if (!result || !result->success() || result->toolCalls.size() != 1 || result->output != "done") {
        state.SkipWithError("the run did not end as scripted");
    }
}

// Runs the scripted run on `built` once per iteration; false (the benchmark skipped) when it did not build.
bool runEach(benchmark::State& state, const expected<agent::Agent, agent::AgentError>& built) {
    if (!built) {
        state.SkipWithError(built.error().describe().c_str());
        return false;
    }
    boost::asio::io_context io;
    for (auto _ : state) {
        runOnce(io, *built, state);
    }
    return true;
}

void BM_AgentRun(benchmark::State& state) {
    // One looping script without a request log: nothing grows across millions of runs.
    auto provider = std::make_shared<llm::ScriptedProvider>(script());
    provider->loop(true).recordRequests(false);
    const agent::Agent agent = buildAgent(provider);
    boost::asio::io_context io;
    for (auto _ : state) {
        runOnce(io, agent, state);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentRun)->Unit(benchmark::kMicrosecond);

// The same run traced (`withTelemetry`), measured in CPU of the whole process (the batch processor runs on a
// second thread, as a server's would): range(0) -1 no telemetry, 0 telemetry with every trace sampled out
// (ids made and passed on, no span recorded, the metrics recorded), 1 every span and metric recorded and
// exported over OTLP/HTTP protobuf to the loopback receiver (tests/peers/otlp_receiver.py), spans in
// batches of 512, 2 every span recorded and dropped at its end (the run's share of 1, without the export).
void BM_AgentRunTraced(benchmark::State& state) {
    auto provider = std::make_shared<llm::ScriptedProvider>(script());
    provider->loop(true).recordRequests(false);
    std::optional<reagent::test::PeerProcess> receiver;
    boost::asio::io_context exports;
    auto guard = boost::asio::make_work_guard(exports);
    std::thread exporter([&exports] { exports.run(); });
    std::shared_ptr<telemetry::Telemetry> traced;
    if (state.range(0) == 2) {
        // Every span recorded and handed to a sink that drops it: the cost of the spans in the run alone,
        // without their export.
        struct Discard final : telemetry::SpanSink {
            void onEnd(telemetry::SpanData) override {}
        };
        telemetry::SamplerConfig always;
        always.kind = telemetry::SamplerKind::always_on;
        traced = std::make_shared<telemetry::Telemetry>(always, std::make_shared<Discard>());
    } else if (state.range(0) >= 0) {
        telemetry::TelemetryConfig config;
        config.sampler.kind =
            state.range(0) == 0 ? telemetry::SamplerKind::always_off : telemetry::SamplerKind::always_on;
        // Traces and metrics, as OTEL_EXPORTER_OTLP_ENDPOINT turns both on; the metrics are recorded
        // whatever the sampling, and exported once, at the end (the interval is a minute).
        receiver.emplace(std::string(REAGENT_PEERS_DIR) + "/otlp_receiver.py", std::vector<std::string>{});
        config.enabled = true;
        config.traces.endpoint = receiver->url("/v1/traces");
        config.metricsEnabled = true;
        config.metrics.endpoint = receiver->url("/v1/metrics");
        traced = telemetry::Telemetry::create(exports.get_executor(), config).value();
    }
    auto tool = echoTool();
    auto built = agent::Agent::create()
                     .withProvider(provider)
                     .withTools(agent::ToolsConfig{})
                     .withTool(std::move(tool))
                     .withTelemetry(traced)
                     .build();
    const bool ran = runEach(state, built);
    if (ran && traced && receiver) {
        auto flushed = boost::asio::co_spawn(exports, traced->shutdown(std::chrono::seconds(30)),
                                             boost::asio::use_future)
                           .get();
        const auto stats = traced->stats();
        state.counters["exported"] = static_cast<double>(stats.exported);
        state.counters["dropped"] = static_cast<double>(stats.dropped);
        if (!flushed) {
            state.SkipWithError(flushed.error().message.c_str());
        }
    }
    guard.reset();
    exporter.join();
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentRunTraced)
    ->Arg(-1)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

// One turn of a conversation whose history holds `range(0)` earlier turns (a 200-character question and a
// 400-character answer each), without (`range(1)` 0) and with a context window to keep to, compaction off
// (1) and on (2, the default; far below its threshold, so its check is a no-op): the first request is
// estimated in full, the second counted from the API's reported count plus what was added. The
// differences are the cost of counting, and of the compaction check, per turn.
void BM_TurnWithHistory(benchmark::State& state) {
    llm::ModelReply call;
    call.toolCalls.push_back({"call_1", "echo", json{{"text", "hello"}}});
    call.usage = llm::Usage{50'000, 20, 0, 0, 0};
    llm::ModelReply answer;
    answer.text = "done";
    answer.usage = llm::Usage{50'100, 5, 0, 0, 0};
    auto provider = std::make_shared<llm::ScriptedProvider>(
        std::vector<llm::ScriptedTurn>{llm::ScriptedTurn::reply(call), llm::ScriptedTurn::reply(answer)});
    provider->loop(true).recordRequests(false);
    auto tool = echoTool();
    auto builder = agent::Agent::create();
    builder.withProvider(provider).withTools(agent::ToolsConfig{}).withTool(std::move(tool));
    if (state.range(1) != 0) {
        builder.withContextWindow(10'000'000);
    }
    if (state.range(1) != 2) {
        builder.withoutCompaction();
    }
    auto built = builder.build();
    if (!built) {
        state.SkipWithError(built.error().describe().c_str());
        return;
    }
    std::vector<llm::Message> history;
    for (std::int64_t turn = 0; turn < state.range(0); ++turn) {
        history.push_back(llm::Message::user(std::string(200, 'q')));
        history.push_back(llm::Message::assistant(std::string(400, 'a')));
    }
    boost::asio::io_context io;
    for (auto _ : state) {
        std::optional<agent::RunResult> result;
        boost::asio::co_spawn(io, built->run(history, "Say hello"),
                              [&](std::exception_ptr, agent::RunResult value) { result = std::move(value); });
        io.run();
        io.restart();
        if (!result || !result->success()) {
            state.SkipWithError("the turn did not end as scripted");
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TurnWithHistory)
    ->ArgsProduct({{10, 100, 1000}, {0, 1, 2}})
    ->ArgNames({"turns", "window"})
    ->Unit(benchmark::kMicrosecond);

// The same run with a price table and every budget limit set (none reached): usage priced per call, each
// request estimated against the token and cost limits, each batch against the tool-call limit.
void BM_AgentRunBudgeted(benchmark::State& state) {
    llm::ModelReply call;
    call.toolCalls.push_back({"call_1", "echo", json{{"text", "hello"}}});
    call.model = "gpt-4.1-2025-04-14";
    call.usage = llm::Usage{120, 20, 64, 0, 0};
    llm::ModelReply answer;
    answer.text = "done";
    answer.model = call.model;
    answer.usage = llm::Usage{150, 5, 64, 0, 0};
    auto provider = std::make_shared<llm::ScriptedProvider>(
        std::vector<llm::ScriptedTurn>{llm::ScriptedTurn::reply(call), llm::ScriptedTurn::reply(answer)});
    provider->loop(true).recordRequests(false);
    auto prices = llm::PriceTable::fromJson(
        json::parse(R"({"models": {"gpt-4.1": {"input": 2, "output": 8, "cacheRead": 0.5}}})"));
    agent::RunBudget budget;
    budget.maxTotalTokens = 100'000;
    budget.maxCost = 1.0;
    budget.maxModelCalls = 10;
    budget.maxToolCalls = 10;
    auto tool = echoTool();
    auto built = agent::Agent::create()
                     .withProvider(provider)
                     .withTools(agent::ToolsConfig{})
                     .withTool(std::move(tool))
                     .withPrices(std::make_shared<const llm::PriceTable>(std::move(*prices)))
                     .withBudget(budget)
                     .build();
    if (!runEach(state, built)) {
        return;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentRunBudgeted)->Unit(benchmark::kMicrosecond);

// ---- Structured output: a run whose answer is a 1 KB JSON value of a nested described struct, checked
// against its schema (withOutput<Report>), beside the same run answering the same text without a schema.

enum class Level { low, medium, high };
BOOST_DESCRIBE_ENUM(Level, low, medium, high)

struct Item {
    std::string name;
    double value = 0;
    Level level = Level::low;
    std::vector<std::string> tags;
};
BOOST_DESCRIBE_STRUCT(Item, (), (name, value, level, tags))

struct Report {
    std::string title;
    std::vector<Item> items;
    std::map<std::string, int> counts;
    std::optional<std::string> note;
};
BOOST_DESCRIBE_STRUCT(Report, (), (title, items, counts, note))

// About 1 KB of JSON.
const std::string& reportAnswer() {
    static const std::string text = [] {
        Report report;
        report.title = "Weekly station report";
        for (int i = 0; i < 8; ++i) {
            report.items.push_back(Item{"station-" + std::to_string(i),
                                        12.5 + i,
                                        static_cast<Level>(i % 3),
                                        {"north", "calibrated", "2026"}});
            report.counts["region-" + std::to_string(i)] = i * 7;
        }
        report.note = "all stations reported";
        return tools::encodeAs(report).dump();
    }();
    return text;
}

agent::Agent reportAgent(bool structured) {
    auto provider = std::make_shared<llm::ScriptedProvider>(
        std::vector<llm::ScriptedTurn>{llm::ScriptedTurn::toolCall("echo", json{{"text", "hello"}}, "call_1"),
                                       llm::ScriptedTurn::text(reportAnswer())});
    provider->loop(true).recordRequests(false);
    auto tool = echoTool();
    auto builder = agent::Agent::create();
    builder.withProvider(provider).withTools(agent::ToolsConfig{}).withTool(std::move(tool));
    if (structured) {
        builder.withOutput<Report>();
    }
    auto built = builder.build();
    if (!built) {
        throw std::runtime_error(built.error().describe());
    }
    return std::move(*built);
}

void runReport(boost::asio::io_context& io, const agent::Agent& agent, bool structured,
               benchmark::State& state) {
    std::optional<agent::RunResult> result;
    boost::asio::co_spawn(io, agent.run("Report"),
                          [&](std::exception_ptr, agent::RunResult value) { result = std::move(value); });
    io.run();
    io.restart();
    if (!result || !result->success() || result->structuredOutput.is_null() != !structured) {
        state.SkipWithError("the run did not end as scripted");
    }
}

void BM_AgentRunReportText(benchmark::State& state) {
    const agent::Agent agent = reportAgent(false);
    boost::asio::io_context io;
    for (auto _ : state) {
        runReport(io, agent, false, state);
    }
}
BENCHMARK(BM_AgentRunReportText)->Unit(benchmark::kMicrosecond);

void BM_AgentRunReportStructured(benchmark::State& state) {
    const agent::Agent agent = reportAgent(true);
    boost::asio::io_context io;
    for (auto _ : state) {
        runReport(io, agent, true, state);
    }
}
BENCHMARK(BM_AgentRunReportStructured)->Unit(benchmark::kMicrosecond);

// The parts: validating the parsed answer against the schema, and decoding it into the struct.
void BM_ValidateReport(benchmark::State& state) {
    const auto validator = tools::SchemaValidator::compile(*tools::schemaOf<Report>());
    const json answer = json::parse(reportAnswer());
    for (auto _ : state) {
        auto valid = validator->validate(answer);
        benchmark::DoNotOptimize(valid);
    }
}
BENCHMARK(BM_ValidateReport)->Unit(benchmark::kMicrosecond);

void BM_DecodeReport(benchmark::State& state) {
    const json answer = json::parse(reportAnswer());
    for (auto _ : state) {
        auto decoded = tools::decodeAs<Report>(answer);
        benchmark::DoNotOptimize(decoded);
    }
}
BENCHMARK(BM_DecodeReport)->Unit(benchmark::kMicrosecond);

// ---- Streaming a typed answer: the 1 KB answer streamed in 16-byte pieces to a subscriber, with and
// without the schema (with it, each piece may also heal the partial value into a PartialOutput event).

class StreamingModel final : public llm::Provider {
  public:
    std::string_view name() const noexcept override { return "streaming"; }
    Task<expected<llm::ModelReply, llm::ProviderError>> complete(llm::ModelRequest request) override {
        const std::string& answer = reportAnswer();
        if (request.onDelta) {
            llm::StreamDelta delta;
            for (std::size_t at = 0; at < answer.size(); at += 16) {
                delta.text.assign(answer, at, 16);
                request.onDelta(delta);
            }
        }
        llm::ModelReply reply;
        reply.text = answer;
        co_return reply;
    }
};

void streamReport(benchmark::State& state, bool structured) {
    auto builder = agent::Agent::create();
    builder.withProvider(std::make_shared<StreamingModel>());
    if (structured) {
        builder.withOutput<Report>();
    }
    std::size_t partials = 0;
    builder.withEventHandler([&](const agent::AgentEvent& event) {
        partials += std::holds_alternative<agent::PartialOutput>(event) ? 1 : 0;
    });
    const agent::Agent agent = std::move(*builder.build());
    boost::asio::io_context io;
    for (auto _ : state) {
        std::optional<agent::RunResult> result;
        boost::asio::co_spawn(io, agent.run("Report"),
                              [&](std::exception_ptr, agent::RunResult value) { result = std::move(value); });
        io.run();
        io.restart();
        if (!result || !result->success()) {
            state.SkipWithError("the run did not end as scripted");
        }
    }
    state.counters["partials/run"] =
        benchmark::Counter(static_cast<double>(partials), benchmark::Counter::kAvgIterations);
}

void BM_AgentRunReportStreamedText(benchmark::State& state) {
    streamReport(state, false);
}
BENCHMARK(BM_AgentRunReportStreamedText)->Unit(benchmark::kMicrosecond);

void BM_AgentRunReportStreamedStructured(benchmark::State& state) {
    streamReport(state, true);
}
BENCHMARK(BM_AgentRunReportStreamedStructured)->Unit(benchmark::kMicrosecond);

// Encodes `request` in `format` on each iteration (its tools encoded once, as a provider caches them).
void measureEncode(benchmark::State& state, const providers::WireFormat& format,
                   const llm::ModelRequest& request) {
    providers::CodecOptions options;
    options.model = format.defaultModel;
    const providers::EncodedTools tools = format.encodeTools(request.tools, options);
    for (auto _ : state) {
        auto encoded = format.encodeRequest(request, options, tools);
        benchmark::DoNotOptimize(encoded);
    }
    state.SetLabel(format.name);
}

// ---- The native structured-output field: encoding the second request of the report run (a tool call and
// its result in the history, one tool) in each wire format, without and with the Report schema.
void encodeReport(benchmark::State& state, bool withOutput) {
    const auto kind = static_cast<providers::ProviderKind>(state.range(0));
    const providers::WireFormat& format = providers::wire::forKind(kind);
    llm::ModelRequest request;
    request.tools = {llm::ToolSpec{
        "echo", "Echo the text back",
        json{{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", {"text"}}}}};
    request.messages = {llm::Message::user("Report"),
                        llm::Message::assistant("", {llm::ToolCall{"call_1", "echo", {{"text", "hello"}}}}),
                        llm::Message::toolResult("call_1", "echo", "hello")};
    if (withOutput) {
        request.output = std::make_shared<const llm::OutputFormat>(
            llm::OutputFormat{"report", *tools::schemaOf<Report>()});
    }
    measureEncode(state, format, request);
}

void BM_EncodeRequestPlain(benchmark::State& state) {
    encodeReport(state, false);
}
BENCHMARK(BM_EncodeRequestPlain)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

void BM_EncodeRequestWithOutput(benchmark::State& state) {
    encodeReport(state, true);
}
BENCHMARK(BM_EncodeRequestWithOutput)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

// The cost of an image in every request of a run: a 1 MiB PNG attached to the prompt, encoded (base64 into
// the body) in each wire format, beside the plain request above.
void BM_EncodeRequestWithImage(benchmark::State& state) {
    const auto kind = static_cast<providers::ProviderKind>(state.range(0));
    const providers::WireFormat& format = providers::wire::forKind(kind);
    std::string bytes = "\x89PNG\r\n\x1a\n";
    bytes.resize(1024 * 1024, 'p');
    llm::ModelRequest request;
    request.messages = {
        llm::Message::user("What is in the photo?", {*llm::Attachment::fromBytes(std::move(bytes))})};
    measureEncode(state, format, request);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 1024 * 1024);
}
BENCHMARK(BM_EncodeRequestWithImage)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
