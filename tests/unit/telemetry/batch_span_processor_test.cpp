// The batch processor exports what ends in batches, from its own strand: after the delay, at once when a
// batch fills, everything on flush; a full queue drops and counts; a failing or hanging exporter costs the
// spans' producers nothing; nothing is left waiting on the context once the queue is empty.

#include "reagent/telemetry/batch_span_processor.hpp"

#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "reagent/telemetry/telemetry.hpp"
#include "reagent/telemetry/trace_file_exporter.hpp"

using namespace reagent::telemetry;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

// Records each batch it is given; fails or waits as told.
struct Recorder {
    std::vector<std::size_t> batches;
    std::vector<std::string> names;
    int failuresLeft = 0;
    std::chrono::milliseconds wait{0};
    int inFlight = 0;
    int maxInFlight = 0;
};

SpanExporter recording(std::shared_ptr<Recorder> recorder) {
    return [recorder](std::vector<SpanData> spans) -> reagent::Task<reagent::expected<void, TelemetryError>> {
        ++recorder->inFlight;
        recorder->maxInFlight = std::max(recorder->maxInFlight, recorder->inFlight);
        if (recorder->wait > 0ms) {
            asio::steady_timer timer(co_await asio::this_coro::executor, recorder->wait);
            co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        --recorder->inFlight;
        if (recorder->failuresLeft > 0) {
            --recorder->failuresLeft;
            co_return reagent::fail(TelemetryError{TelemetryErrc::export_failed, "the collector said 400"});
        }
        recorder->batches.push_back(spans.size());
        for (const SpanData& span : spans) {
            recorder->names.push_back(span.name);
        }
        co_return reagent::expected<void, TelemetryError>{};
    };
}

SpanData span(std::string name) {
    SpanData data;
    data.name = std::move(name);
    return data;
}

std::shared_ptr<BatchSpanProcessor> processor(asio::io_context& io, std::shared_ptr<Recorder> recorder,
                                              BatchOptions options) {
    auto made = BatchSpanProcessor::create(io.get_executor(), recording(std::move(recorder)), options);
    REQUIRE(made);
    return *made;
}

template <class T>
T await(asio::io_context& io, reagent::Task<T> task) {
    auto future = asio::co_spawn(io, std::move(task), asio::use_future);
    io.restart();
    io.run();
    return future.get();
}

}  // namespace

TEST_CASE("batch processor: spans wait for the delay, then go in one batch, the context is free after",
          "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    auto batch = processor(io, recorder, {2048, 512, 50ms});
    batch->onEnd(span("a"));
    batch->onEnd(span("b"));
    const auto started = std::chrono::steady_clock::now();
    io.run();  // returns once the batch has gone: nothing keeps waiting
    CHECK(std::chrono::steady_clock::now() - started >= 45ms);
    CHECK(recorder->batches == std::vector<std::size_t>{2});
    CHECK(recorder->names == std::vector<std::string>{"a", "b"});
    CHECK(batch->stats().exported == 2);
    CHECK(batch->stats().dropped == 0);
}

TEST_CASE("batch processor: a full batch goes at once, in order, one export at a time",
          "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    recorder->wait = 5ms;
    auto batch = processor(io, recorder, {100, 3, 10s});
    for (int i = 0; i < 7; ++i) {
        batch->onEnd(span(std::to_string(i)));
    }
    const auto started = std::chrono::steady_clock::now();
    auto flushed = await(io, batch->flush(5s));
    CHECK(flushed);
    CHECK(std::chrono::steady_clock::now() - started < 5s);  // not the 10 s delay
    CHECK(recorder->batches == std::vector<std::size_t>{3, 3, 1});
    CHECK(recorder->names == std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6"});
    CHECK(recorder->maxInFlight == 1);
}

TEST_CASE("batch processor: a full queue drops what comes and counts it, never blocking",
          "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    auto batch = processor(io, recorder, {4, 4, 10s});
    for (int i = 0; i < 10; ++i) {
        batch->onEnd(span(std::to_string(i)));
    }
    CHECK(batch->stats().dropped == 6);
    CHECK(await(io, batch->flush(5s)));
    CHECK(recorder->names == std::vector<std::string>{"0", "1", "2", "3"});
}

TEST_CASE("batch processor: spans ended on other threads all arrive", "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    auto batch = processor(io, recorder, {10'000, 64, 20ms});
    auto guard = asio::make_work_guard(io);
    std::thread runner([&io] { io.run(); });
    std::vector<std::thread> producers;
    for (int t = 0; t < 4; ++t) {
        producers.emplace_back([&batch] {
            for (int i = 0; i < 500; ++i) {
                batch->onEnd(span("s"));
            }
        });
    }
    for (auto& producer : producers) {
        producer.join();
    }
    auto flushed = asio::co_spawn(io, batch->flush(10s), asio::use_future).get();
    guard.reset();
    runner.join();
    CHECK(flushed);
    CHECK(batch->stats().exported == 2000);
    CHECK(recorder->names.size() == 2000);
}

TEST_CASE("batch processor: a failing exporter is counted and reported by flush, not by the producer",
          "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    recorder->failuresLeft = 1;
    auto batch = processor(io, recorder, {100, 10, 10s});
    batch->onEnd(span("lost"));
    auto flushed = await(io, batch->flush(5s));
    REQUIRE_FALSE(flushed);
    CHECK(flushed.error().code == TelemetryErrc::export_failed);
    CHECK(flushed.error().message.find("400") != std::string::npos);
    CHECK(batch->stats().failed == 1);
    CHECK(batch->stats().lastError.find("400") != std::string::npos);

    batch->onEnd(span("kept"));
    CHECK(await(io, batch->flush(5s)));  // an earlier failure does not fail a later flush
    CHECK(recorder->names == std::vector<std::string>{"kept"});
}

TEST_CASE("batch processor: flush keeps to its bound with an exporter that hangs, shutdown drops the rest",
          "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    recorder->wait = 2s;
    auto batch = processor(io, recorder, {100, 1, 10s});
    batch->onEnd(span("first"));
    batch->onEnd(span("second"));
    const auto started = std::chrono::steady_clock::now();
    auto flushed = await(io, batch->shutdown(100ms));
    REQUIRE_FALSE(flushed);
    CHECK(flushed.error().code == TelemetryErrc::export_failed);
    CHECK(flushed.error().message.find("within 100 ms") != std::string::npos);
    CHECK(batch->stats().dropped == 1);  // "second" was still queued
    batch->onEnd(span("late"));
    CHECK(batch->stats().dropped == 2);
    CHECK(std::chrono::steady_clock::now() - started < 4s);
}

TEST_CASE("batch processor: limits that cannot work are refused", "[telemetry][batch]") {
    asio::io_context io;
    auto recorder = std::make_shared<Recorder>();
    CHECK(BatchSpanProcessor::create(io.get_executor(), recording(recorder), {0, 0, 1s}).error().code ==
          TelemetryErrc::invalid_config);
    CHECK(BatchSpanProcessor::create(io.get_executor(), recording(recorder), {10, 11, 1s})
              .error()
              .message.find("cannot be larger than its queue") != std::string::npos);
    CHECK_FALSE(BatchSpanProcessor::create(io.get_executor(), SpanExporter(), {}));
}

TEST_CASE("trace file: each batch is one OTLP/JSON line, a file that cannot be opened is an error",
          "[telemetry][batch]") {
    const auto path =
        std::filesystem::temp_directory_path() / ("reagent-trace-" + std::to_string(::getpid()) + ".jsonl");
    std::filesystem::remove(path);
    {
        asio::io_context io;
        TelemetryConfig config;
        config.resource.attributes.push_back({"service.name", std::string("trace-file-test")});
        config.batch = {100, 2, 10s};
        auto telemetry = Telemetry::create(io.get_executor(), config, path);
        REQUIRE(telemetry);
        REQUIRE(*telemetry);
        for (const char* name : {"one", "two", "three"}) {
            (*telemetry)->tracer().startSpan(name, SpanKind::internal).end();
        }
        CHECK(await(io, (*telemetry)->shutdown(5s)));
        CHECK((*telemetry)->stats().exported == 3);
    }
    std::ifstream in(path);
    std::vector<nlohmann::json> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(nlohmann::json::parse(line));
    }
    REQUIRE(lines.size() == 2);
    CHECK(lines[0]["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"] ==
          "trace-file-test");
    CHECK(lines[0]["resourceSpans"][0]["scopeSpans"][0]["spans"].size() == 2);
    CHECK(lines[1]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["name"] == "three");
    std::filesystem::remove(path);

    asio::io_context io;
    auto refused = Telemetry::create(io.get_executor(), TelemetryConfig{}, "/nonexistent-dir/trace.jsonl");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == TelemetryErrc::invalid_config);
    CHECK(refused.error().message.find("/nonexistent-dir/trace.jsonl") != std::string::npos);

    auto nothing = Telemetry::create(io.get_executor(), TelemetryConfig{});
    REQUIRE(nothing);
    CHECK(*nothing == nullptr);  // neither an endpoint nor a file: nothing to trace into
}
