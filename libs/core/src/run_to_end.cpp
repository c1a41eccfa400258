#include "reagent/core/run_to_end.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"

namespace reagent {
namespace {

namespace asio = boost::asio;
constexpr auto kAsTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;

/// The state shared by the coroutines of one run.
struct Run {
    Run(Subprocess started, RunLimits bounds) : child(std::move(started)), limits(std::move(bounds)) {}

    Subprocess child;
    RunLimits limits;
    RunOutcome outcome;
    std::optional<int> waitStatus;  // set once reaped
};

/// Writes the input, then closes stdin so the program reads end of file.
Task<void> feed(std::shared_ptr<Run> run) {
    if (!run->limits.input.empty()) {
        // broken_pipe when the program exits or closes stdin without reading it all: not an error. The
        // input moves into the write, which frees it early (it can be large).
        auto writing = run->child.writeInput(std::move(run->limits.input));
        auto [ec, written] = co_await std::move(writing);
        (void)ec;
        (void)written;
    }
    run->child.closeInput();
}

/// Reads one output to its end, keeping up to the stream's cap; past it, counts and drops (`truncate`, so
/// a flood never blocks the writer) or kills the group and stops reading (`kill`).
Task<void> drain(std::shared_ptr<Run> run, bool errors) {
    auto& pipe = errors ? run->child.errors() : run->child.output();
    const StreamLimit limit = errors ? run->limits.stderrLimit : run->limits.stdoutLimit;
    std::string& kept = errors ? run->outcome.stderrText : run->outcome.stdoutText;
    std::size_t& dropped = errors ? run->outcome.stderrDropped : run->outcome.stdoutDropped;
    std::string chunk(kReadChunk, '\0');
    for (;;) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await pipe.async_read_some(buffer, kAsTuple);
        const std::size_t room = limit.maxBytes - std::min(limit.maxBytes, kept.size());
        kept.append(chunk.data(), std::min(n, room));
        dropped += n - std::min(n, room);
        if (dropped > 0 && limit.onOverflow == OverflowAction::kill) {
            run->outcome.killedForOutput = true;
            run->child.signalGroup(SIGKILL);
            break;
        }
        if (ec) {
            break;  // end of file, or cancelled
        }
    }
    boost::system::error_code ignored;
    pipe.close(ignored);
}

/// Waits for the program to exit, then reaps it: `reap` kills what is left of its group first, which
/// closes the pipes a background child may still hold.
Task<void> awaitExit(std::shared_ptr<Run> run) {
    // The awaited value is named before the test: g++ 12 miscompiles `if (co_await ...)` here (the
    // sanitizer build traps with SIGILL on resumption).
    const bool exited = co_await run->child.waitExit();
    if (exited) {
        const int status = co_await run->child.reap();
        run->waitStatus = status;
    }
}

/// Feeds, drains and waits concurrently, so that neither side blocks on a full pipe.
Task<void> exchange(std::shared_ptr<Run> run) {
    auto executor = co_await asio::this_coro::executor;
    auto group =
        asio::experimental::make_parallel_group(asio::co_spawn(executor, feed(run), asio::deferred),
                                                asio::co_spawn(executor, drain(run, false), asio::deferred),
                                                asio::co_spawn(executor, drain(run, true), asio::deferred),
                                                asio::co_spawn(executor, awaitExit(run), asio::deferred));
    co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
}

// The body of runToEnd, run with checked cancellation: once the race is over the program must be reaped,
// even when the caller was cancelled.
Task<expected<RunOutcome, SpawnError>> runChecked(SubprocessOptions options, RunLimits limits) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        RunOutcome notStarted;
        notStarted.cancelled = true;
        co_return notStarted;
    }
    auto executor = co_await asio::this_coro::executor;
    auto spawned = Subprocess::spawn(executor, options);
    if (!spawned) {
        co_return fail(std::move(spawned.error()));
    }
    const auto deadline = limits.deadline;
    auto run = std::make_shared<Run>(std::move(*spawned), std::move(limits));

    asio::steady_timer timer(executor, deadline);
    auto race = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, exchange(run), asio::deferred), timer.async_wait(asio::deferred));
    auto raced = co_await std::move(race).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    // The timer's own status, not the order of completion: a cancellation from the caller also ends it.
    const bool deadlinePassed = !std::get<2>(raced);
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    const bool finished = run->waitStatus.has_value();
    if (!finished) {
        run->waitStatus = co_await run->child.reap();  // kills the whole group; not cancellable
    }
    RunOutcome outcome = std::move(run->outcome);
    outcome.cancelled = cancelled;
    outcome.timedOut = deadlinePassed && !finished;
    const int status = *run->waitStatus;
    if (WIFSIGNALED(status)) {
        outcome.signal = WTERMSIG(status);
    } else {
        outcome.exitCode = WEXITSTATUS(status);
    }
    co_return outcome;
}

}  // namespace

Task<expected<RunOutcome, SpawnError>> runToEnd(SubprocessOptions options, RunLimits limits) {
    return withCheckedCancellation(runChecked(std::move(options), std::move(limits)));
}

}  // namespace reagent
