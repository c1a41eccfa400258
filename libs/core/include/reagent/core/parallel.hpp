#pragma once
/// \file
/// \brief `parallelMap`: map a coroutine over inputs with at most N in flight, results in input order.

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

namespace detail {

template <class In, class Fn, class R>
struct MapState {
    std::vector<In> inputs;
    Fn fn;
    std::vector<expected<R, EffectError>> results;
    std::size_t next = 0;

    // One of N workers: pulls the next index until none is left, so a slow item never holds back the
    // others (no head-of-line blocking as with fixed batches).
    static Task<void> worker(MapState* state) {
        while (state->next < state->inputs.size()) {
            if (isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
                co_return;
            }
            const std::size_t index = state->next++;
            state->results[index] = co_await settle(call(state, index));
        }
    }

    // A coroutine of its own, so that an `fn` that throws before returning its task is settled too.
    static Task<R> call(MapState* state, std::size_t index) {
        co_return co_await state->fn(state->inputs[index]);
    }
};

}  // namespace detail

/// \brief Runs `fn(input)` for every input with at most `limit` running at once.
///
/// `fn` takes `In&` and returns `Task<R>`. The i-th result belongs to the i-th input, whatever the order
/// of completion. A failure of one item never stops the others.
///
/// \par Errors (per item)
/// - `EffectErrc::exception` when `fn` threw for that item,
/// - `EffectErrc::cancelled` when the caller was cancelled before the item started or while it ran.
///
/// \par Cancellation
/// Cancelling the caller reaches every item in flight; items not yet started never start.
template <class In, class Fn, class R = typename std::invoke_result_t<Fn&, In&>::value_type>
[[nodiscard]] Task<std::vector<expected<R, EffectError>>> parallelMap(std::vector<In> inputs,
                                                                      std::size_t limit, Fn fn) {
    namespace asio = boost::asio;
    using State = detail::MapState<In, Fn, R>;
    const std::size_t count = inputs.size();
    State state{std::move(inputs), std::move(fn), {}, 0};
    state.results.assign(count, fail(detail::cancelledBeforeStart()));
    if (count == 0 || isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return std::move(state.results);
    }
    auto ex = co_await asio::this_coro::executor;
    using Op = decltype(asio::co_spawn(ex, State::worker(&state), asio::deferred));
    std::vector<Op> workers;
    const std::size_t n = std::clamp<std::size_t>(limit, 1, count);
    workers.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        workers.push_back(asio::co_spawn(ex, State::worker(&state), asio::deferred));
    }
    auto group = asio::experimental::make_parallel_group(std::move(workers));
    // The workers settle every item, so the group completes without an exception.
    co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    co_return std::move(state.results);
}

}  // namespace reagent
