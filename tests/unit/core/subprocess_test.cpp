// Subprocess: spawn with environment and working directory, its own process group, stop and reap.

#include "reagent/core/subprocess.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

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

// Processes of process group `group` that are not zombies.
int liveMembers(pid_t group) {
    int live = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        char state = 0;
        int parent = 0;
        int pgrp = 0;
        if (close != std::string::npos &&
            std::sscanf(line.c_str() + close + 1, " %c %d %d", &state, &parent, &pgrp) == 3 &&
            pgrp == group && state != 'Z') {
            ++live;
        }
    }
    return live;
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
        // Nothing of the group is left running (killed grandchildren may linger as zombies until init
        // reaps them, which some container inits never do).
        // SIGKILL reaches the members asynchronously: give them a moment to die.
        for (int i = 0; i < 100 && liveMembers(group) != 0; ++i) {
            asio::steady_timer pause(executor, 10ms);
            co_await pause.async_wait(asio::use_awaitable);
        }
        CHECK(liveMembers(group) == 0);
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
