#include "helper_process.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/subprocess.hpp"

namespace reagent::transform::detail {
namespace {

namespace asio = boost::asio;
using ErrorCode = boost::system::error_code;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;

/// The state shared by the coroutines of one run.
struct Session {
    explicit Session(Subprocess started) : child(std::move(started)) {}

    Subprocess child;
    std::string inputData;
    std::string outputData;
    std::string diagnosticData;
    std::size_t maxOutputBytes = 0;
    std::size_t maxDiagnosticBytes = 0;
    bool outputTooLarge = false;
    std::optional<int> waitStatus;  // set once reaped
};

Task<void> writeInput(std::shared_ptr<Session> session) {
    if (!session->inputData.empty()) {
        // EPIPE when the helper exits without reading (e.g. a compile error): not an error. The input moves
        // into the write, which frees it early (it can be large).
        auto writing = session->child.writeInput(std::move(session->inputData));
        auto [ec, written] = co_await std::move(writing);
        (void)ec;
        (void)written;
    }
    std::string().swap(session->inputData);
    session->child.closeInput();
}

Task<void> readOutput(std::shared_ptr<Session> session) {
    std::string chunk(kReadChunk, '\0');
    for (;;) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await session->child.output().async_read_some(buffer, kTuple);
        session->outputData.append(chunk.data(), n);
        if (session->outputData.size() > session->maxOutputBytes) {
            // Stop reading and stop the helper: it would otherwise block on a full pipe until the deadline.
            session->outputTooLarge = true;
            session->child.signalGroup(SIGKILL);
            break;
        }
        if (ec) {
            break;  // end of file (the helper exited), or cancelled
        }
    }
    ErrorCode ignored;
    session->child.output().close(ignored);
}

Task<void> readDiagnostics(std::shared_ptr<Session> session) {
    std::string chunk(kReadChunk, '\0');
    for (;;) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await session->child.errors().async_read_some(buffer, kTuple);
        const std::size_t room = session->maxDiagnosticBytes -
                                 std::min(session->maxDiagnosticBytes, session->diagnosticData.size());
        session->diagnosticData.append(chunk.data(), std::min(n, room));
        if (ec) {
            break;
        }
    }
    ErrorCode ignored;
    session->child.errors().close(ignored);
}

/// Feeds the input and drains both outputs concurrently (so that neither side blocks on a full pipe),
/// then reaps the helper. Cancelled by runHelper's race on timeout or cancellation.
Task<void> exchange(std::shared_ptr<Session> session) {
    auto executor = co_await asio::this_coro::executor;
    auto group = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, writeInput(session), asio::deferred),
        asio::co_spawn(executor, readOutput(session), asio::deferred),
        asio::co_spawn(executor, readDiagnostics(session), asio::deferred));
    co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return;
    }
    // Both outputs are at end of file: the helper has exited or is about to.
    if (co_await session->child.waitExit()) {
        session->waitStatus = co_await session->child.reap();
    }
}

/// Kills (unless already reaped) and reaps the helper; `Subprocess::reap` is not cancellable, so a
/// zombie is never left behind because the caller gave up.
Task<void> stopAndReap(std::shared_ptr<Session> session) {
    if (!session->waitStatus) {
        session->waitStatus = co_await session->child.reap();
    }
}

HelperRun finish(Session& session, HelperEnd end) {
    HelperRun run;
    run.end = end;
    if (end == HelperEnd::exited || end == HelperEnd::signalled) {
        const int status = session.waitStatus.value_or(0);
        if (WIFSIGNALED(status)) {
            run.end = HelperEnd::signalled;
            run.status = WTERMSIG(status);
        } else {
            run.end = HelperEnd::exited;
            run.status = WEXITSTATUS(status);
        }
    }
    run.output = std::move(session.outputData);
    run.diagnostics = std::move(session.diagnosticData);
    return run;
}

// The body of runHelper, run with checked cancellation: once the race is over the helper must be
// reaped, even when the caller was cancelled.
Task<HelperRun> runChecked(HelperRequest request) {
    HelperRun notStarted;
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        notStarted.end = HelperEnd::cancelled;
        co_return notStarted;
    }
    auto executor = co_await asio::this_coro::executor;
    SubprocessOptions options;
    options.program = request.executable;
    options.args = request.arguments;
    // An empty environment: the helper (and jq's `env`/`$ENV`) sees none of this process's variables.
    options.environment = std::vector<std::string>{};
    auto spawned = Subprocess::spawn(executor, options);
    if (!spawned) {
        notStarted.failure = std::move(spawned.error().message);
        co_return notStarted;
    }
    auto session = std::make_shared<Session>(std::move(*spawned));
    session->inputData = std::move(request.input);
    session->maxOutputBytes = request.maxOutputBytes;
    session->maxDiagnosticBytes = request.maxDiagnosticBytes;

    asio::steady_timer timer(executor, request.deadline);
    auto race = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, exchange(session), asio::deferred), timer.async_wait(asio::deferred));
    auto outcome =
        co_await std::move(race).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    const bool timerFirst = std::get<0>(outcome)[0] == 1;
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    const bool finished = session->waitStatus.has_value();
    co_await stopAndReap(session);

    if (cancelled) {
        co_return finish(*session, HelperEnd::cancelled);
    }
    if (session->outputTooLarge) {
        co_return finish(*session, HelperEnd::output_too_large);
    }
    if (timerFirst && !finished) {
        co_return finish(*session, HelperEnd::timed_out);
    }
    co_return finish(*session, HelperEnd::exited);
}

}  // namespace

Task<HelperRun> runHelper(HelperRequest request) {
    return withCheckedCancellation(runChecked(std::move(request)));
}

}  // namespace reagent::transform::detail
