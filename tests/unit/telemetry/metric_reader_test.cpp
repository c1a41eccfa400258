// The periodic reader exports what was recorded every interval, from its own strand, and stops waiting when
// nothing is recorded; flush exports at once; shutdown ends the waits; a failing exporter is counted.

#include "reagent/telemetry/metric_reader.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>

#include "run_coro.hpp"

using namespace reagent::telemetry;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

struct Exports {
    std::mutex mutex;
    std::vector<std::uint64_t> counts;  // the first point's count, per export
    int failuresLeft = 0;
};

MetricExporter recording(std::shared_ptr<Exports> exports) {
    return [exports](
               std::vector<MetricData> metrics) -> reagent::Task<reagent::expected<void, TelemetryError>> {
        const std::lock_guard lock(exports->mutex);
        if (exports->failuresLeft > 0) {
            --exports->failuresLeft;
            co_return reagent::fail(TelemetryError{TelemetryErrc::export_failed, "the collector said 400"});
        }
        exports->counts.push_back(metrics.at(0).points.at(0).count);
        co_return reagent::expected<void, TelemetryError>{};
    };
}

}  // namespace

TEST_CASE("metrics are exported an interval after they are recorded, and the reader then stops waiting",
          "[telemetry][metrics]") {
    asio::io_context io;
    auto exports = std::make_shared<Exports>();
    auto reader = PeriodicMetricReader::create(io.get_executor(), recording(exports), 40ms);
    REQUIRE(reader);
    Histogram& histogram = (*reader)->meter().histogram("n", "1", "", {1.0});
    histogram.record(0.5, {});
    histogram.record(0.5, {});
    const auto started = std::chrono::steady_clock::now();
    io.run();  // returns once the pass has exported and found nothing new
    const auto took = std::chrono::steady_clock::now() - started;
    CHECK(took >= 40ms);
    CHECK(took < 2s);
    CHECK(exports->counts == std::vector<std::uint64_t>{2});
    CHECK((*reader)->stats().exported == 1);

    // A recording later starts a new wait; the points stay cumulative.
    histogram.record(0.5, {});
    io.restart();
    io.run();
    CHECK(exports->counts == std::vector<std::uint64_t>{2, 3});
}

TEST_CASE("flush exports at once and ends the wait, and shutdown ends a wait and exports the last",
          "[telemetry][metrics]") {
    asio::io_context io;
    auto exports = std::make_shared<Exports>();
    auto reader = PeriodicMetricReader::create(io.get_executor(), recording(exports), 60s);
    REQUIRE(reader);
    Histogram& histogram = (*reader)->meter().histogram("n", "1", "", {1.0});
    histogram.record(0.5, {});
    auto flushed = asio::co_spawn(io, (*reader)->flush(1s), asio::use_future);
    auto started = std::chrono::steady_clock::now();
    io.run();  // the 60 s wait ended with the flush
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    CHECK(flushed.get());
    CHECK(exports->counts == std::vector<std::uint64_t>{1});

    histogram.record(0.5, {});  // a new wait
    io.restart();
    io.run_for(100ms);
    CHECK(exports->counts.size() == 1);
    auto closed = asio::co_spawn(io, (*reader)->shutdown(1s), asio::use_future);
    started = std::chrono::steady_clock::now();
    io.restart();
    io.run();  // nothing waits after shutdown
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    CHECK(closed.get());
    CHECK(exports->counts == std::vector<std::uint64_t>{1, 2});
    histogram.record(0.5, {});  // after shutdown: kept, never exported by a pass
    io.restart();
    CHECK(io.run() == 0);
}

TEST_CASE("a failing metric exporter is counted and reported by flush, and the next export carries all",
          "[telemetry][metrics]") {
    asio::io_context io;
    auto exports = std::make_shared<Exports>();
    exports->failuresLeft = 1;
    auto reader = PeriodicMetricReader::create(io.get_executor(), recording(exports), 60s);
    REQUIRE(reader);
    Histogram& histogram = (*reader)->meter().histogram("n", "1", "", {1.0});
    histogram.record(0.5, {});
    auto failed = reagent::test::runCoro((*reader)->flush(1s));
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code == TelemetryErrc::export_failed);
    CHECK((*reader)->stats().failed == 1);
    CHECK((*reader)->stats().lastError.find("400") != std::string::npos);
    histogram.record(0.5, {});
    CHECK(reagent::test::runCoro((*reader)->shutdown(1s)));
    CHECK(exports->counts == std::vector<std::uint64_t>{2});
}

TEST_CASE("a metric reader refuses an interval that is not positive", "[telemetry][metrics]") {
    asio::io_context io;
    auto reader =
        PeriodicMetricReader::create(io.get_executor(), recording(std::make_shared<Exports>()), 0ms);
    REQUIRE_FALSE(reader);
    CHECK(reader.error().code == TelemetryErrc::invalid_config);
    CHECK(reader.error().message == "the metric export interval must be positive (it is 0 ms)");
}
