// How applyJq runs its helper: deadlines, kills, cancellation, concurrency, the helper's path.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_processes.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/transform/jq_transform.hpp"
#include "run_coro.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define REAGENT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REAGENT_TEST_ASAN 1
#endif
#endif

namespace asio = boost::asio;
using reagent::Task;
using reagent::test::ChildProcess;
using reagent::test::childProcesses;
using reagent::test::elapsedMs;
using reagent::test::runCoro;
using reagent::transform::applyJq;
using reagent::transform::jqHelperPath;
using reagent::transform::JqLimits;
using reagent::transform::TransformErrc;
using reagent::transform::TransformError;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;
using Result = reagent::expected<std::string, TransformError>;

JqLimits withTimeoutOf(std::chrono::milliseconds timeout) {
    JqLimits limits;
    limits.timeout = timeout;
    return limits;
}

/// A transform run on its own io_context, with the children seen `probeAfter` into the run.
struct ObservedRun {
    Result result;
    long long ms = 0;
    std::vector<ChildProcess> during;
};

Task<void> probeChildren(std::chrono::milliseconds after, std::vector<ChildProcess>* out) {
    co_await reagent::test::sleepFor(after);
    *out = childProcesses();
}

ObservedRun runObserved(std::string expression, std::string input, JqLimits limits,
                        std::chrono::milliseconds probeAfter = 300ms) {
    asio::io_context io;
    ObservedRun run;
    const auto start = Clock::now();
    asio::co_spawn(io, applyJq(std::move(expression), std::move(input), limits),
                   [&](std::exception_ptr, Result result) {
                       run.result = std::move(result);
                       run.ms = elapsedMs(start);
                   });
    asio::co_spawn(io, probeChildren(probeAfter, &run.during), asio::detached);
    io.run();
    return run;
}

/// True once no live (non-zombie) process is left in process group `group`; polls up to 2 s, since an
/// orphaned grandchild is reaped by init, not by us.
bool groupGone(pid_t group) {
    const auto deadline = Clock::now() + 2s;
    for (;;) {
        bool live = false;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
            std::ifstream file(entry.path() / "stat");
            std::string stat;
            if (!std::getline(file, stat) || stat.rfind(')') == std::string::npos) {
                continue;
            }
            std::istringstream rest(stat.substr(stat.rfind(')') + 1));
            char state = '?';
            pid_t parent = 0;
            pid_t processGroup = 0;
            rest >> state >> parent >> processGroup;
            live = live || (processGroup == group && state != 'Z');
        }
        if (!live) {
            return true;
        }
        if (Clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(20ms);
    }
}

/// Checks the helper seen during the run: alone, in its own process group, and gone afterwards.
void checkHelperGone(const ObservedRun& run) {
    REQUIRE(run.during.size() == 1);
    const ChildProcess helper = run.during.front();
    CHECK(helper.processGroup == helper.pid);
    CHECK(helper.processGroup != ::getpgrp());
    CHECK(childProcesses().empty());  // neither running nor a zombie
    CHECK(::kill(helper.pid, 0) == -1);
    CHECK(errno == ESRCH);
    CHECK(groupGone(helper.processGroup));
}

/// Sets REAGENT_JQ_HELPER for the lifetime of the object.
class HelperOverride {
  public:
    explicit HelperOverride(const std::string& path) {
        if (const char* previous = std::getenv("REAGENT_JQ_HELPER")) {
            previous_ = previous;
        }
        ::setenv("REAGENT_JQ_HELPER", path.c_str(), 1);
    }
    ~HelperOverride() {
        if (previous_) {
            ::setenv("REAGENT_JQ_HELPER", previous_->c_str(), 1);
        } else {
            ::unsetenv("REAGENT_JQ_HELPER");
        }
    }
    HelperOverride(const HelperOverride&) = delete;
    HelperOverride& operator=(const HelperOverride&) = delete;

  private:
    std::optional<std::string> previous_;
};

/// Writes an executable shell script standing in for the helper; removed with the object.
class FakeHelper {
  public:
    FakeHelper(const std::string& name, const std::string& body, mode_t mode = 0755) {
        char dir[] = "/tmp/reagent-jq-test-XXXXXX";
        REQUIRE(::mkdtemp(dir) != nullptr);
        dir_ = dir;
        path_ = dir_ + "/" + name;
        std::ofstream(path_) << "#!/bin/sh\n" << body << "\n";
        ::chmod(path_.c_str(), mode);
    }
    ~FakeHelper() {
        ::unlink(path_.c_str());
        ::rmdir(dir_.c_str());
    }
    FakeHelper(const FakeHelper&) = delete;
    FakeHelper& operator=(const FakeHelper&) = delete;

    [[nodiscard]] const std::string& path() const { return path_; }

  private:
    std::string dir_;
    std::string path_;
};

// About 5 MB: 50,000 objects of about 100 bytes.
std::string fiveMegabytes() {
    std::string json = "[";
    for (int i = 0; i < 50000; ++i) {
        json += i == 0 ? "" : ",";
        json += R"({"id":)" + std::to_string(i) + R"(,"name":"item )" + std::to_string(i) +
                R"(","tags":["alpha","beta","gamma"],"note":"0123456789012345678901234567890123456789"})";
    }
    return json + "]";
}

}  // namespace

TEST_CASE("applyJq stops a non-terminating expression at the deadline and leaves no process",
          "[transform][process][timeout]") {
    // Endless recursion, an endless generator, and (below) endless growth in memory.
    const char* expression =
        GENERATE("def f: f; f", "last(range(1e12))", "last(repeat(.))", "until(false; .)");
    INFO(expression);
    const ObservedRun run = runObserved(expression, "null", withTimeoutOf(1000ms));
    REQUIRE_FALSE(run.result.has_value());
    CHECK(run.result.error().code == TransformErrc::timeout);
    CHECK_THAT(run.result.error().message, Catch::Contains("1000 ms"));
    CHECK(run.ms >= 990);
    CHECK(run.ms < 2000);
    checkHelperGone(run);
}

TEST_CASE("applyJq stops an expression that grows without bound", "[transform][process][timeout]") {
    JqLimits limits = withTimeoutOf(1000ms);
#if defined(REAGENT_TEST_ASAN)
    // No address-space limit under ASan: only the deadline stops it.
    const ObservedRun run = runObserved("[range(1e12)]", "null", limits);
    REQUIRE_FALSE(run.result.has_value());
    CHECK(run.result.error().code == TransformErrc::timeout);
#else
    // The address-space limit stops it first: jq's allocator fails and the helper reports it.
    // (32 MiB are used up in about 0.2 s.)
    limits.timeout = 2000ms;
    limits.memoryBytes = std::size_t{32} << 20;
    const ObservedRun run = runObserved("[range(1e12)]", "null", limits, 50ms);
    REQUIRE_FALSE(run.result.has_value());
    CHECK(run.result.error().code == TransformErrc::runtime_error);
    CHECK_THAT(run.result.error().message, Catch::Contains("33554432 bytes of memory"));
    CHECK(run.ms < 1500);
#endif
    CHECK(run.ms < 2000);
    checkHelperGone(run);
}

TEST_CASE("applyJq handles a 5 MB input", "[transform][process]") {
    const std::string input = fiveMegabytes();
    REQUIRE(input.size() > 5'000'000);
    // What is tested is piping 5 MB both ways, not the 2 s default deadline: a sanitized helper on a
    // loaded machine needs more than 2 s to parse it.
    const JqLimits roomy = withTimeoutOf(60'000ms);
    const auto start = Clock::now();
    CHECK(runCoro(applyJq("length", input, roomy)).value() == "50000");
    CHECK(runCoro(applyJq("map(.id) | add", input, roomy)).value() == "1249975000");
    CHECK(runCoro(applyJq(".[-1] | {id, name}", input, roomy)).value() ==
          R"({"id":49999,"name":"item 49999"})");
    // A compile error: the helper exits without reading; writing the rest must not raise SIGPIPE.
    const auto bad = runCoro(applyJq(".[", input, roomy));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == TransformErrc::invalid_expression);
    WARN("4 transforms of 5 MB took " << elapsedMs(start) << " ms");
    CHECK(childProcesses().empty());
}

TEST_CASE("Cancelling applyJq kills the helper quickly", "[transform][process][cancel]") {
    const JqLimits limits = withTimeoutOf(20s);

    SECTION("a parallel group racing a timer") {
        asio::io_context io;
        std::optional<Result> result;
        std::vector<ChildProcess> during;
        const auto start = Clock::now();
        auto race = [&]() -> Task<void> {
            auto ex = co_await asio::this_coro::executor;
            asio::steady_timer timer(ex, 300ms);
            auto group = asio::experimental::make_parallel_group(
                asio::co_spawn(ex, applyJq("last(range(1e12))", "null", limits), asio::deferred),
                timer.async_wait(asio::deferred));
            auto outcome =
                co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
            result = std::get<2>(outcome);
        };
        asio::co_spawn(io, race(), asio::detached);
        asio::co_spawn(io, probeChildren(200ms, &during), asio::detached);
        io.run();
        REQUIRE(result.has_value());
        REQUIRE_FALSE(result->has_value());
        CHECK(result->error().code == TransformErrc::cancelled);
        CHECK(elapsedMs(start) < 1300);
        ObservedRun run{*result, 0, during};
        checkHelperGone(run);
    }

    SECTION("reagent::withTimeout") {
        const auto start = Clock::now();
        const auto outcome = runCoro(reagent::withTimeout(applyJq("def f: f; f", "null", limits), 300ms));
        REQUIRE_FALSE(outcome.has_value());
        CHECK(outcome.error().code == reagent::EffectErrc::timeout);
        CHECK(elapsedMs(start) < 1300);
        CHECK(childProcesses().empty());
    }

    SECTION("a cancellation slot bound at co_spawn; the caller stays cancelled afterwards") {
        asio::io_context io;
        asio::cancellation_signal signal;
        std::optional<Result> result;
        bool stillCancelled = false;
        bool nextAwaitThrew = false;
        auto caller = [&]() -> Task<void> {
            result = co_await applyJq("last(range(1e12))", "null", limits);
            stillCancelled = reagent::isCancelled(co_await asio::this_coro::cancellation_state);
            try {
                co_await reagent::test::sleepFor(1ms);
            } catch (const boost::system::system_error&) {
                nextAwaitThrew = true;
            }
        };
        asio::co_spawn(io, caller(), asio::bind_cancellation_slot(signal.slot(), asio::detached));
        asio::steady_timer timer(io, 300ms);
        timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
        const auto start = Clock::now();
        io.run();
        REQUIRE(result.has_value());
        REQUIRE_FALSE(result->has_value());
        CHECK(result->error().code == TransformErrc::cancelled);
        CHECK(elapsedMs(start) < 1300);
        CHECK(stillCancelled);
        CHECK(nextAwaitThrew);  // the caller's throw_if_cancelled setting is restored
        CHECK(childProcesses().empty());
    }
}

TEST_CASE("Eight transforms run concurrently on one io_context", "[transform][process][concurrency]") {
    const std::size_t threads = GENERATE(1, 2);
    INFO(threads << " thread(s)");
    asio::io_context io;
    std::vector<std::optional<Result>> results(8);
    const auto start = Clock::now();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const std::string input = "[1,2,3,4,5,6,7,8]";
        asio::co_spawn(io, applyJq(".[" + std::to_string(i) + "] * 10", input),
                       [&results, i](std::exception_ptr, Result result) { results[i] = std::move(result); });
    }
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) {
        pool.emplace_back([&io] { io.run(); });
    }
    io.run();
    for (auto& thread : pool) {
        thread.join();
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
        REQUIRE(results[i].has_value());
        CHECK(results[i]->value() == std::to_string((i + 1) * 10));
    }
    WARN("8 concurrent transforms took " << elapsedMs(start) << " ms");
    CHECK(childProcesses().empty());
}

TEST_CASE("jqHelperPath honours REAGENT_JQ_HELPER", "[transform][process][helper]") {
    const std::string usual = jqHelperPath();
    CHECK(::access(usual.c_str(), X_OK) == 0);
    {
        const HelperOverride override("/nonexistent/reagent-jq");
        CHECK(jqHelperPath() == "/nonexistent/reagent-jq");
        const auto result = runCoro(applyJq(".", "1"));
        REQUIRE_FALSE(result.has_value());
        CHECK(result.error().code == TransformErrc::internal);
        CHECK_THAT(result.error().message, Catch::Contains("/nonexistent/reagent-jq") &&
                                               Catch::Contains("No such file or directory") &&
                                               Catch::Contains("REAGENT_JQ_HELPER"));
    }
    {
        const HelperOverride override("");
        CHECK(jqHelperPath() == usual);  // empty counts as unset
    }
    CHECK(runCoro(applyJq(".", "1")).value() == "1");
}

TEST_CASE("applyJq copes with a misbehaving helper", "[transform][process][helper]") {
    SECTION("not executable") {
        const FakeHelper helper("reagent-jq", "exit 0", 0644);
        const HelperOverride override(helper.path());
        const auto result = runCoro(applyJq(".", "1"));
        REQUIRE_FALSE(result.has_value());
        CHECK(result.error().code == TransformErrc::internal);
        CHECK_THAT(result.error().message, Catch::Contains("Permission denied"));
    }
    SECTION("endless output is cut off by the parent and the helper killed") {
        const FakeHelper helper("reagent-jq", "exec /usr/bin/yes");
        const HelperOverride override(helper.path());
        JqLimits limits;
        limits.maxOutputBytes = 1000;
        const ObservedRun run = runObserved(".", "1", limits, 0ms);
        REQUIRE_FALSE(run.result.has_value());
        CHECK(run.result.error().code == TransformErrc::output_too_large);
        CHECK(run.ms < 1000);
        CHECK(childProcesses().empty());
    }
    SECTION("the deadline kills the whole process group, grandchildren included") {
        const FakeHelper helper("reagent-jq", "/bin/sleep 60 &\n/bin/sleep 60");
        const HelperOverride override(helper.path());
        const ObservedRun run = runObserved(".", "1", withTimeoutOf(500ms), 200ms);
        REQUIRE_FALSE(run.result.has_value());
        CHECK(run.result.error().code == TransformErrc::timeout);
        CHECK(run.ms < 1500);
        checkHelperGone(run);
    }
    SECTION("a crash") {
        const FakeHelper helper("reagent-jq", "echo 'about to crash' >&2\nkill -SEGV $$");
        const HelperOverride override(helper.path());
        const auto result = runCoro(applyJq(".", "1"));
        REQUIRE_FALSE(result.has_value());
        CHECK(result.error().code == TransformErrc::internal);
        CHECK_THAT(result.error().message, Catch::Contains("signal 11") && Catch::Contains("about to crash"));
    }
    SECTION("an unknown exit status") {
        const FakeHelper helper("reagent-jq", "cat >/dev/null\necho '  oops  ' >&2\nexit 3");
        const HelperOverride override(helper.path());
        const auto result = runCoro(applyJq(".", "[1,2,3]"));
        REQUIRE_FALSE(result.has_value());
        CHECK(result.error().code == TransformErrc::internal);
        CHECK(result.error().message == "the jq helper failed with exit status 3: oops");
    }
    SECTION("success without output") {
        const FakeHelper helper("reagent-jq", "exit 0");
        const HelperOverride override(helper.path());
        const auto result = runCoro(applyJq(".", "1"));
        REQUIRE_FALSE(result.has_value());
        CHECK(result.error().code == TransformErrc::internal);
    }
    CHECK(childProcesses().empty());
}

TEST_CASE("Time of one small transform, process start included", "[.][transform][perf]") {
    std::vector<long long> micros;
    for (int i = 0; i < 21; ++i) {
        const auto start = Clock::now();
        REQUIRE(runCoro(applyJq(".a", R"({"a": 1})")).value() == "1");
        micros.push_back(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
    }
    std::sort(micros.begin(), micros.end());
    WARN("median " << micros[micros.size() / 2] << " us, min " << micros.front() << " us, max "
                   << micros.back() << " us over " << micros.size() << " runs");
}
