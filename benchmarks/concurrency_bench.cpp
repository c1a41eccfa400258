// What runs cost under load, as ratios measured in one process: CPU per scripted run when runs go one
// after another, and when 100 or 1,000 are in flight on one io_context; and the heap a suspended run holds
// (10,000 runs waiting for their first model reply), beyond the agent they share; then the program's peak
// RSS, reached when those runs all move on at once.
//
// The model answers as a scripted one would (a tool call for the prompt, then a text answer), after giving
// the executor back once per call, so that runs in flight interleave as they do over a network. The
// sequential figure uses the same model: the ratio is what concurrency itself costs.
//
//   concurrency_bench [--runs N] [--rounds N] [--suspended N] [--only IN_FLIGHT]

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/reagent.hpp"

namespace {

namespace asio = boost::asio;
using namespace reagent;
using nlohmann::json;

// A tool call for the prompt, a text answer after the tool's result.
llm::ModelReply scriptedReply(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    if (request.messages.back().role == llm::Role::user) {
        reply.toolCalls.push_back({"call_1", "echo", json{{"text", "hello"}}});
    } else {
        reply.text = "done";
    }
    return reply;
}

// Answers after one trip through the executor.
class YieldingModel final : public llm::Provider {
  public:
    std::string_view name() const noexcept override { return "yielding"; }
    Task<expected<llm::ModelReply, llm::ProviderError>> complete(llm::ModelRequest request) override {
        co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        co_return scriptedReply(request);
    }
};

// Answers once the gate opens (a timer that never expires, cancelled to open it), and at once while it is
// open.
class GatedModel final : public llm::Provider {
  public:
    explicit GatedModel(asio::io_context& io) : gate_(io, asio::steady_timer::time_point::max()) {}
    std::string_view name() const noexcept override { return "gated"; }
    Task<expected<llm::ModelReply, llm::ProviderError>> complete(llm::ModelRequest request) override {
        if (!open_) {
            boost::system::error_code ignored;
            co_await gate_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
        }
        co_return scriptedReply(request);
    }
    void open() {
        open_ = true;
        gate_.cancel();
    }
    void close() { open_ = false; }

  private:
    asio::steady_timer gate_;
    bool open_ = false;
};

Task<tools::ToolResult> echo(json args, tools::ToolContext) {
    co_return args.value("text", std::string{});
}

agent::Agent buildAgent(std::shared_ptr<llm::Provider> provider) {
    auto tool = tools::ToolBuilder::create("echo")
                    .description("Echo the text back")
                    .param("text", "string", "Text to echo", {.required = true})
                    .handler(echo)
                    .build();
    auto built = agent::Agent::create()
                     .withProvider(std::move(provider))
                     .withTools(agent::ToolsConfig{})
                     .withTool(std::move(tool))
                     .build();
    if (!built) {
        throw std::runtime_error(built.error().describe());
    }
    return std::move(*built);
}

double cpuSeconds() {
    timespec now{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::size_t heapInUse() {
    return mallinfo2().uordblks;
}

std::size_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    std::size_t resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

struct Counter {
    int finished = 0;
    int failed = 0;
};

void spawnRun(asio::io_context& io, const agent::Agent& agent, Counter& counter) {
    asio::co_spawn(io, agent.run("Say hello"), [&counter](std::exception_ptr error, agent::RunResult result) {
        ++counter.finished;
        if (error || !result.success() || result.output != "done") {
            ++counter.failed;
        }
    });
}

void check(const Counter& counter, int expected) {
    if (counter.finished != expected || counter.failed != 0) {
        std::cerr << "concurrency_bench: " << counter.failed << " of " << counter.finished
                  << " runs did not end as scripted\n";
        std::exit(1);
    }
}

// CPU per run, in microseconds, of `runs` runs with `inFlight` at a time (1: one after another).
double cpuPerRun(const agent::Agent& agent, int runs, int inFlight) {
    asio::io_context io;
    Counter counter;
    const double start = cpuSeconds();
    for (int done = 0; done < runs; done += inFlight) {
        const int batch = std::min(inFlight, runs - done);
        for (int i = 0; i < batch; ++i) {
            spawnRun(io, agent, counter);
        }
        io.run();
        io.restart();
    }
    const double spent = cpuSeconds() - start;
    check(counter, runs);
    return spent * 1e6 / runs;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

int argument(int argc, char** argv, const std::string& name, int fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (argv[i] == name) {
            return std::max(1, std::atoi(argv[i + 1]));
        }
    }
    return fallback;
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argument(argc, argv, "--runs", 20'000);
    const int rounds = argument(argc, argv, "--rounds", 5);
    const int suspended = argument(argc, argv, "--suspended", 10'000);

    const agent::Agent agent = buildAgent(std::make_shared<YieldingModel>());
    (void)cpuPerRun(agent, 1000, 1);  // warm-up: the offered tool list, the allocator's arenas
    std::vector<double> sequential;
    std::vector<double> hundred;
    std::vector<double> thousand;
    // Alternated, so that a quieter or busier stretch of the machine touches every figure alike.
    if (const int only = argument(argc, argv, "--only", 0); only > 0) {
        // One measurement of `only` runs in flight, nothing else: for a profiler (perf record, callgrind).
        std::printf("%d in flight: %.2f us CPU per run\n", only, cpuPerRun(agent, runs, only));
        return 0;
    }
    for (int round = 0; round < rounds; ++round) {
        sequential.push_back(cpuPerRun(agent, runs, 1));
        hundred.push_back(cpuPerRun(agent, runs, 100));
        thousand.push_back(cpuPerRun(agent, runs, 1000));
    }
    const double base = median(sequential);
    std::printf("scripted run, one after another:  %7.2f us CPU per run (median of %d rounds of %d runs)\n",
                base, rounds, runs);
    std::printf("scripted runs, 100 in flight:     %7.2f us CPU per run, %.2fx the sequential run\n",
                median(hundred), median(hundred) / base);
    std::printf("scripted runs, 1,000 in flight:   %7.2f us CPU per run, %.2fx the sequential run\n",
                median(thousand), median(thousand) / base);

    // The heap a suspended run holds: every run waits for its first reply; the agent existed before.
    asio::io_context io;
    auto gate = std::make_shared<GatedModel>(io);
    const agent::Agent held = buildAgent(gate);
    {
        Counter warm;  // the agent's one-time allocations (its offered tool list, ...), before the baseline
        spawnRun(io, held, warm);
        io.poll();
        gate->open();
        io.run();
        io.restart();
        check(warm, 1);
        gate->close();
    }
    const std::size_t heapBefore = heapInUse();
    const std::size_t rssBefore = residentBytes();
    Counter counter;
    for (int i = 0; i < suspended; ++i) {
        spawnRun(io, held, counter);
    }
    io.poll();  // every run reaches its model call and waits there
    const std::size_t heapHeld = heapInUse();
    const std::size_t rssHeld = residentBytes();
    gate->open();
    io.run();
    check(counter, suspended);
    const double perRun = static_cast<double>(heapHeld - heapBefore) / suspended;
    std::printf("%d suspended runs:             %7.0f bytes of heap per run (%.1f MB), RSS +%.1f MB\n",
                suspended, perRun, static_cast<double>(heapHeld - heapBefore) / 1e6,
                static_cast<double>(rssHeld - rssBefore) / 1e6);
    // The whole program's peak: the held runs all move on at once when the gate opens, so it is reached
    // with every one of them in its tool call (issue 28's figure: 10,000 runs in at most 64 MB).
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    std::printf("peak RSS of the program:        %7.1f MB (%d runs at once at the peak)\n",
                static_cast<double>(usage.ru_maxrss) / 1e3, suspended);
    return 0;
}
