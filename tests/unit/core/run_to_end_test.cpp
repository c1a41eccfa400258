// runToEnd: real programs run to their end; exit, signal, deadline, caps, input, cancellation, spawn errors.

#include "reagent/core/run_to_end.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "process_group.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace asio = boost::asio;
using reagent::OverflowAction;
using reagent::RunLimits;
using reagent::RunOutcome;
using reagent::SubprocessOptions;
using reagent::Task;
using reagent::test::elapsedMs;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

SubprocessOptions shellScript(std::string script) {
    SubprocessOptions options;
    options.program = "/bin/sh";
    options.args = {"-c", std::move(script)};
    return options;
}

// Runs `script` to its end; the test fails if it could not start.
RunOutcome runShell(std::string script, RunLimits limits = {}) {
    auto ran = runCoro(reagent::runToEnd(shellScript(std::move(script)), std::move(limits)));
    REQUIRE(ran);
    return std::move(*ran);
}

// The first line of `text`, as the pid a script printed with `echo $$` (its process group: a Subprocess
// leads its own).
pid_t firstLinePid(const std::string& text) {
    return static_cast<pid_t>(std::stol(text.substr(0, text.find('\n'))));
}

// Reads the first line written into the FIFO at `path`. Opened read-write, so that the read waits for the
// writer instead of seeing end of file before it opens.
Task<std::string> firstLineOf(std::string path) {
    auto executor = co_await asio::this_coro::executor;
    asio::readable_pipe fifo(executor, ::open(path.c_str(), O_RDWR | O_NONBLOCK));
    std::string line;
    std::string chunk(64, '\0');
    while (line.find('\n') == std::string::npos) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await fifo.async_read_some(buffer, asio::as_tuple(asio::use_awaitable));
        line.append(chunk.data(), n);
        if (ec) {
            break;
        }
    }
    co_return line;
}

struct CancelledRun {
    RunOutcome outcome;
    std::string announced;  // what the script wrote into the FIFO before it was cancelled
};

// Runs `script` and cancels it as soon as it has written a line into the FIFO at `fifo`.
Task<CancelledRun> runUntilAnnounced(std::string script, std::string fifo) {
    auto executor = co_await asio::this_coro::executor;
    auto group = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, reagent::runToEnd(shellScript(std::move(script)), RunLimits{}),
                       asio::deferred),
        asio::co_spawn(executor, firstLineOf(std::move(fifo)), asio::deferred));
    auto [order, runError, ran, lineError, line] =
        co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    REQUIRE(order[0] == 1);
    REQUIRE_FALSE(runError);
    REQUIRE_FALSE(lineError);
    REQUIRE(ran);
    co_return CancelledRun{std::move(*ran), std::move(line)};
}

}  // namespace

TEST_CASE("runToEnd returns the exit status and both outputs of a program", "[core][run_to_end]") {
    SECTION("a normal exit") {
        const RunOutcome outcome = runShell("echo out; echo err >&2");
        CHECK(outcome.exitCode == 0);
        CHECK_FALSE(outcome.signal);
        CHECK(outcome.stdoutText == "out\n");
        CHECK(outcome.stderrText == "err\n");
        CHECK_FALSE(outcome.timedOut);
        CHECK_FALSE(outcome.killedForOutput);
        CHECK_FALSE(outcome.cancelled);
        CHECK_FALSE(outcome.stdoutTruncated());
        CHECK_FALSE(outcome.stderrTruncated());
    }
    SECTION("a non-zero exit is an outcome") {
        const RunOutcome outcome = runShell("echo failing >&2; exit 3");
        CHECK(outcome.exitCode == 3);
        CHECK_FALSE(outcome.signal);
        CHECK(outcome.stderrText == "failing\n");
    }
    SECTION("a signal that ends the program") {
        const RunOutcome outcome = runShell("kill -TERM $$");
        CHECK(outcome.exitCode == -1);
        REQUIRE(outcome.signal);
        CHECK(*outcome.signal == SIGTERM);
        CHECK_FALSE(outcome.timedOut);
    }
    SECTION("a background child holding the pipes does not keep the run open") {
        const auto start = std::chrono::steady_clock::now();
        const RunOutcome outcome = runShell("echo $$; sleep 30 & echo started");
        CHECK(outcome.exitCode == 0);
        CHECK(elapsedMs(start) < 10'000);
        const int live = runCoro(reagent::test::liveMembersAfterKill(firstLinePid(outcome.stdoutText)));
        CHECK(live == 0);
    }
}

TEST_CASE("runToEnd kills the whole group at the deadline", "[core][run_to_end]") {
    RunLimits limits;
    limits.deadline = std::chrono::steady_clock::now() + 1s;
    const auto start = std::chrono::steady_clock::now();
    const RunOutcome outcome = runShell("echo $$; sleep 30 & sleep 30", std::move(limits));
    CHECK(elapsedMs(start) < 1'000 + 4'000);
    CHECK(outcome.timedOut);
    REQUIRE(outcome.signal);
    CHECK(*outcome.signal == SIGKILL);
    CHECK_FALSE(outcome.cancelled);
    REQUIRE_FALSE(outcome.stdoutText.empty());
    const int live = runCoro(reagent::test::liveMembersAfterKill(firstLinePid(outcome.stdoutText)));
    CHECK(live == 0);
}

TEST_CASE("runToEnd caps each output stream", "[core][run_to_end]") {
    SECTION("truncate keeps the first bytes and counts the rest; the program runs to its end") {
        RunLimits limits;
        limits.stdoutLimit.maxBytes = 1000;
        limits.stderrLimit.maxBytes = 2000;
        const RunOutcome outcome =
            runShell("head -c 300000 /dev/zero; head -c 50000 /dev/zero >&2; exit 4", std::move(limits));
        CHECK(outcome.exitCode == 4);
        CHECK(outcome.stdoutText == std::string(1000, '\0'));
        CHECK(outcome.stdoutDropped == 299'000);
        CHECK(outcome.stdoutTruncated());
        CHECK(outcome.stderrText == std::string(2000, '\0'));
        CHECK(outcome.stderrDropped == 48'000);
        CHECK(outcome.stderrTruncated());
        CHECK_FALSE(outcome.killedForOutput);
    }
    SECTION("kill stops an endless writer at once") {
        RunLimits limits;
        limits.deadline = std::chrono::steady_clock::now() + 20s;  // a bound on the test, never reached
        limits.stdoutLimit = {.maxBytes = 1000, .onOverflow = OverflowAction::kill};
        const RunOutcome outcome = runShell("yes", std::move(limits));
        CHECK(outcome.killedForOutput);
        CHECK_FALSE(outcome.timedOut);
        REQUIRE(outcome.signal);
        CHECK(*outcome.signal == SIGKILL);
        CHECK(outcome.stdoutText.size() == 1000);
        CHECK(outcome.stdoutTruncated());
    }
    SECTION("kill on stderr") {
        RunLimits limits;
        limits.deadline = std::chrono::steady_clock::now() + 20s;
        limits.stderrLimit = {.maxBytes = 10, .onOverflow = OverflowAction::kill};
        const RunOutcome outcome = runShell("yes >&2", std::move(limits));
        CHECK(outcome.killedForOutput);
        CHECK(outcome.stderrText.size() == 10);
        CHECK(outcome.stdoutText.empty());
    }
}

TEST_CASE("runToEnd feeds stdin while it drains the outputs", "[core][run_to_end]") {
    SECTION("input far larger than a pipe, echoed back") {
        RunLimits limits;
        limits.input = std::string(4 << 20, 'x');
        limits.stdoutLimit.maxBytes = 8 << 20;
        const RunOutcome outcome = runShell("cat", std::move(limits));
        CHECK(outcome.exitCode == 0);
        CHECK(outcome.stdoutText.size() == std::size_t{4} << 20);
        CHECK_FALSE(outcome.stdoutTruncated());
    }
    SECTION("a program that exits without reading its input") {
        RunLimits limits;
        limits.input = std::string(1 << 20, 'x');
        const RunOutcome outcome = runShell("exit 0", std::move(limits));
        CHECK(outcome.exitCode == 0);
        CHECK_FALSE(outcome.signal);
    }
}

TEST_CASE("cancelling the caller kills and reaps the whole group", "[core][run_to_end]") {
    reagent::test::TempDir dir;
    const std::string fifo = dir.file("started");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto start = std::chrono::steady_clock::now();
    const CancelledRun run =
        runCoro(runUntilAnnounced("echo $$ > '" + fifo + "'; sleep 30 & sleep 30", fifo));
    CHECK(elapsedMs(start) < 10'000);
    CHECK(run.outcome.cancelled);
    CHECK_FALSE(run.outcome.timedOut);
    REQUIRE(run.outcome.signal);
    CHECK(*run.outcome.signal == SIGKILL);
    const int live = runCoro(reagent::test::liveMembersAfterKill(firstLinePid(run.announced)));
    CHECK(live == 0);
}

TEST_CASE("runToEnd reports a program that cannot start", "[core][run_to_end]") {
    SubprocessOptions missing;
    missing.program = "reagent-no-such-program";
    auto ran = runCoro(reagent::runToEnd(missing, RunLimits{}));
    REQUIRE_FALSE(ran);
    CHECK(ran.error().code == reagent::SpawnErrc::not_found);
    CHECK(ran.error().message.find("reagent-no-such-program") != std::string::npos);
}
