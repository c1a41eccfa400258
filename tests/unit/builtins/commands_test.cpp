// Commands in a local workspace: real processes, deadlines that kill the whole process group, bounded
// output, cancellation.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;
using namespace std::chrono_literals;

namespace {

CommandRequest shell(std::string line) {
    CommandRequest request;
    request.shell = std::move(line);
    return request;
}

pid_t pidFrom(const fs::path& file) {
    // The shell writes it right after starting the background job.
    for (int i = 0; i < 100 && WorkspaceFixture::readFile(file).empty(); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    return static_cast<pid_t>(std::stol(WorkspaceFixture::readFile(file)));
}

/// Waits a little for the killed process to disappear (the kernel tears it down asynchronously).
bool goneSoon(pid_t pid) {
    for (int i = 0; i < 200 && processAlive(pid); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    return !processAlive(pid);
}

}  // namespace

TEST_CASE("builtins commands: argv and shell lines run in the workspace", "[builtins][commands]") {
    WorkspaceFixture fx;
    fx.file("sub/marker.txt", "m");

    CommandRequest argv;
    argv.argv = {"printf", "%s|", "a b", "c"};
    auto printed = fx.run(fx.workspace->execute(argv));
    REQUIRE(printed);
    CHECK(printed->stdoutText == "a b|c|");
    CHECK(printed->exitCode == 0);
    CHECK_FALSE(printed->signal);
    CHECK_FALSE(printed->timedOut);

    auto failed = fx.run(fx.workspace->execute(shell("echo oops >&2; exit 3")));
    REQUIRE(failed);
    CHECK(failed->exitCode == 3);
    CHECK(failed->stderrText == "oops\n");

    auto where = shell("pwd; ls");
    where.workingDirectory = "sub";
    auto inSub = fx.run(fx.workspace->execute(where));
    REQUIRE(inSub);
    CHECK(inSub->stdoutText == fs::canonical(fx.root / "sub").string() + "\nmarker.txt\n");

    auto env = shell("printf %s \"$REAGENT_TEST_VALUE\"");
    env.environment = {"REAGENT_TEST_VALUE=forty two"};
    auto withEnv = fx.run(fx.workspace->execute(env));
    REQUIRE(withEnv);
    CHECK(withEnv->stdoutText == "forty two");

    auto reads = shell("cat");  // stdin is at end of file at once
    auto fromStdin = fx.run(fx.workspace->execute(reads));
    REQUIRE(fromStdin);
    CHECK(fromStdin->exitCode == 0);
}

TEST_CASE("builtins commands: malformed requests and missing programs", "[builtins][commands]") {
    WorkspaceFixture fx;
    CommandRequest neither;
    CHECK(fx.run(fx.workspace->execute(neither)).error().code == WorkspaceErrc::invalid_argument);
    CommandRequest both = shell("true");
    both.argv = {"true"};
    CHECK(fx.run(fx.workspace->execute(both)).error().code == WorkspaceErrc::invalid_argument);
    CommandRequest badEnv = shell("true");
    badEnv.environment = {"NOEQUALS"};
    CHECK(fx.run(fx.workspace->execute(badEnv)).error().code == WorkspaceErrc::invalid_argument);
    CommandRequest zero = shell("true");
    zero.timeout = 0ms;
    CHECK(fx.run(fx.workspace->execute(zero)).error().code == WorkspaceErrc::invalid_argument);

    CommandRequest missing;
    missing.argv = {"reagent-no-such-program-xyz"};
    auto spawn = fx.run(fx.workspace->execute(missing));
    REQUIRE_FALSE(spawn);
    CHECK(spawn.error().code == WorkspaceErrc::spawn_failed);
    CHECK(contains(spawn.error().message, "reagent-no-such-program-xyz"));

    fx.file("plain.txt", "x");
    CommandRequest inFile = shell("true");
    inFile.workingDirectory = "plain.txt";
    CHECK(fx.run(fx.workspace->execute(inFile)).error().code == WorkspaceErrc::not_a_directory);

    CommandRequest nowhere = shell("true");
    nowhere.workingDirectory = "no/such/dir";
    CHECK(fx.run(fx.workspace->execute(nowhere)).error().code == WorkspaceErrc::not_found);
}

TEST_CASE("builtins commands: a timeout kills a command that forks and outlives it", "[builtins][commands]") {
    WorkspaceFixture fx;
    auto request = shell("sleep 30 & echo $! > bg.pid; sleep 30");
    request.timeout = 1500ms;  // room for the shell to write bg.pid on a loaded machine
    const auto start = std::chrono::steady_clock::now();
    auto result = fx.run(fx.workspace->execute(request));
    REQUIRE(result);
    CHECK(reagent::test::elapsedMs(start) < 10000);
    CHECK(result->timedOut);
    CHECK(result->exitCode == -1);
    CHECK(result->signal == 9);
    CHECK(goneSoon(pidFrom(fx.root / "bg.pid")));
}

TEST_CASE("builtins commands: a background child left behind does not hold the run open",
          "[builtins][commands]") {
    WorkspaceFixture fx;
    auto request = shell("sleep 30 & echo $! > bg.pid; echo done");
    request.timeout = 20s;
    const auto start = std::chrono::steady_clock::now();
    auto result = fx.run(fx.workspace->execute(request));
    REQUIRE(result);
    CHECK(reagent::test::elapsedMs(start) < 5000);
    CHECK_FALSE(result->timedOut);
    CHECK(result->exitCode == 0);
    CHECK(result->stdoutText == "done\n");
    CHECK(goneSoon(pidFrom(fx.root / "bg.pid")));
}

TEST_CASE("builtins commands: output beyond the cap is counted and dropped", "[builtins][commands]") {
    WorkspaceFixture fx;
    auto request = shell("head -c 3000000 /dev/zero | tr '\\0' x; head -c 5000 /dev/zero | tr '\\0' y >&2");
    request.maxOutputBytes = 1000;
    auto result = fx.run(fx.workspace->execute(request));
    REQUIRE(result);
    CHECK(result->exitCode == 0);
    CHECK(result->stdoutText == std::string(1000, 'x'));
    CHECK(result->stdoutCut == 3000000 - 1000);
    CHECK(result->stderrText == std::string(1000, 'y'));
    CHECK(result->stderrCut == 4000);

    // An endless flood ends at the deadline with bounded memory.
    auto flood = shell("yes");
    flood.maxOutputBytes = 4096;
    flood.timeout = 300ms;
    auto flooded = fx.run(fx.workspace->execute(flood));
    REQUIRE(flooded);
    CHECK(flooded->timedOut);
    CHECK(flooded->stdoutText.size() == 4096);
    CHECK(flooded->stdoutCut > 0);
}

TEST_CASE("builtins commands: cancelling the caller kills the process group", "[builtins][commands]") {
    WorkspaceFixture fx;
    boost::asio::io_context io;
    boost::asio::cancellation_signal signal;
    std::optional<reagent::expected<CommandResult, WorkspaceError>> outcome;
    // One background job in the group, one in a session of its own.
    auto request = shell(
        "setsid sh -c 'echo $$ > own.tmp; mv own.tmp own.pid; exec sleep 30' & "
        "while [ ! -e own.pid ]; do :; done; sleep 30 & echo $! > bg.pid; sleep 30");
    request.timeout = 20s;
    auto task = fx.workspace->execute(request);
    boost::asio::co_spawn(
        io, std::move(task),
        boost::asio::bind_cancellation_slot(
            signal.slot(), [&](std::exception_ptr error, reagent::expected<CommandResult, WorkspaceError> r) {
                REQUIRE_FALSE(error);
                outcome = std::move(r);
            }));
    // Cancelled once the background job is known to run.
    boost::asio::steady_timer timer(io);
    std::function<void()> poll = [&] {
        timer.expires_after(20ms);
        timer.async_wait([&](boost::system::error_code) {
            if (WorkspaceFixture::readFile(fx.root / "bg.pid").empty()) {
                poll();
            } else {
                signal.emit(boost::asio::cancellation_type::terminal);
            }
        });
    };
    poll();
    const auto start = std::chrono::steady_clock::now();
    io.run();
    CHECK(reagent::test::elapsedMs(start) < 5000);
    REQUIRE(outcome);
    REQUIRE_FALSE(*outcome);
    CHECK(outcome->error().code == WorkspaceErrc::cancelled);
    CHECK(goneSoon(pidFrom(fx.root / "bg.pid")));
    CHECK(goneSoon(pidFrom(fx.root / "own.pid")));
}

TEST_CASE("builtins commands: nothing a command starts outlives it, also what left its session",
          "[builtins][commands]") {
    WorkspaceFixture fx;
    // setsid, and a double fork then setsid; each writes its pid once it runs in its new session.
    auto ran = fx.run(
        fx.workspace->execute(shell("setsid sh -c 'echo $$ > a.tmp; mv a.tmp a.pid; exec sleep 30' &\n"
                                    "(setsid sh -c 'echo $$ > b.tmp; mv b.tmp b.pid; exec sleep 30' &)\n"
                                    "while [ ! -e a.pid ] || [ ! -e b.pid ]; do :; done; echo done")));
    REQUIRE(ran);
    CHECK(ran->stdoutText == "done\n");
    CHECK(ran->exitCode == 0);
    CHECK_FALSE(ran->timedOut);
    CHECK(goneSoon(pidFrom(fx.root / "a.pid")));
    CHECK(goneSoon(pidFrom(fx.root / "b.pid")));
}
