// What reagent's MCP client costs over stdio: sequential `tools/call echo {"message":"ping"}` round trips
// against server-everything (a fresh server process per client), by three clients in one process run:
//
//   reagent  mcp::Client over its stdio transport;
//   bare     a few lines (bare_mcp_client.hpp): posix_spawn with pipes, the initialize handshake, then write
//            the request line and read lines until the reply (blocking read/write, no JSON parsing): the
//            server's own floor;
//   sdk      the official TypeScript SDK client (benchmarks/mcp/sdk_client_bench.mjs, a node subprocess
//            that prints the latency of each call).
//
// Each client makes the warm-up calls, then the timed calls, one at a time; a run takes the three in turn
// (reagent, bare, sdk) so that drift on this shared machine hits all of them alike; the summary is the
// median of the runs' figures. Then the same for an agent run (a scripted model: turn 1 calls the echo tool,
// turn 2 answers) whose tool is `everything/echo` over MCP, beside the same agent with an in-process echo
// tool: the difference is what an MCP call costs inside an agent.
//
// `era` (MCP 2026-07-28): what choosing the era costs. Connecting (spawn, handshake, close) to
// server-everything with `era` legacy (initialize at once) and automatic (a server/discover probe first,
// answered with an error); and `tools/call add` against the SDK v2 server (tests/peers/mcp/sdk2_server.mjs,
// dual-era) spoken to in each era by reagent and by the SDK v2 client (sdk_client_bench.mjs --sdk 2, pinned
// to 2026-07-28 or in the handshake era): the 2026 envelope every request carries, against the handshake's
// session.
//
//   mcp_stdio_bench [--runs N=5] [--warmup N=200] [--calls N=1000] [--agent-runs N=1000]
//                   [--only reagent,bare,sdk,agent,era] [--connects N=20] [--bare-socket] [--smoke]
//
// --smoke: one short run of everything (checks that the benchmark works, in seconds). --only: the clients
// named, e.g. one alone for profiling under callgrind. --bare-socket: one more bare client per run, whose
// server's stdin is a socketpair, as reagent's Subprocess made it before its stdin became a pipe (the bare
// client's is a pipe): what a socket costs the server.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bare_mcp_client.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/tool_source.hpp"
#include "reagent/tools/tool_builder.hpp"

extern char** environ;  // NOLINT: POSIX

namespace {

using namespace reagent;
using bench::Clock;
using bench::Figures;
using nlohmann::json;

struct Settings {
    int runs = 5;
    int warmup = 200;
    int calls = 1000;
    int agentRuns = 1000;
    int connects = 20;
    std::string only;         // comma-separated clients to run; empty: every client
    bool bareSocket = false;  // also run the bare client with the server's stdin on a socketpair
};

// The SDK v2 server (dual-era) over stdio.
std::vector<std::string> sdk2Argv() {
    return {REAGENT_NODE, std::string(REAGENT_MCP_NODE_MODULES) + "/../sdk2_server.mjs", "stdio", "serve"};
}

// The SDK v2 server, spoken to in `era`.
mcp::ServerConfig sdk2(mcp::ProtocolEra era) {
    const auto argv = sdk2Argv();
    mcp::ServerConfig config;
    config.name = "sdk2";
    config.command = argv.front();
    config.args.assign(argv.begin() + 1, argv.end());
    config.era = era;
    return config;
}

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

// Runs `task` on a fresh io_context to its end; rethrows what it threw.
template <class T>
T runTask(Task<T> task) {
    boost::asio::io_context io;
    std::optional<T> value;
    std::exception_ptr failure;
    boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr error, T result) {
        failure = error;
        if (!error) {
            value = std::move(result);
        }
    });
    io.run();
    if (failure) {
        std::rethrow_exception(failure);
    }
    return std::move(*value);
}

// ---- 1. reagent's mcp::Client

Task<Figures> reagentClient(Settings settings, mcp::ServerConfig config, bench::McpCall call) {
    std::shared_ptr<mcp::Client> client = co_await bench::connectClient(std::move(config));
    const auto once = [client, call = std::make_shared<const bench::McpCall>(std::move(call))] {
        return bench::callOnce(client, call);
    };
    (void)co_await bench::timeCallTasks(settings.warmup, once);
    const bench::Samples timed = co_await bench::timeCallTasks(settings.calls, once);
    co_await client->close();
    co_return timed.figures();
}

// Connecting and closing, `settings.connects` times: the latency of each connect (spawn and era choice).
Task<Figures> connects(Settings settings, mcp::ServerConfig config) {
    bench::Samples samples;
    const double cpuStart = bench::cpuSeconds();
    const auto wallStart = Clock::now();
    for (int i = 0; i < settings.connects; ++i) {
        mcp::ClientOptions options;
        const auto start = Clock::now();
        auto connected = co_await mcp::Client::connect(config, std::move(options));
        const auto end = Clock::now();
        if (!connected) {
            throw std::runtime_error("connect: " + connected.error().message);
        }
        co_await (*connected)->close();
        samples.latencies.push_back(microseconds(end - start));
    }
    samples.cpu = bench::cpuSeconds() - cpuStart;
    samples.wall = std::chrono::duration<double>(Clock::now() - wallStart).count();
    co_return samples.figures();
}

// ---- 2. the bare client

// The bare client (bare_mcp_client.hpp); with `socketInput` the server's stdin is a socketpair.
Figures bareClient(const Settings& settings, bool socketInput) {
    bench::BareMcpClient client(bench::everythingArgv(), socketInput);
    const auto call = [&client] { client.callEcho(); };
    (void)bench::timeCalls(settings.warmup, call);
    return bench::timeCalls(settings.calls, call).figures();
}

// ---- 3. the official TypeScript SDK clients

// `sdk` (sdk_client_bench.mjs's options, e.g. {"--sdk", "2"}) calling the server `server` starts.
Figures sdkClient(const Settings& settings, std::vector<std::string> sdk,
                  const std::vector<std::string>& server) {
    std::vector<std::string> argv = {
        REAGENT_NODE, REAGENT_SDK_BENCH_SCRIPT,        "--modules", REAGENT_MCP_NODE_MODULES,
        "--warmup",   std::to_string(settings.warmup), "--calls",   std::to_string(settings.calls)};
    argv.insert(argv.end(), sdk.begin(), sdk.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), server.begin(), server.end());
    std::string output;
    {
        // The script's stdout on a pipe, its stderr (errors only) inherited.
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe2 failed");
        }
        posix_spawn_file_actions_t actions;
        ::posix_spawn_file_actions_init(&actions);
        ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        std::vector<char*> args;
        for (const auto& arg : argv) {
            args.push_back(const_cast<char*>(arg.c_str()));
        }
        args.push_back(nullptr);
        pid_t pid = -1;
        const int spawned = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
        ::posix_spawn_file_actions_destroy(&actions);
        ::close(out[1]);
        if (spawned != 0) {
            ::close(out[0]);
            throw std::runtime_error(std::string("sdk: posix_spawn failed: ") + std::strerror(spawned));
        }
        char chunk[65536];
        for (ssize_t n; (n = ::read(out[0], chunk, sizeof chunk)) > 0;) {
            output.append(chunk, static_cast<std::size_t>(n));
        }
        ::close(out[0]);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            throw std::runtime_error("sdk: sdk_client_bench.mjs failed (see its stderr above)");
        }
    }
    // `latencies_us <n> <t1> ... <tn>`
    std::istringstream in(output);
    std::string tag;
    std::size_t count = 0;
    in >> tag >> count;
    const auto unexpectedOutput = [&] {
        return std::runtime_error("sdk: unexpected output: " + output.substr(0, 200));
    };
    if (tag != "latencies_us" || count != static_cast<std::size_t>(settings.calls)) {
        throw unexpectedOutput();
    }
    bench::Samples samples;  // no CPU here: the calls are another process's
    samples.latencies.resize(count);
    for (double& t : samples.latencies) {
        in >> t;
        samples.wall += t / 1e6;
    }
    if (!in) {
        throw unexpectedOutput();
    }
    return samples.figures();
}

// ---- 4. an agent run whose tool is an MCP tool, and the same with an in-process tool

Task<tools::ToolResult> localEcho(json args, tools::ToolContext) {
    co_return "Echo: " + args.value("message", std::string{});
}

// One run of `runner` (which outlives it); throws when it does not end as scripted.
Task<void> echoRun(const agent::Agent* runner) {
    agent::RunResult result = co_await runner->run("ping");
    const bool ok = result.success() && result.output == "done" && result.toolCalls.size() == 1 &&
                    result.toolCalls[0].succeeded() && *result.toolCalls[0].outcome == bench::kEchoReply;
    if (!ok) {
        throw std::runtime_error(std::string("agent: a run did not end as scripted") +
                                 (result.error() ? ": " + result.error()->describe() : ""));
    }
}

Task<Figures> agentRuns(bool viaMcp, Settings settings) {
    const std::string toolName = viaMcp ? "everything/echo" : "echo";
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall(toolName, json{{"message", "ping"}}, "call_1"))
        .then(llm::ScriptedTurn::text("done"));
    // One looping script without a request log: nothing grows across the runs.
    provider->loop(true).recordRequests(false);
    auto builder = agent::Agent::create().withProvider(provider);
    if (viaMcp) {
        builder.withToolSource(mcp::toolSource(bench::everything()));
    } else {
        builder.withTool(tools::ToolBuilder::create("echo")
                             .description("Echoes back the input string")
                             .param("message", "string", "Message to echo", {.required = true})
                             .handler(localEcho)
                             .build());
    }
    auto built = co_await builder.buildAsync();
    if (!built) {
        throw std::runtime_error("agent: " + built.error().describe());
    }
    const agent::Agent* runner = &*built;
    const auto once = [runner] { return echoRun(runner); };
    (void)co_await bench::timeCallTasks(std::min(settings.warmup, settings.agentRuns), once);
    const bench::Samples timed = co_await bench::timeCallTasks(settings.agentRuns, once);
    co_await runner->dispose();
    co_return timed.figures();
}

// ---- main

double medianOf(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

struct Series {
    std::vector<Figures> runs;
    [[nodiscard]] bool empty() const { return runs.empty(); }
    template <class F>
    [[nodiscard]] double median(F field) const {
        std::vector<double> values;
        for (const Figures& f : runs) {
            values.push_back(field(f));
        }
        return medianOf(std::move(values));
    }
    [[nodiscard]] double medianOfMedians() const {
        return median([](const Figures& f) { return f.median; });
    }
    [[nodiscard]] double medianOfP99() const {
        return median([](const Figures& f) { return f.p99; });
    }
};

void usage() {
    std::fprintf(stderr,
                 "usage: mcp_stdio_bench [--runs N] [--warmup N] [--calls N] [--agent-runs N] "
                 "[--only reagent,bare,sdk,agent,era] [--connects N] [--bare-socket] [--smoke]\n");
    std::exit(2);
}

Settings parse(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto number = [&] {
            if (i + 1 >= argc) {
                usage();
            }
            const int value = std::atoi(argv[++i]);
            if (value < 0) {
                usage();
            }
            return value;
        };
        if (arg == "--runs") {
            settings.runs = number();
        } else if (arg == "--warmup") {
            settings.warmup = number();
        } else if (arg == "--calls") {
            settings.calls = number();
        } else if (arg == "--agent-runs") {
            settings.agentRuns = number();
        } else if (arg == "--connects") {
            settings.connects = number();
        } else if (arg == "--only" && i + 1 < argc) {
            settings.only = argv[++i];
        } else if (arg == "--bare-socket") {
            settings.bareSocket = true;
        } else if (arg == "--smoke") {
            settings.runs = 1;
            settings.warmup = 10;
            settings.calls = 50;
            settings.agentRuns = 50;
            settings.connects = 2;
        } else {
            usage();
        }
    }
    if (settings.runs < 1 || settings.calls < 1 || settings.agentRuns < 1 || settings.connects < 1) {
        usage();
    }
    return settings;
}

void printFigures(const char* name, const Figures& f, const char* unit) {
    std::printf("  %-26s median %8.1f us  p99 %8.1f us  %9.0f %s/s", name, f.median, f.p99, f.rate, unit);
    if (f.cpu > 0) {
        std::printf("  CPU here %6.1f us/%s", f.cpu, unit);
    }
    std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    const Settings settings = parse(argc, argv);
    const auto wanted = [&](std::string_view client) {
        // A comma-separated list of clients.
        const std::string list = "," + settings.only + ",";
        return settings.only.empty() || list.find("," + std::string(client) + ",") != std::string::npos;
    };
    try {
        std::printf(
            "tools/call echo {\"message\":\"ping\"} over stdio, server-everything (a fresh server per "
            "client), "
            "%d warm-up + %d timed sequential calls per client, %d run(s)\n",
            settings.warmup, settings.calls, settings.runs);
        Series reagentSeries;
        Series bareSeries;
        Series bareSocketSeries;
        Series sdkSeries;
        Series mcpAgentSeries;
        Series localAgentSeries;
        Series legacyConnects;
        Series probedConnects;
        Series legacyCalls;
        Series modernCalls;
        Series sdk2LegacyCalls;
        Series sdk2ModernCalls;
        const bench::McpCall add{"add", json{{"a", 5}, {"b", 3}}, "8"};
        for (int run = 1; run <= settings.runs; ++run) {
            std::printf("run %d\n", run);
            if (wanted("reagent")) {
                reagentSeries.runs.push_back(
                    runTask(reagentClient(settings, bench::everything(), bench::McpCall{})));
                printFigures("reagent mcp::Client", reagentSeries.runs.back(), "call");
            }
            if (wanted("bare")) {
                bareSeries.runs.push_back(bareClient(settings, false));
                printFigures("bare client", bareSeries.runs.back(), "call");
                if (settings.bareSocket) {
                    bareSocketSeries.runs.push_back(bareClient(settings, true));
                    printFigures("bare, stdin a socket", bareSocketSeries.runs.back(), "call");
                }
            }
            if (wanted("sdk")) {
                sdkSeries.runs.push_back(sdkClient(settings, {}, bench::everythingArgv()));
                printFigures("TypeScript SDK client", sdkSeries.runs.back(), "call");
            }
            if (wanted("agent")) {
                mcpAgentSeries.runs.push_back(runTask(agentRuns(true, settings)));
                printFigures("agent, MCP echo", mcpAgentSeries.runs.back(), "run");
                localAgentSeries.runs.push_back(runTask(agentRuns(false, settings)));
                printFigures("agent, in-process echo", localAgentSeries.runs.back(), "run");
            }
            if (wanted("era")) {
                mcp::ServerConfig legacy = bench::everything();
                legacy.era = mcp::ProtocolEra::legacy;
                legacyConnects.runs.push_back(runTask(connects(settings, legacy)));
                printFigures("connect, handshake only", legacyConnects.runs.back(), "connect");
                probedConnects.runs.push_back(runTask(connects(settings, bench::everything())));
                printFigures("connect, probe first", probedConnects.runs.back(), "connect");
                legacyCalls.runs.push_back(
                    runTask(reagentClient(settings, sdk2(mcp::ProtocolEra::legacy), add)));
                printFigures("reagent, handshake era", legacyCalls.runs.back(), "call");
                modernCalls.runs.push_back(
                    runTask(reagentClient(settings, sdk2(mcp::ProtocolEra::automatic), add)));
                printFigures("reagent, 2026-07-28", modernCalls.runs.back(), "call");
                sdk2LegacyCalls.runs.push_back(
                    sdkClient(settings, {"--sdk", "2", "--era", "legacy", "--tool", "add"}, sdk2Argv()));
                printFigures("SDK v2 client, handshake", sdk2LegacyCalls.runs.back(), "call");
                sdk2ModernCalls.runs.push_back(
                    sdkClient(settings, {"--sdk", "2", "--era", "2026-07-28", "--tool", "add"}, sdk2Argv()));
                printFigures("SDK v2 client, 2026-07-28", sdk2ModernCalls.runs.back(), "call");
            }
            if (!reagentSeries.empty() && !bareSeries.empty()) {
                std::printf("  reagent/bare %.2fx",
                            reagentSeries.runs.back().median / bareSeries.runs.back().median);
                if (!bareSocketSeries.empty()) {
                    std::printf("  reagent/bare-socket %.2fx",
                                reagentSeries.runs.back().median / bareSocketSeries.runs.back().median);
                }
                if (!sdkSeries.empty()) {
                    std::printf("  SDK/reagent %.2fx",
                                sdkSeries.runs.back().median / reagentSeries.runs.back().median);
                }
                std::printf("\n");
            }
            std::fflush(stdout);
        }

        std::printf("median of %d run(s):\n", settings.runs);
        const auto summary = [](const char* name, const Series& series, const char* unit) {
            if (series.empty()) {
                return;
            }
            Figures f;
            f.median = series.medianOfMedians();
            f.p99 = series.medianOfP99();
            f.rate = series.median([](const Figures& x) { return x.rate; });
            f.cpu = series.median([](const Figures& x) { return x.cpu; });
            printFigures(name, f, unit);
        };
        summary("reagent mcp::Client", reagentSeries, "call");
        summary("bare client", bareSeries, "call");
        summary("bare, stdin a socket", bareSocketSeries, "call");
        summary("TypeScript SDK client", sdkSeries, "call");
        // The ratio of the medians of runs, and the range of the runs' own ratios.
        const auto ratio = [&](const char* name, const Series& over, const char* target) {
            if (reagentSeries.empty() || over.empty()) {
                return;
            }
            std::vector<double> ratios;
            for (std::size_t i = 0; i < reagentSeries.runs.size(); ++i) {
                ratios.push_back(reagentSeries.runs[i].median / over.runs[i].median);
            }
            const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
            const double value = reagentSeries.medianOfMedians() / over.medianOfMedians();
            std::printf("  %-20s %.2fx (runs %.2f-%.2fx)%s\n", name, value, *low, *high,
                        target == nullptr ? ""
                        : value <= 1.10   ? target
                                          : "; target <= 1.10x: NOT met");
        };
        ratio("reagent/bare", bareSeries, "; target <= 1.10x: met");
        ratio("reagent/bare-socket", bareSocketSeries, nullptr);
        if (!reagentSeries.empty() && !sdkSeries.empty()) {
            std::printf("  %-20s %.2fx\n", "SDK/reagent",
                        sdkSeries.medianOfMedians() / reagentSeries.medianOfMedians());
        }
        summary("connect, handshake only", legacyConnects, "connect");
        summary("connect, probe first", probedConnects, "connect");
        summary("reagent, handshake era", legacyCalls, "call");
        summary("reagent, 2026-07-28", modernCalls, "call");
        summary("SDK v2 client, handshake", sdk2LegacyCalls, "call");
        summary("SDK v2 client, 2026-07-28", sdk2ModernCalls, "call");
        if (!legacyCalls.empty()) {
            std::printf(
                "  connect probe-first/handshake-only %.3fx; a call in 2026-07-28/handshake era: "
                "%.2fx latency, %.2fx CPU here\n",
                probedConnects.medianOfMedians() / legacyConnects.medianOfMedians(),
                modernCalls.medianOfMedians() / legacyCalls.medianOfMedians(),
                modernCalls.median([](const Figures& x) { return x.cpu; }) /
                    legacyCalls.median([](const Figures& x) { return x.cpu; }));
            std::printf(
                "  SDK v2 client/reagent, same server: %.2fx in 2026-07-28, %.2fx in the handshake era; "
                "the SDK v2 client's 2026-07-28/handshake: %.2fx\n",
                sdk2ModernCalls.medianOfMedians() / modernCalls.medianOfMedians(),
                sdk2LegacyCalls.medianOfMedians() / legacyCalls.medianOfMedians(),
                sdk2ModernCalls.medianOfMedians() / sdk2LegacyCalls.medianOfMedians());
        }
        summary("agent, MCP echo", mcpAgentSeries, "run");
        summary("agent, in-process echo", localAgentSeries, "run");
        if (!mcpAgentSeries.empty()) {
            const double mcpRun = mcpAgentSeries.medianOfMedians();
            const double localRun = localAgentSeries.medianOfMedians();
            std::printf(
                "  an MCP call inside an agent run costs %.1f us more (median run %.1f us vs %.1f us)",
                mcpRun - localRun, mcpRun, localRun);
            if (!reagentSeries.empty()) {
                std::printf("; the client's call alone: %.1f us", reagentSeries.medianOfMedians());
            }
            std::printf("\n");
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mcp_stdio_bench: %s\n", e.what());
        return 1;
    }
}
