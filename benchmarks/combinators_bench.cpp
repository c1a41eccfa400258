// CPU cost of core's combinators (TaskGroup, parallelMap, parallelMapUntilError) and of the parallel
// workflow built on them, with trivial work: each child, item or step yields once to the event loop (so
// that joins really wait) and returns. No I/O and no sleeping: this is the machinery's own overhead, on a
// reused io_context.

#include <benchmark/benchmark.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/reagent.hpp"

namespace {

using namespace reagent;
namespace asio = boost::asio;

Task<int> yieldThen(int value) {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    co_return value;
}

// Runs `task` to completion on `io`; reports an error when it did not deliver `expected`.
template <class T, class Check>
void runOnce(asio::io_context& io, Task<T> task, benchmark::State& state, Check check) {
    std::optional<T> result;
    asio::co_spawn(io, std::move(task), [&](std::exception_ptr, T value) { result = std::move(value); });
    io.run();
    io.restart();
    if (!result || !check(*result)) {
        state.SkipWithError("the task did not end as expected");
    }
}

Task<std::size_t> spawnAndJoin(std::size_t children) {
    TaskGroup group(co_await asio::this_coro::executor);
    for (std::size_t i = 0; i < children; ++i) {
        group.spawn(yieldThen(static_cast<int>(i)));
    }
    auto errors = co_await group.join();
    co_return errors.size();
}

void BM_TaskGroupJoin(benchmark::State& state) {
    const auto children = static_cast<std::size_t>(state.range(0));
    asio::io_context io;
    for (auto _ : state) {
        runOnce(io, spawnAndJoin(children), state, [](std::size_t errors) { return errors == 0; });
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TaskGroupJoin)->Arg(3)->Arg(32)->Unit(benchmark::kMicrosecond);

Task<std::size_t> mapAll(std::size_t items) {
    std::vector<int> inputs(items, 1);
    auto each = [](int& input) { return yieldThen(input); };
    auto mapping = parallelMap(std::move(inputs), 3, each);
    auto results = co_await std::move(mapping);
    std::size_t sum = 0;
    for (const auto& result : results) {
        sum += result ? static_cast<std::size_t>(*result) : 0;
    }
    co_return sum;
}

// Maps `state.range(0)` ones with `map`, which returns their sum.
void benchMap(benchmark::State& state, Task<std::size_t> (*map)(std::size_t)) {
    const auto items = static_cast<std::size_t>(state.range(0));
    asio::io_context io;
    for (auto _ : state) {
        runOnce(io, map(items), state, [items](std::size_t sum) { return sum == items; });
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_ParallelMap(benchmark::State& state) {
    benchMap(state, mapAll);
}
BENCHMARK(BM_ParallelMap)->Arg(3)->Arg(32)->Unit(benchmark::kMicrosecond);

Task<expected<int, std::string>> yieldThenValue(int value) {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    co_return value;
}

// parallelMap's fail-fast sibling, every item succeeding: what stopping at the first error costs.
Task<std::size_t> mapUntilError(std::size_t items) {
    std::vector<int> inputs(items, 1);
    auto each = [](int& input) { return yieldThenValue(input); };
    auto mapping = parallelMapUntilError(std::move(inputs), 3, each);
    auto values = co_await std::move(mapping);
    std::size_t sum = 0;
    for (const int value : values.value_or(std::vector<int>{})) {
        sum += static_cast<std::size_t>(value);
    }
    co_return sum;
}

void BM_ParallelMapUntilError(benchmark::State& state) {
    benchMap(state, mapUntilError);
}
BENCHMARK(BM_ParallelMapUntilError)->Arg(3)->Arg(32)->Unit(benchmark::kMicrosecond);

Task<agent::StepResult> echoStep(std::string input) {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    co_return input;
}

void BM_ParallelWorkflow(benchmark::State& state) {
    const auto steps = static_cast<std::size_t>(state.range(0));
    std::vector<agent::Workflow::Step> list;
    for (std::size_t i = 0; i < steps; ++i) {
        list.push_back(agent::Workflow::Step::fromFunction("step" + std::to_string(i), echoStep));
    }
    auto workflow = agent::Workflow::parallel("fanout", std::move(list));
    if (!workflow) {
        state.SkipWithError("the workflow was not built");
        return;
    }
    asio::io_context io;
    for (auto _ : state) {
        runOnce(io, workflow->run("x"), state,
                [](const agent::StepResult& result) { return result.has_value(); });
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParallelWorkflow)->Arg(3)->Arg(32)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
