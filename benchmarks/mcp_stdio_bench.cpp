// What reagent's MCP client costs over stdio: sequential `tools/call echo {"message":"ping"}` round trips
// against server-everything (a fresh server process per client), by three clients in one process run:
//
//   reagent  mcp::Client over its stdio transport;
//   bare     a few lines here: posix_spawn with pipes, the initialize handshake, then write the request line
//            and read lines until the reply (blocking read/write, no JSON parsing): the server's own floor;
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
#include <sys/resource.h>
#include <sys/socket.h>
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

#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/tool_source.hpp"
#include "reagent/tools/tool_builder.hpp"

extern char** environ;  // NOLINT: POSIX

namespace {

using namespace reagent;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

const std::string kServerScript =
    std::string(REAGENT_MCP_NODE_MODULES) + "/@modelcontextprotocol/server-everything/dist/index.js";
constexpr std::string_view kEchoReply = "Echo: ping";

struct Settings {
    int runs = 5;
    int warmup = 200;
    int calls = 1000;
    int agentRuns = 1000;
    int connects = 20;
    std::string only;         // comma-separated clients to run; empty: every client
    bool bareSocket = false;  // also run the bare client with the server's stdin on a socketpair
};

// The server every client talks to: node server-everything over stdio.
std::vector<std::string> serverArgv() {
    return {REAGENT_NODE, kServerScript, "stdio"};
}

mcp::ServerConfig everything() {
    mcp::ServerConfig config;
    config.name = "everything";
    config.command = REAGENT_NODE;
    config.args = {kServerScript, "stdio"};
    return config;
}

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

// This process's CPU time so far, user plus kernel (the servers and the SDK client are other processes), s.
// The kernel's split between the two is sampled by ticks, too coarse per call: only the sum is reported.
double cpuSeconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return s(usage.ru_utime) + s(usage.ru_stime);
}

// The figures of one client in one run. Quantiles as the SDK's anchor script takes them: the sorted
// sample at floor(p * n).
struct Figures {
    double median = 0;
    double p99 = 0;
    double cpu = 0;   // this process's CPU per call or run, us; 0 when not measured (the sdk)
    double rate = 0;  // calls or runs per second over the timed span
};

Figures summarize(std::vector<double> us, double cpu, double wallSeconds) {
    if (us.empty()) {
        throw std::runtime_error("no samples");
    }
    std::sort(us.begin(), us.end());
    const auto at = [&](double p) {
        return us[std::min(us.size() - 1, static_cast<std::size_t>(p * static_cast<double>(us.size())))];
    };
    const auto n = static_cast<double>(us.size());
    return Figures{at(0.5), at(0.99), cpu / n * 1e6, wallSeconds > 0 ? n / wallSeconds : 0};
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

// What the timed calls send, and what each must answer.
struct Call {
    std::string tool = "echo";
    json arguments = {{"message", "ping"}};
    std::string reply = std::string(kEchoReply);
};

Task<Figures> reagentClient(Settings settings, mcp::ServerConfig config, Call call) {
    mcp::ClientOptions options;
    auto connected = co_await mcp::Client::connect(std::move(config), std::move(options));
    if (!connected) {
        throw std::runtime_error("reagent: " + connected.error().message);
    }
    std::shared_ptr<mcp::Client> client = std::move(*connected);
    std::vector<double> latencies;
    latencies.reserve(static_cast<std::size_t>(settings.calls));
    double cpuStart = 0;
    Clock::time_point wallStart;
    for (int i = 0; i < settings.warmup + settings.calls; ++i) {
        if (i == settings.warmup) {
            cpuStart = cpuSeconds();
            wallStart = Clock::now();
        }
        std::string name = call.tool;
        json args = call.arguments;
        const auto start = Clock::now();
        auto result = co_await client->callTool(std::move(name), std::move(args));
        const auto end = Clock::now();
        if (!result || result->isError || result->text != call.reply) {
            throw std::runtime_error("reagent: the call failed: " +
                                     (result ? result->text : result.error().message));
        }
        if (i >= settings.warmup) {
            latencies.push_back(microseconds(end - start));
        }
    }
    const double cpu = cpuSeconds() - cpuStart;
    const double wall = std::chrono::duration<double>(Clock::now() - wallStart).count();
    co_await client->close();
    co_return summarize(std::move(latencies), cpu, wall);
}

// Connecting and closing, `settings.connects` times: the latency of each connect (spawn and era choice).
Task<Figures> connects(Settings settings, mcp::ServerConfig config) {
    std::vector<double> latencies;
    const double cpuStart = cpuSeconds();
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
        latencies.push_back(microseconds(end - start));
    }
    co_return summarize(std::move(latencies), cpuSeconds() - cpuStart,
                        std::chrono::duration<double>(Clock::now() - wallStart).count());
}

// ---- 2. the bare client

// A child process with its stdin and stdout on pipes (stderr to /dev/null), read and written blocking.
// With `socketInput`, stdin is one end of a socketpair (as reagent's Subprocess made it before it used a
// pipe).
class BareChild {
  public:
    BareChild(const std::vector<std::string>& argv, bool socketInput) {
        int in[2];
        int out[2];
        const int inputMade =
            socketInput ? ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) : ::pipe2(in, O_CLOEXEC);
        if (inputMade != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe2 failed");
        }
        posix_spawn_file_actions_t actions;
        ::posix_spawn_file_actions_init(&actions);
        ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
        ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        std::vector<char*> args;
        for (const auto& arg : argv) {
            args.push_back(const_cast<char*>(arg.c_str()));
        }
        args.push_back(nullptr);
        const int spawned = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
        ::posix_spawn_file_actions_destroy(&actions);
        ::close(in[0]);
        ::close(out[1]);
        input_ = in[1];
        output_ = out[0];
        if (spawned != 0) {
            throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(spawned));
        }
    }
    BareChild(const BareChild&) = delete;
    BareChild& operator=(const BareChild&) = delete;
    ~BareChild() {
        ::close(input_);  // server-everything exits when its stdin closes
        int status = 0;
        ::waitpid(pid_, &status, 0);
        ::close(output_);
    }

    void write(std::string_view bytes) const {
        while (!bytes.empty()) {
            const ssize_t n = ::write(input_, bytes.data(), bytes.size());
            if (n <= 0) {
                throw std::runtime_error("bare: write to the server failed");
            }
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
    }

    // The next line without its newline; valid until the next call.
    std::string_view readLine() {
        for (;;) {
            if (const void* newline = std::memchr(buffer_.data() + begin_, '\n', end_ - begin_)) {
                const std::size_t at = static_cast<const char*>(newline) - buffer_.data();
                const std::string_view line(buffer_.data() + begin_, at - begin_);
                begin_ = at + 1;
                return line;
            }
            if (begin_ > 0) {
                std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
                end_ -= begin_;
                begin_ = 0;
            }
            if (end_ == buffer_.size()) {
                buffer_.resize(buffer_.size() * 2);
            }
            const ssize_t n = ::read(output_, buffer_.data() + end_, buffer_.size() - end_);
            if (n <= 0) {
                throw std::runtime_error("bare: the server closed its output");
            }
            end_ += static_cast<std::size_t>(n);
        }
    }

    // Lines until the one that ends with `"id":<id>}`: the reply (the server puts `id` last; anything else,
    // such as notifications/tools/list_changed after the handshake, is skipped).
    std::string_view readReply(int id) {
        char suffix[32];
        const int length = std::snprintf(suffix, sizeof suffix, "\"id\":%d}", id);
        for (;;) {
            const std::string_view line = readLine();
            if (line.ends_with(std::string_view(suffix, static_cast<std::size_t>(length)))) {
                return line;
            }
        }
    }

  private:
    pid_t pid_ = -1;
    int input_ = -1;
    int output_ = -1;
    std::string buffer_ = std::string(64 * 1024, '\0');
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
};

Figures bareClient(const Settings& settings, bool socketInput) {
    BareChild server(serverArgv(), socketInput);
    server.write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                 R"("capabilities":{},"clientInfo":{"name":"bare","version":"1.0.0"}}})"
                 "\n");
    (void)server.readReply(0);
    server.write(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                 "\n");
    std::vector<double> latencies;
    latencies.reserve(static_cast<std::size_t>(settings.calls));
    double cpuStart = 0;
    Clock::time_point wallStart;
    for (int i = 0; i < settings.warmup + settings.calls; ++i) {
        if (i == settings.warmup) {
            cpuStart = cpuSeconds();
            wallStart = Clock::now();
        }
        const int id = i + 1;
        const auto start = Clock::now();
        char request[160];
        const int length = std::snprintf(
            request, sizeof request,
            R"({"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ping"}}})"
            "\n",
            id);
        server.write(std::string_view(request, static_cast<std::size_t>(length)));
        const std::string_view reply = server.readReply(id);
        const auto end = Clock::now();
        if (reply.find(kEchoReply) == std::string_view::npos) {
            throw std::runtime_error("bare: unexpected reply: " + std::string(reply));
        }
        if (i >= settings.warmup) {
            latencies.push_back(microseconds(end - start));
        }
    }
    const double cpu = cpuSeconds() - cpuStart;
    const double wall = std::chrono::duration<double>(Clock::now() - wallStart).count();
    return summarize(std::move(latencies), cpu, wall);
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
    std::vector<double> latencies(count);
    for (double& t : latencies) {
        in >> t;
    }
    if (!in) {
        throw unexpectedOutput();
    }
    double total = 0;
    for (const double t : latencies) {
        total += t;
    }
    return summarize(std::move(latencies), 0, total / 1e6);
}

// ---- 4. an agent run whose tool is an MCP tool, and the same with an in-process tool

Task<tools::ToolResult> localEcho(json args, tools::ToolContext) {
    co_return "Echo: " + args.value("message", std::string{});
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
        builder.withToolSource(mcp::toolSource(everything()));
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
    const agent::Agent& runner = *built;
    std::vector<double> latencies;
    latencies.reserve(static_cast<std::size_t>(settings.agentRuns));
    double cpuStart = 0;
    Clock::time_point wallStart;
    const int warmup = std::min(settings.warmup, settings.agentRuns);
    for (int i = 0; i < warmup + settings.agentRuns; ++i) {
        if (i == warmup) {
            cpuStart = cpuSeconds();
            wallStart = Clock::now();
        }
        std::string prompt = "ping";
        const auto start = Clock::now();
        agent::RunResult result = co_await runner.run(std::move(prompt));
        const auto end = Clock::now();
        const bool ok = result.success() && result.output == "done" && result.toolCalls.size() == 1 &&
                        result.toolCalls[0].succeeded() && *result.toolCalls[0].outcome == kEchoReply;
        if (!ok) {
            throw std::runtime_error(std::string("agent: a run did not end as scripted") +
                                     (result.error() ? ": " + result.error()->describe() : ""));
        }
        if (i >= warmup) {
            latencies.push_back(microseconds(end - start));
        }
    }
    const double cpu = cpuSeconds() - cpuStart;
    const double wall = std::chrono::duration<double>(Clock::now() - wallStart).count();
    co_await runner.dispose();
    co_return summarize(std::move(latencies), cpu, wall);
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
        const Call add{"add", json{{"a", 5}, {"b", 3}}, "8"};
        for (int run = 1; run <= settings.runs; ++run) {
            std::printf("run %d\n", run);
            if (wanted("reagent")) {
                reagentSeries.runs.push_back(runTask(reagentClient(settings, everything(), Call{})));
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
                sdkSeries.runs.push_back(sdkClient(settings, {}, serverArgv()));
                printFigures("TypeScript SDK client", sdkSeries.runs.back(), "call");
            }
            if (wanted("agent")) {
                mcpAgentSeries.runs.push_back(runTask(agentRuns(true, settings)));
                printFigures("agent, MCP echo", mcpAgentSeries.runs.back(), "run");
                localAgentSeries.runs.push_back(runTask(agentRuns(false, settings)));
                printFigures("agent, in-process echo", localAgentSeries.runs.back(), "run");
            }
            if (wanted("era")) {
                mcp::ServerConfig legacy = everything();
                legacy.era = mcp::ProtocolEra::legacy;
                legacyConnects.runs.push_back(runTask(connects(settings, legacy)));
                printFigures("connect, handshake only", legacyConnects.runs.back(), "connect");
                probedConnects.runs.push_back(runTask(connects(settings, everything())));
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
