// Wall time of a ToolExecutor batch whose tools each sleep 50 ms, against the ideal schedule.
//
// With the default cap of 3 calls at once, 3 tools ideally take 50 ms and 9 tools 150 ms (three waves).
// `overhead_ms` is measured minus ideal; `ratio` is measured / ideal.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/reagent.hpp"

namespace {

using namespace reagent;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr auto kSleep = 50ms;

Task<tools::ToolResult> sleepy(json, tools::ToolContext context) {
    boost::asio::steady_timer timer(context.executor, kSleep);
    co_await timer.async_wait(boost::asio::use_awaitable);
    co_return "slept";
}

void BM_ExecutorBatch(benchmark::State& state) {
    const auto toolCount = static_cast<std::size_t>(state.range(0));
    tools::ToolRegistry registry;
    std::vector<tools::ToolCallRequest> calls;
    for (std::size_t i = 0; i < toolCount; ++i) {
        const std::string name = "sleepy_" + std::to_string(i);
        auto tool = tools::ToolBuilder::create(name).description("Sleeps 50 ms").handler(sleepy).build();
        if (!tool || !registry.add(std::move(*tool))) {
            throw std::runtime_error("cannot register " + name);
        }
        calls.push_back(tools::ToolCallRequest{"call_" + std::to_string(i), name, json::object()});
    }
    tools::ToolExecutor executor(registry);
    const std::size_t cap = executor.policy().maxParallel;
    const std::size_t waves = (toolCount + cap - 1) / cap;
    const double idealMs =
        static_cast<double>(waves) * std::chrono::duration<double, std::milli>(kSleep).count();

    boost::asio::io_context io;
    double totalMs = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        std::size_t succeeded = 0;
        boost::asio::co_spawn(io, executor.execute(calls, 0),
                              [&](std::exception_ptr, std::vector<tools::ToolCallRecord> records) {
                                  for (const auto& record : records) {
                                      succeeded += record.succeeded() ? 1 : 0;
                                  }
                              });
        io.run();
        io.restart();
        totalMs +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (succeeded != toolCount) {
            state.SkipWithError("a call failed");
        }
    }
    const double measuredMs = totalMs / static_cast<double>(state.iterations());
    state.counters["ideal_ms"] = idealMs;
    state.counters["overhead_ms"] = measuredMs - idealMs;
    state.counters["ratio"] = measuredMs / idealMs;
}
BENCHMARK(BM_ExecutorBatch)->Arg(3)->Arg(9)->UseRealTime()->Unit(benchmark::kMillisecond);

Task<void> sleepOnce() {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, kSleep);
    co_await timer.async_wait(boost::asio::use_awaitable);
}

Task<void> sleepWaves(std::size_t rounds) {
    for (std::size_t i = 0; i < rounds; ++i) {
        co_await sleepOnce();
    }
}

// The floor under the executor's figures: the same waves of 50 ms timers with no executor at all, so the
// machine's own timer slack and scheduling delay can be told apart from the executor's overhead.
void BM_BareTimers(benchmark::State& state) {
    const auto count = static_cast<std::size_t>(state.range(0));
    constexpr std::size_t kCap = 3;
    const std::size_t waves = (count + kCap - 1) / kCap;
    const double idealMs =
        static_cast<double>(waves) * std::chrono::duration<double, std::milli>(kSleep).count();
    boost::asio::io_context io;
    double totalMs = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        // kCap lanes, each sleeping once per wave: the schedule the executor's cap produces.
        for (std::size_t lane = 0; lane < std::min(count, kCap); ++lane) {
            boost::asio::co_spawn(io, sleepWaves(waves), boost::asio::detached);
        }
        io.run();
        io.restart();
        totalMs +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    const double measuredMs = totalMs / static_cast<double>(state.iterations());
    state.counters["ideal_ms"] = idealMs;
    state.counters["overhead_ms"] = measuredMs - idealMs;
    state.counters["ratio"] = measuredMs / idealMs;
}
BENCHMARK(BM_BareTimers)->Arg(3)->Arg(9)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
