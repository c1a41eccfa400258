// Subprocess: spawn with environment and working directory, its own process group, stop and reap.

#include "reagent/core/subprocess.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect_pipe.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "process_group.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace asio = boost::asio;
using reagent::Subprocess;
using reagent::SubprocessOptions;
using reagent::Task;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

Task<std::string> readAll(asio::readable_pipe& pipe) {
    std::string data;
    auto [ec, n] =
        co_await asio::async_read(pipe, asio::dynamic_buffer(data), asio::as_tuple(asio::use_awaitable));
    (void)ec;
    (void)n;
    co_return data;
}

// Reads `pipe` to its end and closes it, as a command runner does: the close frees the pipe's reactor state
// while the child's exit may still be queued.
Task<void> drainAndClose(asio::readable_pipe* pipe) {
    std::string chunk(4096, '\0');
    for (;;) {
        auto [ec, n] =
            co_await pipe->async_read_some(asio::buffer(chunk), asio::as_tuple(asio::use_awaitable));
        if (ec) {
            break;
        }
    }
    boost::system::error_code ignored;
    pipe->close(ignored);
}

Task<void> waitAndReap(Subprocess* child) {
    const bool exited = co_await child->waitExit();
    if (exited) {
        (void)co_await child->reap();
    }
}

// One short run: the output and error pipes drained while the exit is awaited; returns the wait status.
Task<int> runShort(SubprocessOptions options) {
    auto executor = co_await asio::this_coro::executor;
    auto child = Subprocess::spawn(executor, options);
    REQUIRE(child);
    child->closeInput();
    auto group = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, drainAndClose(&child->output()), asio::deferred),
        asio::co_spawn(executor, drainAndClose(&child->errors()), asio::deferred),
        asio::co_spawn(executor, waitAndReap(&*child), asio::deferred));
    co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    co_return child->status() ? *child->status() : -1;
}

SubprocessOptions shell(std::string script) {
    SubprocessOptions options;
    options.program = "sh";
    options.args = {"-c", std::move(script)};
    return options;
}

}  // namespace

TEST_CASE("a subprocess gets the environment and directory it is given and its output is read",
          "[core][subprocess]") {
    reagent::test::TempDir dir;
    runCoro([&]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        auto options = shell("echo \"$REAGENT_SUBPROCESS_TEST $(pwd)\"; echo oops >&2; exit 3");
        options.environment = reagent::mergedEnvironment({"REAGENT_SUBPROCESS_TEST=merged"});
        options.workingDirectory = dir.path.string();
        auto child = Subprocess::spawn(executor, options);
        REQUIRE(child);
        const std::string out = co_await readAll(child->output());
        const std::string err = co_await readAll(child->errors());
        CHECK(out == "merged " + std::filesystem::canonical(dir.path).string() + "\n");
        CHECK(err == "oops\n");
        CHECK(co_await child->waitExit());
        const int status = co_await child->reap();
        CHECK(WEXITSTATUS(status) == 3);
        CHECK(reagent::describeWaitStatus(status) == "exited with status 3");
    }());
}

TEST_CASE(
    "stdin takes writes larger than the pipe, and a child that stopped reading gives EPIPE, never "
    "SIGPIPE",
    "[core][subprocess]") {
    // The default disposition (the process would die of SIGPIPE), whatever the test runner set.
    struct sigaction previous {};
    struct sigaction byDefault {};
    byDefault.sa_handler = SIG_DFL;
    sigemptyset(&byDefault.sa_mask);
    ::sigaction(SIGPIPE, &byDefault, &previous);
    runCoro([]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        auto counter = Subprocess::spawn(executor, shell("wc -c"));
        REQUIRE(counter);
        auto writing = counter->writeInput(std::string(1 << 20, 'x'));  // 16 times a pipe's capacity
        auto [ec, written] = co_await std::move(writing);
        CHECK(!ec);
        CHECK(written == std::size_t{1} << 20);
        counter->closeInput();
        const std::string out = co_await readAll(counter->output());
        CHECK(out.find("1048576") != std::string::npos);
        (void)co_await counter->reap();

        auto gone = Subprocess::spawn(executor, shell("exec 0<&-; exit 0"));
        REQUIRE(gone);
        CHECK(co_await gone->waitExit());
        auto late = gone->writeInput("too late\n");
        auto [lateEc, lateWritten] = co_await std::move(late);
        CHECK(lateEc == boost::system::errc::broken_pipe);
        CHECK(lateWritten == 0);
        sigset_t pending;
        sigpending(&pending);
        CHECK(sigismember(&pending, SIGPIPE) == 0);  // taken back, not left for later
        (void)co_await gone->reap();
    }());
    ::sigaction(SIGPIPE, &previous, nullptr);
}

TEST_CASE("spawning reports a missing program and a bad directory", "[core][subprocess]") {
    runCoro([]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        SubprocessOptions missing;
        missing.program = "reagent-no-such-program";
        auto notFound = Subprocess::spawn(executor, missing);
        REQUIRE_FALSE(notFound);
        CHECK(notFound.error().code == reagent::SpawnErrc::not_found);
        CHECK(notFound.error().message.find("not found on PATH") != std::string::npos);

        auto badDir = shell("true");
        badDir.workingDirectory = "/nonexistent/reagent";
        auto failed = Subprocess::spawn(executor, badDir);
        REQUIRE_FALSE(failed);
        CHECK(failed.error().code == reagent::SpawnErrc::spawn_failed);
        CHECK(failed.error().message.find("/nonexistent/reagent") != std::string::npos);
    }());
}

TEST_CASE("stop closes stdin then escalates to SIGTERM and SIGKILL and kills the whole group",
          "[core][subprocess]") {
    runCoro([]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        // Exits on its own when stdin closes.
        auto polite = Subprocess::spawn(executor, shell("cat > /dev/null"));
        REQUIRE(polite);
        auto start = std::chrono::steady_clock::now();
        const int politeStatus = co_await polite->stop(2s);
        CHECK(WIFEXITED(politeStatus));
        CHECK(reagent::test::elapsedMs(start) < 1000);

        // Ignores stdin and SIGTERM, and leaves a grandchild in its group: SIGKILL ends both.
        auto stubborn = Subprocess::spawn(executor, shell("trap '' TERM; sleep 30 & sleep 30; wait"));
        REQUIRE(stubborn);
        const pid_t group = stubborn->pid();
        start = std::chrono::steady_clock::now();
        const int status = co_await stubborn->stop(100ms);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGKILL);
        CHECK(reagent::test::elapsedMs(start) < 2000);
        // Nothing of the group is left running.
        const int live = co_await reagent::test::liveMembersAfterKill(group);
        CHECK(live == 0);
    }());
}

TEST_CASE("a cancelled stop skips the grace periods and still reaps", "[core][subprocess]") {
    runCoro([]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        auto child = Subprocess::spawn(executor, shell("trap '' TERM; sleep 30"));
        REQUIRE(child);
        asio::cancellation_signal signal;
        asio::steady_timer trigger(executor, 50ms);
        trigger.async_wait(
            [&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
        const auto start = std::chrono::steady_clock::now();
        auto stop = child->stop(10s);
        const int status = co_await asio::co_spawn(
            executor, std::move(stop), asio::bind_cancellation_slot(signal.slot(), asio::use_awaitable));
        CHECK(WIFSIGNALED(status));
        CHECK(reagent::test::elapsedMs(start) < 2000);
        CHECK(child->status());
    }());
}

TEST_CASE("a subprocess destroyed while running is killed and reaped", "[core][subprocess]") {
    pid_t pid = -1;
    runCoro([&]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        auto child = Subprocess::spawn(executor, shell("sleep 30"));
        REQUIRE(child);
        pid = child->pid();
    }());
    CHECK(::kill(pid, 0) != 0);  // gone, and reaped (a zombie would still accept signal 0)
}

TEST_CASE(
    "a thousand short children run side by side each end on their own: the wait never reports an exit "
    "that did not happen",
    "[core][subprocess][load]") {
    // Eight runners on one thread: pipes reaching end of file are closed while other children are spawned,
    // so the reactor's freed descriptor states are reused at once (the race that killed children early).
    constexpr int kRunners = 8;
    constexpr int kRunsEach = 125;
    int killed = 0;
    int finished = 0;
    const auto start = std::chrono::steady_clock::now();
    runCoro([&]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        auto runner = [&](int index) -> Task<void> {
            for (int i = 0; i < kRunsEach; ++i) {
                SubprocessOptions options;
                options.program = (index + i) % 2 == 0 ? "/bin/true" : "/bin/echo";
                options.args = {"some output for the pipe"};
                const int status = co_await runShort(std::move(options));
                ++finished;
                if (!WIFEXITED(status)) {
                    ++killed;
                }
            }
        };
        auto group =
            asio::experimental::make_parallel_group(asio::co_spawn(executor, runner(0), asio::deferred),
                                                    asio::co_spawn(executor, runner(1), asio::deferred),
                                                    asio::co_spawn(executor, runner(2), asio::deferred),
                                                    asio::co_spawn(executor, runner(3), asio::deferred),
                                                    asio::co_spawn(executor, runner(4), asio::deferred),
                                                    asio::co_spawn(executor, runner(5), asio::deferred),
                                                    asio::co_spawn(executor, runner(6), asio::deferred),
                                                    asio::co_spawn(executor, runner(7), asio::deferred));
        co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    }());
    INFO("elapsed " << reagent::test::elapsedMs(start) << " ms");
    CHECK(finished == kRunners * kRunsEach);
    CHECK(killed == 0);
}

TEST_CASE("waitExit does not believe a readiness its descriptor state kept from a closed pipe",
          "[core][subprocess]") {
    // Asio's epoll reactor queues a descriptor's state when epoll reports it; a pipe closed before that
    // state runs gives it back for reuse, and a pidfd registered at once takes it, stale events included.
    // Two pipes become readable in one reactor batch; the handler of the first closes the second and
    // starts a child whose wait reuses the second's state. The child (cat) ends only when its stdin closes.
    runCoro([]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        asio::readable_pipe firstIn(executor);
        asio::writable_pipe firstOut(executor);
        asio::readable_pipe secondIn(executor);
        asio::writable_pipe secondOut(executor);
        asio::connect_pipe(firstIn, firstOut);
        asio::connect_pipe(secondIn, secondOut);
        bool stdinClosed = false;
        bool exitSeenBeforeStdinClosed = false;
        std::optional<int> status;
        auto reader = [&]() -> Task<void> {
            char byte = 0;
            auto [ec, n] =
                co_await firstIn.async_read_some(asio::buffer(&byte, 1), asio::as_tuple(asio::use_awaitable));
            REQUIRE(!ec);
            // Still inside the reactor batch that also holds the second pipe's state.
            secondIn.close();
            auto child = Subprocess::spawn(executor, shell("cat"));
            REQUIRE(child);
            auto waiter = [&]() -> Task<void> {
                const bool exited = co_await child->waitExit();
                exitSeenBeforeStdinClosed = exited && !stdinClosed;
            };
            auto closer = [&]() -> Task<void> {
                for (int i = 0; i < 10; ++i) {  // let the queued stale state run first
                    co_await asio::post(executor, asio::use_awaitable);
                }
                stdinClosed = true;
                child->closeInput();
            };
            auto both =
                asio::experimental::make_parallel_group(asio::co_spawn(executor, waiter(), asio::deferred),
                                                        asio::co_spawn(executor, closer(), asio::deferred));
            co_await std::move(both).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
            status = co_await child->reap();
        };
        auto writer = [&]() -> Task<void> {
            co_await asio::post(executor, asio::use_awaitable);  // the reader waits on the first pipe
            const char byte = 'x';
            asio::write(firstOut, asio::buffer(&byte, 1));
            asio::write(secondOut, asio::buffer(&byte, 1));
        };
        auto group =
            asio::experimental::make_parallel_group(asio::co_spawn(executor, reader(), asio::deferred),
                                                    asio::co_spawn(executor, writer(), asio::deferred));
        co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
        CHECK_FALSE(exitSeenBeforeStdinClosed);
        REQUIRE(status);
        CHECK(WIFEXITED(*status));
    }());
}

namespace {

// The pid written in `file` once it holds one (the command writes it before it ends).
pid_t pidIn(const std::filesystem::path& file) {
    pid_t pid = -1;
    std::ifstream(file) >> pid;
    return pid;
}

// A shell line that starts a process in a session of its own which writes its pid into `file` once it
// is there, then sleeps; `orphaned` starts it from a subshell that exits at once (a double fork).
std::string detached(const std::filesystem::path& file, bool orphaned) {
    const std::string start = "setsid sh -c 'echo $$ > " + file.string() + ".tmp; mv " + file.string() +
                              ".tmp " + file.string() + "; exec sleep 30' &";
    return orphaned ? "(" + start + ")" : start;
}

// A shell line that waits (briefly, busily) until `file` exists.
std::string awaitFile(const std::filesystem::path& file) {
    return "while [ ! -e " + file.string() + " ]; do :; done";
}

// Whether `pid` is gone within a few seconds (SIGKILL takes effect asynchronously).
bool goneSoon(pid_t pid) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (::kill(pid, 0) == 0 || errno != ESRCH) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

}  // namespace

TEST_CASE("with containDescendants nothing a child starts outlives it, also what left its session",
          "[core][subprocess][reaper]") {
    reagent::test::TempDir dir;
    const auto detachedFile = dir.path / "detached.pid";
    const auto orphanFile = dir.path / "orphan.pid";
    runCoro([&]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        // One process leaves the session (setsid), one is double-forked and then leaves it too.
        auto options = shell(detached(detachedFile, false) + "\n" + detached(orphanFile, true) + "\n" +
                             awaitFile(detachedFile) + "; " + awaitFile(orphanFile) + "; exit 4");
        options.containDescendants = true;
        auto child = Subprocess::spawn(executor, options);
        REQUIRE(child);
        CHECK(co_await child->waitExit());
        const int status = co_await child->reap();
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 4);
    }());
    const pid_t first = pidIn(detachedFile);
    const pid_t second = pidIn(orphanFile);
    REQUIRE(first > 0);
    REQUIRE(second > 0);
    CHECK(goneSoon(first));
    CHECK(goneSoon(second));
}

TEST_CASE("with containDescendants a kill reaches what left the group, and the status says SIGKILL",
          "[core][subprocess][reaper]") {
    reagent::test::TempDir dir;
    const auto detachedFile = dir.path / "detached.pid";
    runCoro([&]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        auto options = shell(detached(detachedFile, false) + "\n" + awaitFile(detachedFile) +
                             "; echo started; sleep 30");
        options.containDescendants = true;
        auto child = Subprocess::spawn(executor, options);
        REQUIRE(child);
        std::string line(8, '\0');
        auto [ec, n] = co_await asio::async_read(child->output(), asio::buffer(line),
                                                 asio::as_tuple(asio::use_awaitable));
        CHECK(!ec);
        CHECK(n == line.size());
        CHECK(line == "started\n");
        const int status = co_await child->reap();
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGKILL);
    }());
    const pid_t pid = pidIn(detachedFile);
    REQUIRE(pid > 0);
    CHECK(goneSoon(pid));
}

TEST_CASE("with containDescendants a program that cannot run is reported when spawning",
          "[core][subprocess][reaper]") {
    runCoro([]() -> Task<void> {
        auto executor = co_await asio::this_coro::executor;
        SubprocessOptions options;
        options.program = "/nonexistent/reagent-program";
        options.containDescendants = true;
        auto missing = Subprocess::spawn(executor, options);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().code == reagent::SpawnErrc::not_found);
        co_return;
    }());
}
