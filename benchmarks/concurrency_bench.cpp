// What runs cost under load, and what a run over HTTP and an MCP call cost against the bare clients under
// them, as ratios measured in one process, each printed with issue 28's target beside it:
//
//   - CPU per scripted run when runs go one after another, and when 100 or 1,000 are in flight on one
//     io_context;
//   - the heap a suspended run holds (10,000 runs waiting for their first model reply), beyond the agent
//     they share; then the program's peak RSS, reached when those runs all move on at once;
//   - a run over HTTP (two model calls and one tool, against the loopback provider peer,
//     tests/peers/provider_peer.py, which python3 runs) against a bare Beast client making the same two
//     exchanges: this process's CPU per run and per pair (the peer is another process);
//   - an MCP `tools/call` over stdio by reagent's mcp::Client against the bare client, each to a
//     server-everything of its own: the median latency of a call, as mcp_stdio_bench compares them, with
//     this process's CPU per call beside it. Skipped when node or the MCP peers were missing at build time.
//
// The scripted model answers as a scripted one would (a tool call for the prompt, then a text answer), after
// giving the executor back once per call, so that runs in flight interleave as they do over a network. The
// sequential figure uses the same model: the ratio is what concurrency itself costs. The HTTP and MCP
// figures are taken in blocks that alternate between reagent and its bare client, so that a quieter or
// busier stretch of this shared machine touches both alike, and the blocks are grouped in `--rounds`
// rounds: the HTTP ratio is of the CPU over all the blocks, the MCP one of the median of the rounds' median
// latencies (as mcp_stdio_bench takes it); beside each, the range of the rounds' own ratios, a measure of
// the noise.
//
//   concurrency_bench [--runs N] [--rounds N] [--suspended N] [--http-runs N] [--mcp-calls N] [--no-http]
//                     [--no-mcp]                    defaults 20000 5 10000 3000 3000
//   concurrency_bench --only IN_FLIGHT [--runs N]    one figure and nothing else, for a profiler

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
#include <boost/asio/use_future.hpp>
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

#include "bare_http_loop.hpp"
#include "provider_peer_process.hpp"
#include "reagent/reagent.hpp"
#ifdef REAGENT_BENCH_MCP
#include "bare_mcp_client.hpp"
#endif

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

bool flag(int argc, char** argv, const std::string& name) {
    return std::find(argv + 1, argv + argc, name) != argv + argc;
}

const char* verdict(bool met) {
    return met ? "met" : "NOT met";
}

// The HTTP and MCP figures: `total` runs or calls in blocks of kBlock, a block of reagent's then one of its
// bare client's, the blocks grouped in `rounds` rounds of about equal size.
constexpr int kBlock = 100;

class Blocks {
  public:
    // No more rounds than blocks: every round has one at least.
    Blocks(int total, int rounds) : total_(total), rounds_(std::min(rounds, count())) {}

    [[nodiscard]] int count() const { return (total_ + kBlock - 1) / kBlock; }
    [[nodiscard]] int rounds() const { return rounds_; }
    [[nodiscard]] int size(int block) const { return std::min(kBlock, total_ - block * kBlock); }
    [[nodiscard]] std::size_t round(int block) const {
        return static_cast<std::size_t>(block * rounds_ / count());
    }

  private:
    int total_;
    int rounds_;
};

// The lowest and the highest of the rounds' own ratios.
std::pair<double, double> range(const std::vector<double>& ratios) {
    const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
    return {*low, *high};
}

// This process's CPU and wall time, added up over blocks.
struct Spent {
    double cpu = 0;   // s
    double wall = 0;  // s
};

// Runs `work` and adds the time it takes to `spent`; returns what `work` returns.
template <class Work>
int addSpent(Spent& spent, Work work) {
    const double cpu = cpuSeconds();
    const auto wall = std::chrono::steady_clock::now();
    const int result = work();
    spent.cpu += cpuSeconds() - cpu;
    spent.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    return result;
}

// `runs` agent runs over HTTP, one after another, against as many pairs of the bare Beast client's
// exchanges (the same bodies, written by the agent's codec) on one kept-alive connection.
void httpLine(int runs, int rounds) {
    const bench::ProviderPeer peer;
    asio::io_context io;
    const agent::Agent agent = bench::buildHttpAgent(peer.port(), 1);
    auto [first, second] = bench::agentBodies(agent);
    bench::BareExchanges bare(peer.port(), "/v1/chat/completions", std::move(first), std::move(second));
    // Warm-up: the connections, the allocator, the peer's code paths.
    int reagentOk = 0;
    for (int i = 0; i < kBlock; ++i) {
        reagentOk += bench::runOne(io, agent);
    }
    int bareOk = bare.pairs(kBlock);
    const Blocks blocks(runs, rounds);
    std::vector<Spent> reagent(static_cast<std::size_t>(blocks.rounds()));
    std::vector<Spent> floor(reagent.size());
    for (int block = 0; block < blocks.count(); ++block) {
        const int size = blocks.size(block);
        const std::size_t round = blocks.round(block);
        reagentOk += addSpent(reagent[round], [&] {
            int ok = 0;
            for (int i = 0; i < size; ++i) {
                ok += bench::runOne(io, agent);
            }
            return ok;
        });
        bareOk += addSpent(floor[round], [&] { return bare.pairs(size); });
    }
    if (reagentOk != runs + kBlock || bareOk != runs + kBlock) {
        throw std::runtime_error(std::to_string(runs + kBlock - reagentOk) + " runs and " +
                                 std::to_string(runs + kBlock - bareOk) + " bare pairs failed");
    }
    Spent run;
    Spent pair;
    std::vector<double> ratios;
    for (std::size_t i = 0; i < reagent.size(); ++i) {
        run.cpu += reagent[i].cpu;
        run.wall += reagent[i].wall;
        pair.cpu += floor[i].cpu;
        pair.wall += floor[i].wall;
        ratios.push_back(reagent[i].cpu / floor[i].cpu);
    }
    const double ratio = run.cpu / pair.cpu;
    const auto [low, high] = range(ratios);
    std::printf(
        "HTTP run, one after another:      %7.2f us CPU per run, %.2fx the bare Beast client's %.2f us per "
        "pair (rounds %.2f-%.2fx; target <= 1.15x: %s); wall %.0f us against %.0f us\n",
        run.cpu * 1e6 / runs, ratio, pair.cpu * 1e6 / runs, low, high, verdict(ratio <= 1.15),
        run.wall * 1e6 / runs, pair.wall * 1e6 / runs);
}

#ifdef REAGENT_BENCH_MCP
// The samples of reagent's client and of the bare client, a pair per round.
using McpRounds = std::vector<std::pair<bench::Samples, bench::Samples>>;

// `calls` tools/call echo by reagent's mcp::Client and as many by the bare client, each to its own
// server-everything. A bare block blocks this thread: reagent's server has nothing to say meanwhile.
Task<McpRounds> mcpCalls(int calls, int rounds) {
    auto client = co_await bench::connectClient(bench::everything());
    bench::BareMcpClient bare(bench::everythingArgv());
    const auto reagentCall = [client, call = std::make_shared<const bench::McpCall>()] {
        return bench::callOnce(client, call);
    };
    const auto bareCall = [&bare] { bare.callEcho(); };
    // Warm-up, as mcp_stdio_bench's: the server's JIT, the client's buffers.
    (void)co_await bench::timeCallTasks(200, reagentCall);
    (void)bench::timeCalls(200, bareCall);
    const Blocks blocks(calls, rounds);
    McpRounds samples(static_cast<std::size_t>(blocks.rounds()));
    for (int block = 0; block < blocks.count(); ++block) {
        auto& [reagent, floor] = samples[blocks.round(block)];
        reagent.add(co_await bench::timeCallTasks(blocks.size(block), reagentCall));
        floor.add(bench::timeCalls(blocks.size(block), bareCall));
    }
    co_await client->close();
    co_return samples;
}

void mcpLine(int calls, int rounds) {
    asio::io_context io;
    auto calling = asio::co_spawn(io, mcpCalls(calls, rounds), asio::use_future);
    io.run();
    const McpRounds samples = calling.get();  // rethrows what the calls threw
    // As mcp_stdio_bench: the median of the rounds' median latencies, the range of the rounds' own ratios.
    bench::Samples reagent;
    bench::Samples floor;
    std::vector<double> reagentMedians;
    std::vector<double> floorMedians;
    std::vector<double> ratios;
    for (const auto& [reagentRound, floorRound] : samples) {
        reagent.add(reagentRound);
        floor.add(floorRound);
        reagentMedians.push_back(reagentRound.figures().median);
        floorMedians.push_back(floorRound.figures().median);
        ratios.push_back(reagentMedians.back() / floorMedians.back());
    }
    const double mine = median(reagentMedians);
    const double bare = median(floorMedians);
    const double ratio = mine / bare;
    const auto [low, high] = range(ratios);
    std::printf(
        "MCP stdio tools/call:             %7.2f us median latency, %.2fx the bare client's %.2f us (rounds "
        "%.2f-%.2fx; target <= 1.1x: %s); CPU here %.1f us per call against %.1f us\n",
        mine, ratio, bare, low, high, verdict(ratio <= 1.1), reagent.figures().cpu, floor.figures().cpu);
}
#endif

// CPU per scripted run, one after another and in flight, in alternated rounds.
void scriptedLines(const agent::Agent& agent, int runs, int rounds) {
    std::vector<double> sequential;
    std::vector<double> hundred;
    std::vector<double> thousand;
    // Alternated, so that a quieter or busier stretch of the machine touches every figure alike.
    for (int round = 0; round < rounds; ++round) {
        sequential.push_back(cpuPerRun(agent, runs, 1));
        hundred.push_back(cpuPerRun(agent, runs, 100));
        thousand.push_back(cpuPerRun(agent, runs, 1000));
    }
    const double base = median(sequential);
    std::printf(
        "scripted run, one after another:  %7.2f us CPU per run (median of %d rounds of %d runs; target <= 5 "
        "us: %s)\n",
        base, rounds, runs, verdict(base <= 5));
    for (const auto& [name, figures] :
         {std::pair{"100 in flight:    ", &hundred}, std::pair{"1,000 in flight:  ", &thousand}}) {
        const double ratio = median(*figures) / base;
        std::printf("scripted runs, %s %7.2f us CPU per run, %.2fx the sequential run (target <= 1.1x: %s)\n",
                    name, median(*figures), ratio, verdict(ratio <= 1.1));
    }
}

// The heap a suspended run holds: every run waits for its first reply; the agent existed before. Then the
// program's peak RSS.
void suspendedLines(int suspended) {
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
    std::printf(
        "%d suspended runs:             %7.0f bytes of heap per run (%.1f MB), RSS +%.1f MB (target <= 5,000 "
        "bytes: %s)\n",
        suspended, perRun, static_cast<double>(heapHeld - heapBefore) / 1e6,
        static_cast<double>(rssHeld - rssBefore) / 1e6, verdict(perRun <= 5000));
    // The whole program's peak: the held runs all move on at once when the gate opens, so it is reached
    // with every one of them in its tool call (issue 28's figure: 10,000 runs in at most 64 MB).
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const double peak = static_cast<double>(usage.ru_maxrss) / 1e3;
    std::printf(
        "peak RSS of the program:        %7.1f MB (%d runs at once at the peak; target <= 64 MB for 10,000 "
        "runs%s%s)\n",
        peak, suspended, suspended == 10'000 ? ": " : "", suspended == 10'000 ? verdict(peak <= 64) : "");
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argument(argc, argv, "--runs", 20'000);
    const int rounds = argument(argc, argv, "--rounds", 5);
    const int suspended = argument(argc, argv, "--suspended", 10'000);
    const int httpRuns = argument(argc, argv, "--http-runs", 3'000);
    const int mcpCalls = argument(argc, argv, "--mcp-calls", 3'000);
    try {
        const agent::Agent agent = buildAgent(std::make_shared<YieldingModel>());
        (void)cpuPerRun(agent, 1000, 1);  // warm-up: the offered tool list, the allocator's arenas
        if (const int only = argument(argc, argv, "--only", 0); only > 0) {
            // One measurement of `only` runs in flight, nothing else: for a profiler (perf, callgrind).
            std::printf("%d in flight: %.2f us CPU per run\n", only, cpuPerRun(agent, runs, only));
            return 0;
        }
        scriptedLines(agent, runs, rounds);
        suspendedLines(suspended);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "concurrency_bench: %s\n", e.what());
        return 1;
    }
    // A part that fails (its peer did not start, a call failed) says so and fails the program; the others
    // still print.
    int status = 0;
    const auto line = [&status](const char* name, auto measure) {
        std::fflush(stdout);
        try {
            measure();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "concurrency_bench: %s: %s\n", name, e.what());
            status = 1;
        }
    };
    if (flag(argc, argv, "--no-http")) {
        std::printf("HTTP run: skipped (--no-http)\n");
    } else {
        line("HTTP run", [&] { httpLine(httpRuns, rounds); });
    }
#ifdef REAGENT_BENCH_MCP
    if (flag(argc, argv, "--no-mcp")) {
        std::printf("MCP stdio tools/call: skipped (--no-mcp)\n");
    } else {
        line("MCP stdio tools/call", [&] { mcpLine(mcpCalls, rounds); });
    }
#else
    (void)mcpCalls;
    std::printf(
        "MCP stdio tools/call: skipped: node or tests/peers/mcp/node_modules was missing when this was built "
        "(scripts/setup.sh --tests)\n");
#endif
    return status;
}
