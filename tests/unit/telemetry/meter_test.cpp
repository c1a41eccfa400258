// Histograms aggregate per set of attributes, in the explicit buckets OpenTelemetry defines (upper bound
// inclusive), and tell their meter's reader once per collection that something was recorded.

#include "reagent/telemetry/meter.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <thread>

#include "reagent/telemetry/instruments.hpp"

using namespace reagent::telemetry;

TEST_CASE("a histogram counts each value in the bucket whose upper bound it does not pass",
          "[telemetry][metrics]") {
    Meter meter;
    Histogram& histogram = meter.histogram("latency", "s", "How long", {1.0, 0.5, 2.0});  // sorted on making
    for (const double value : {0.5, 0.7, 1.0, 3.0, -2.0}) {
        histogram.record(value, {{"route", std::string("a")}});
    }
    histogram.record(std::numeric_limits<double>::quiet_NaN(), {{"route", std::string("a")}});  // ignored
    histogram.record(1.5, {{"route", std::string("b")}});

    const auto metrics = meter.collect();
    REQUIRE(metrics.size() == 1);
    const MetricData& metric = metrics[0];
    CHECK(metric.name == "latency");
    CHECK(metric.unit == "s");
    CHECK(metric.description == "How long");
    REQUIRE(metric.points.size() == 2);
    const HistogramPoint& a = metric.points[0];
    CHECK(a.attributes == std::vector<Attribute>{{"route", std::string("a")}});
    CHECK(a.explicitBounds == std::vector<double>{0.5, 1.0, 2.0});
    // (-inf, 0.5] (0.5, 1] (1, 2] (2, +inf)
    CHECK(a.bucketCounts == std::vector<std::uint64_t>{2, 2, 0, 1});
    CHECK(a.count == 5);
    CHECK(a.sum == Approx(3.2));
    CHECK(a.min == -2.0);
    CHECK(a.max == 3.0);
    CHECK(a.startTimeUnixNano > 0);
    CHECK(a.timeUnixNano >= a.startTimeUnixNano);
    CHECK(metric.points[1].bucketCounts == std::vector<std::uint64_t>{0, 0, 1, 0});

    // Cumulative: a second collection still counts everything.
    histogram.record(0.1, {{"route", std::string("a")}});
    CHECK(meter.collect()[0].points[0].count == 6);
    CHECK(meter.collect()[0].points[0].startTimeUnixNano == a.startTimeUnixNano);
}

TEST_CASE("a meter tells of the first recording after each collection, and collects only what has points",
          "[telemetry][metrics]") {
    int told = 0;
    Meter meter([&told] { ++told; });
    Histogram& used = meter.histogram("used", "s", "", {1.0});
    Histogram& again = meter.histogram("used", "ms", "other", {5.0});
    CHECK(&used == &again);  // one histogram per name
    (void)meter.histogram("unused", "s", "", {1.0});

    CHECK(meter.collect().empty());
    used.record(0.5, {});
    used.record(0.6, {});
    CHECK(told == 1);
    CHECK(meter.changed());
    CHECK(meter.takeChanged());
    CHECK_FALSE(meter.changed());
    used.record(0.7, {});
    CHECK(told == 2);
    const auto metrics = meter.collect();
    REQUIRE(metrics.size() == 1);
    CHECK(metrics[0].name == "used");
    CHECK(metrics[0].points[0].count == 3);
}

TEST_CASE("histograms record from many threads at once", "[telemetry][metrics]") {
    Meter meter;
    Histogram& histogram = meter.histogram("n", "1", "", {10.0});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&histogram, t] {
            for (int i = 0; i < 1000; ++i) {
                histogram.record(1.0, {{"thread", static_cast<std::int64_t>(t % 2)}});
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    const auto metrics = meter.collect();
    REQUIRE(metrics[0].points.size() == 2);
    CHECK(metrics[0].points[0].count + metrics[0].points[1].count == 4000);
}

TEST_CASE("the instruments are the conventions' names, units and advised buckets", "[telemetry][metrics]") {
    Meter meter;
    const Instruments instruments = Instruments::on(meter);
    instruments.tokenUsage.record(100, {});
    instruments.operationDuration.record(0.3, {});
    instruments.mcpServerDuration.record(0.3, {});
    instruments.httpServerDuration.record(0.3, {});
    const auto metrics = meter.collect();
    REQUIRE(metrics.size() == 4);
    CHECK(metrics[0].name == "gen_ai.client.token.usage");
    CHECK(metrics[0].unit == "{token}");
    CHECK(metrics[0].points[0].explicitBounds.size() == 14);
    CHECK(metrics[0].points[0].explicitBounds.back() == 67108864);
    CHECK(metrics[1].name == "gen_ai.client.operation.duration");
    CHECK(metrics[1].points[0].explicitBounds.back() == Approx(81.92));
    CHECK(metrics[2].name == "mcp.server.operation.duration");
    CHECK(metrics[2].points[0].explicitBounds.back() == 300);
    CHECK(metrics[3].name == "http.server.request.duration");
    CHECK(metrics[3].points[0].explicitBounds.front() == 0.005);
}

TEST_CASE("a keyed recording builds its attributes once, and shares the point of the same attributes",
          "[telemetry][metrics]") {
    Meter meter;
    Histogram& histogram = meter.histogram("d", "s", "", {1.0});
    int made = 0;
    const auto make = [&made] {
        ++made;
        return std::vector<Attribute>{{"op", std::string("chat")}};
    };
    histogram.record(0.5, "chat", make);
    histogram.record(2.0, "chat", make);
    histogram.record(std::numeric_limits<double>::quiet_NaN(), "chat", make);  // ignored
    histogram.record(0.25, {{"op", std::string("chat")}});                     // the same point
    histogram.record(0.75, "tool", [] { return std::vector<Attribute>{{"op", std::string("tool")}}; });
    CHECK(made == 1);
    const auto metrics = meter.collect();
    REQUIRE(metrics[0].points.size() == 2);
    const HistogramPoint& chat = metrics[0].points[0];
    CHECK(chat.attributes == std::vector<Attribute>{{"op", std::string("chat")}});
    CHECK(chat.count == 3);
    CHECK(chat.min == 0.25);
    CHECK(chat.max == 2.0);
    CHECK(chat.bucketCounts == std::vector<std::uint64_t>{2, 1});
    CHECK(metrics[0].points[1].count == 1);
}
