#pragma once
/// \file
/// \brief `parallelMap`: map a coroutine over inputs with at most N in flight, results in input order;
/// `parallelMapUntilError`: the same, stopping at the first item that fails.

#include <algorithm>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief Why `parallelMapUntilError` stopped: the item that failed first, and how it failed.
template <class E>
struct FirstFailure {
    /// The failed item's position in the inputs.
    std::size_t index = 0;
    /// The item settled, as `settle` reports it: the error the item returned (the value), or how it
    /// ended without returning: `EffectErrc::exception` (it threw) or `EffectErrc::cancelled` (the caller
    /// was cancelled before the item started, or the item ended by Asio's `operation_aborted`).
    expected<E, EffectError> settled;
};

namespace detail {

// A coroutine of its own, so that an `fn` that throws before returning its task is settled too.
template <class R, class State>
Task<R> callItem(State* state, std::size_t index) {
    co_return co_await state->fn(state->inputs[index]);
}

// `count` workers of `state` (`State::worker(State*)`) in a ranged parallel group, and the wait for all of
// them; nothing runs until it is awaited. `condition` sees each worker's completion and decides whether the
// others are cancelled. Not a coroutine: the caller awaits the group itself, with no frame in between.
template <class State, class Condition>
[[nodiscard]] auto startWorkers(const Executor& ex, State* state, std::size_t count, Condition condition) {
    namespace asio = boost::asio;
    using Op = decltype(asio::co_spawn(ex, State::worker(state), asio::deferred));
    std::vector<Op> workers;
    workers.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        workers.push_back(asio::co_spawn(ex, State::worker(state), asio::deferred));
    }
    auto group = asio::experimental::make_parallel_group(std::move(workers));
    return std::move(group).async_wait(std::move(condition), asio::use_awaitable);
}

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
            state->results[index] = co_await settle(callItem<R>(state, index));
        }
    }
};

// The failure of item `index`, from how it settled.
template <class T, class E>
FirstFailure<E> failureOf(std::size_t index, expected<expected<T, E>, EffectError> settled) {
    if (settled) {
        return FirstFailure<E>{index, expected<E, EffectError>(std::move(settled->error()))};
    }
    return FirstFailure<E>{index, fail(std::move(settled.error()))};
}

template <class In, class Fn, class T, class E>
struct UntilErrorState {
    std::vector<In> inputs;
    Fn fn;
    std::vector<std::optional<T>> values;
    std::size_t next = 0;
    std::optional<FirstFailure<E>> failure;

    // As `MapState::worker`, and no item starts once one has failed. True when this worker's item failed
    // first: its completion then cancels the other workers, and with them their items in flight.
    static Task<bool> worker(UntilErrorState* state) {
        while (!state->failure && state->next < state->inputs.size()) {
            if (isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
                co_return false;
            }
            const std::size_t index = state->next++;
            auto settled = co_await settle(callItem<expected<T, E>>(state, index));
            if (settled && *settled) {
                state->values[index].emplace(std::move(**settled));
                continue;
            }
            if (state->failure) {
                co_return false;  // stopped because another item failed first
            }
            state->failure.emplace(failureOf(index, std::move(settled)));
            co_return true;
        }
        co_return false;
    }
};

// Cancels the other workers (terminal: a coroutine's default filter) once one reports the first failure.
struct StopOnFailure {
    boost::asio::cancellation_type operator()(const std::exception_ptr&, bool failed) const noexcept {
        return failed ? boost::asio::cancellation_type::terminal : boost::asio::cancellation_type::none;
    }
};

template <class R>
struct ExpectedParts;

template <class T, class E>
struct ExpectedParts<expected<T, E>> {
    using Value = T;
    using Error = E;
};

}  // namespace detail

/// \brief Runs `fn(input)` for every input with at most `limit` running at once.
///
/// `fn` takes `In&` and returns `Task<R>`. The i-th result belongs to the i-th input, whatever the order
/// of completion. A failure of one item never stops the others (`parallelMapUntilError` stops them).
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
    const std::size_t workers = std::clamp<std::size_t>(limit, 1, count);
    auto group = detail::startWorkers(ex, &state, workers, asio::experimental::wait_for_all());
    // The workers settle every item, so the group completes without an exception.
    co_await std::move(group);
    co_return std::move(state.results);
}

/// \brief `parallelMap` for items that can fail, stopping at the first failure: every value in input
/// order, or the first failure.
///
/// `fn` takes `In&` and returns `Task<expected<T, E>>` (`T` not `void`), at most `limit` running at
/// once. As soon as an item fails (returns an error, throws, or ends cancelled), no further item starts
/// and the items in flight are cancelled (a terminal cancellation each); the map returns once they have
/// ended.
///
/// \par Errors
/// The `FirstFailure` of the item that failed first in time: its index and its error, or how it ended
/// without one (`EffectErrc::exception`, `EffectErrc::cancelled`). The items stopped because of it are
/// not reported. When the caller was cancelled and no item failed, the first item that never started
/// is the failure (`EffectErrc::cancelled`, "cancelled before it started").
///
/// \par Cancellation
/// Cancelling the caller reaches every item in flight; items not yet started never start. An item that
/// ends cancelled fails the map like any other failure.
template <class In, class Fn, class R = typename std::invoke_result_t<Fn&, In&>::value_type,
          class T = typename detail::ExpectedParts<R>::Value,
          class E = typename detail::ExpectedParts<R>::Error>
[[nodiscard]] Task<expected<std::vector<T>, FirstFailure<E>>> parallelMapUntilError(std::vector<In> inputs,
                                                                                    std::size_t limit,
                                                                                    Fn fn) {
    namespace asio = boost::asio;
    using State = detail::UntilErrorState<In, Fn, T, E>;
    const std::size_t count = inputs.size();
    State state{std::move(inputs), std::move(fn), {}, 0, std::nullopt};
    state.values.resize(count);
    if (count > 0 && !isCancelled(co_await asio::this_coro::cancellation_state)) {
        auto ex = co_await asio::this_coro::executor;
        const std::size_t workers = std::clamp<std::size_t>(limit, 1, count);
        auto group = detail::startWorkers(ex, &state, workers, detail::StopOnFailure{});
        co_await std::move(group);
    }
    if (state.failure) {
        co_return fail(std::move(*state.failure));
    }
    std::vector<T> values;
    values.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (!state.values[i]) {
            FirstFailure<E> notStarted{i, fail(detail::cancelledBeforeStart())};
            co_return fail(std::move(notStarted));
        }
        values.push_back(std::move(*state.values[i]));
    }
    co_return values;
}

}  // namespace reagent
