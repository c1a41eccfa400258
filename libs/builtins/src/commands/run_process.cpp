#include "commands/run_process.hpp"

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
#include <optional>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/subprocess.hpp"

namespace reagent::builtins::detail {
namespace {

namespace asio = boost::asio;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;

/// The state shared by the coroutines of one run.
struct Run {
    explicit Run(Subprocess started) : child(std::move(started)) {}

    Subprocess child;
    std::size_t maxOutputBytes = 0;
    CommandResult result;
    std::optional<int> waitStatus;  // set once reaped
};

/// Reads `pipe` to its end, keeping the first `limit` bytes and counting the rest; a flood is drained (not
/// left to block the writer) until the command ends or the deadline kills it.
Task<void> drain(std::shared_ptr<Run> run, bool errors) {
    auto& pipe = errors ? run->child.errors() : run->child.output();
    std::string& kept = errors ? run->result.stderrText : run->result.stdoutText;
    std::size_t& cut = errors ? run->result.stderrCut : run->result.stdoutCut;
    std::string chunk(kReadChunk, '\0');
    for (;;) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await pipe.async_read_some(buffer, kTuple);
        const std::size_t room = run->maxOutputBytes - std::min(run->maxOutputBytes, kept.size());
        kept.append(chunk.data(), std::min(n, room));
        cut += n - std::min(n, room);
        if (ec) {
            break;  // end of file, or cancelled
        }
    }
    boost::system::error_code ignored;
    pipe.close(ignored);
    co_return;
}

/// Waits for the program to exit, then reaps it: `reap` kills what is left of its group first.
Task<void> awaitExit(std::shared_ptr<Run> run) {
    // The awaited value is named before the test: g++ 12 miscompiles `if (co_await ...)` here (the
    // sanitizer build traps with SIGILL on resumption).
    const bool exited = co_await run->child.waitExit();
    if (exited) {
        const int status = co_await run->child.reap();
        run->waitStatus = status;
    }
    co_return;
}

Task<void> exchange(std::shared_ptr<Run> run) {
    auto executor = co_await asio::this_coro::executor;
    auto group =
        asio::experimental::make_parallel_group(asio::co_spawn(executor, drain(run, false), asio::deferred),
                                                asio::co_spawn(executor, drain(run, true), asio::deferred),
                                                asio::co_spawn(executor, awaitExit(run), asio::deferred));
    co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    co_return;
}

// The body of runProcess, run with checked cancellation: once the race is over the child must be reaped,
// even when the caller was cancelled.
Task<expected<CommandResult, WorkspaceError>> runChecked(ProcessSpec spec) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::cancelled, "cancelled before '" + spec.program + "' started"});
    }
    auto executor = co_await asio::this_coro::executor;
    SubprocessOptions options;
    options.program = spec.program;
    options.args = std::move(spec.args);
    options.environment = std::move(spec.environment);
    options.workingDirectory = spec.workingDirectory;
    // Nothing the command starts outlives it, also what left its group (setsid, a double fork).
    options.containDescendants = true;
    const auto started = std::chrono::steady_clock::now();
    auto spawned = Subprocess::spawn(executor, options);
    if (!spawned) {
        co_return fail(WorkspaceError{WorkspaceErrc::spawn_failed, std::move(spawned.error().message)});
    }
    auto run = std::make_shared<Run>(std::move(*spawned));
    run->maxOutputBytes = spec.maxOutputBytes;
    // Nothing is written to stdin: the command reads end of file at once.
    run->child.closeInput();

    asio::steady_timer timer(executor, spec.timeout);
    auto race = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, exchange(run), asio::deferred), timer.async_wait(asio::deferred));
    auto outcome =
        co_await std::move(race).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    const bool timerFirst = std::get<0>(outcome)[0] == 1;
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    const bool finished = run->waitStatus.has_value();
    if (!finished) {
        run->waitStatus = co_await run->child.reap();  // kills the whole group; not cancellable
    }
    CommandResult result = std::move(run->result);
    result.duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    if (cancelled) {
        co_return fail(WorkspaceError{WorkspaceErrc::cancelled,
                                      "'" + spec.program + "' was cancelled; its process group was killed"});
    }
    result.timedOut = timerFirst && !finished;
    const int status = *run->waitStatus;
    if (WIFSIGNALED(status)) {
        result.exitCode = -1;
        result.signal = WTERMSIG(status);
    } else {
        result.exitCode = WEXITSTATUS(status);
    }
    co_return result;
}

}  // namespace

Task<expected<CommandResult, WorkspaceError>> runProcess(ProcessSpec spec) {
    auto body = runChecked(std::move(spec));
    co_return co_await withCheckedCancellation(std::move(body));
}

std::vector<std::string> withoutGitVariables(std::vector<std::string> environment) {
    std::erase_if(environment, [](const std::string& entry) { return entry.rfind("GIT_", 0) == 0; });
    return environment;
}

}  // namespace reagent::builtins::detail
