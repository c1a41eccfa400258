// A full agent run over HTTP: two model turns (a tool call, then the answer) and one tool, against the
// loopback provider peer (tests/peers/provider_peer.py) speaking the OpenAI Chat Completions format.
//
// Reports the CPU time the agent process spends per run (getrusage(RUSAGE_SELF): the peer is another
// process and is not counted), runs one after another and 1,000 at once on one io_context, and the peak
// RSS. Targets: < 50 us CPU per run; 1,000 runs in flight in < 100 MB.
//
//   provider_run_bench [sequential-runs] [concurrent-runs] [rounds]     (defaults 2000 1000 3)

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bare_http_loop.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/providers/wire_format.hpp"
#include "reagent/reagent.hpp"

namespace {

using namespace reagent;
using nlohmann::json;

// The peer as a child process: its port on the first stdout line; it exits when its stdin closes.
class Peer {
  public:
    explicit Peer(const std::string& scriptFile) {
        int in[2];
        int out[2];
        if (::pipe(in) != 0 || ::pipe(out) != 0) {
            throw std::runtime_error("pipe failed");
        }
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::close(in[1]);
            ::close(out[0]);
            const std::string script = std::string(REAGENT_PEERS_DIR) + "/provider_peer.py";
            ::execlp("python3", "python3", script.c_str(), "--script", scriptFile.c_str(), "--no-record",
                     static_cast<char*>(nullptr));
            std::_Exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        stdin_ = in[1];
        FILE* reader = ::fdopen(out[0], "r");
        char line[64] = {};
        if (reader == nullptr || std::fgets(line, sizeof line, reader) == nullptr) {
            throw std::runtime_error("the provider peer did not start");
        }
        port_ = std::stoi(line);
        reader_ = reader;
    }
    ~Peer() {
        ::close(stdin_);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        std::fclose(reader_);
    }
    [[nodiscard]] int port() const { return port_; }

  private:
    pid_t pid_ = -1;
    int stdin_ = -1;
    int port_ = 0;
    FILE* reader_ = nullptr;
};

std::string chatCompletion(const json& message, const std::string& finish) {
    return json{{"id", "chatcmpl-1"},
                {"object", "chat.completion"},
                {"model", "gpt-4.1"},
                {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}},
                {"usage", {{"prompt_tokens", 40}, {"completion_tokens", 8}, {"total_tokens", 48}}}}
        .dump();
}

// A tool call unless the body already carries a tool result, then the answer.
json script() {
    const json call = {{"role", "assistant"},
                       {"content", nullptr},
                       {"tool_calls",
                        {{{"id", "call_1"},
                          {"type", "function"},
                          {"function", {{"name", "echo"}, {"arguments", "{\"text\":\"hello\"}"}}}}}}};
    const json answer = {{"role", "assistant"}, {"content", "done"}};
    return json{
        {"rules",
         {{{"match", "\"role\":\"tool\""},
           {"response", {{"status", 200}, {"body", chatCompletion(answer, "stop")}}}},
          {{"match", ""}, {"response", {{"status", 200}, {"body", chatCompletion(call, "tool_calls")}}}}}}};
}

Task<tools::ToolResult> echo(json args, tools::ToolContext) {
    co_return args.value("text", std::string{});
}

// With `spendControls`: a price table, a budget with every limit set and a rate limiter with every limit set,
// none of them reached, so that each run pays for its accounting and none waits.
agent::Agent buildAgent(int port, int concurrent, bool spendControls = false) {
    providers::ProviderConfig config;
    config.kind = providers::ProviderKind::openai;
    config.apiKey = "bench";
    config.baseUrl = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    config.proxy = http::ProxySettings{};
    // A service running this many runs at once keeps as many connections warm (round 1 opens them).
    config.maxIdleConnections = static_cast<std::size_t>(std::max(concurrent, 1));
    if (spendControls) {
        config.rateLimits.maxConcurrent = 100'000;
        config.rateLimits.requestsPerMinute = 100'000'000;
        config.rateLimits.tokensPerMinute = 100'000'000'000;
    }
    auto provider = providers::makeProvider(config);
    if (!provider) {
        throw std::runtime_error(provider.error().describe());
    }
    auto tool = tools::ToolBuilder::create("echo")
                    .description("Echo the text back")
                    .param("text", "string", "Text to echo", {.required = true})
                    .handler(echo)
                    .build();
    // The same single tool the peers offer: no built-in tools.
    agent::ToolsConfig only;
    auto builder = agent::Agent::create();
    builder.withProvider(std::move(*provider)).withTools(std::move(only)).withTool(std::move(tool));
    if (spendControls) {
        builder.withPrices(std::make_shared<const llm::PriceTable>(
            llm::PriceTable::fromJson(
                json{{"currency", "USD"}, {"models", {{"gpt-4.1", {{"input", 2.0}, {"output", 8.0}}}}}})
                .value()));
        agent::RunBudget budget;
        budget.maxTotalTokens = 1'000'000;
        budget.maxCost = 1'000;
        budget.maxModelCalls = 100;
        budget.maxToolCalls = 100;
        budget.maxDuration = std::chrono::minutes(10);
        builder.withBudget(budget);
    }
    auto built = builder.build();
    if (!built) {
        throw std::runtime_error(built.error().describe());
    }
    return std::move(*built);
}

double seconds(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

long peakRssKb() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

struct Batch {
    int ok = 0;
    double cpu = 0;     // user plus system time of this process (the peer is another process), s
    double system = 0;  // s
    double wall = 0;    // s
};

// A reading of this process's CPU times (one getrusage call) and of the clock.
struct Sample {
    double cpu = 0;
    double system = 0;
    std::chrono::steady_clock::time_point wall;
};

Sample sampleNow() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return Sample{seconds(usage.ru_utime) + seconds(usage.ru_stime), seconds(usage.ru_stime),
                  std::chrono::steady_clock::now()};
}

// Fills in the times of `batch` since `start`.
void measureSince(const Sample& start, Batch& batch) {
    const Sample end = sampleNow();
    batch.cpu = end.cpu - start.cpu;
    batch.system = end.system - start.system;
    batch.wall = std::chrono::duration<double>(end.wall - start.wall).count();
}

// Spawns `count` runs at once (1 = one at a time, `rounds` times) and runs the io_context until all end.
Batch runBatch(boost::asio::io_context& io, const agent::Agent& agent, int count) {
    Batch batch;
    const Sample start = sampleNow();
    for (int i = 0; i < count; ++i) {
        boost::asio::co_spawn(
            io, agent.run("Say hello"), [&batch](std::exception_ptr error, agent::RunResult result) {
                if (!error && result.success() && result.output == "done" && result.toolCalls.size() == 1) {
                    ++batch.ok;
                } else if (batch.ok == 0 && !error && result.error()) {
                    std::cerr << "run failed: " << result.error()->describe() << "\n";
                }
            });
    }
    io.run();
    io.restart();
    measureSince(start, batch);
    return batch;
}

// The two request bodies the agent sends, written by the same codec: the question, then the question with
// the tool call and its result.
std::pair<std::string, std::string> agentBodies(const agent::Agent& agent) {
    llm::ModelRequest request;
    request.tools = agent.toolSpecs();
    request.messages.push_back(llm::Message::user("Say hello"));
    const providers::WireFormat& format = providers::wire::openai();
    providers::CodecOptions options;
    options.model = format.defaultModel;
    const auto encode = [&] {
        return format.encodeRequest(request, options, format.encodeTools(request.tools, options));
    };
    std::string first = encode().body;
    request.messages.push_back(
        llm::Message::assistant("", {llm::ToolCall{"call_1", "echo", {{"text", "hello"}}}}));
    request.messages.push_back(llm::Message::toolResult("call_1", "echo", "hello"));
    std::string second = encode().body;
    return {std::move(first), std::move(second)};
}

// One run, alone on the io_context; 1 when it succeeded.
int runOne(boost::asio::io_context& io, const agent::Agent& agent) {
    int ok = 0;
    boost::asio::co_spawn(
        io, agent.run("Say hello"), [&ok](std::exception_ptr error, agent::RunResult result) {
            ok =
                !error && result.success() && result.output == "done" && result.toolCalls.size() == 1 ? 1 : 0;
        });
    io.run();
    io.restart();
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    const int sequential = argc > 1 ? std::atoi(argv[1]) : 2000;
    const int concurrent = argc > 2 ? std::atoi(argv[2]) : 1000;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
    try {
        // 1,000 connections at once need more descriptors than the usual soft limit of 1,024.
        rlimit files{};
        ::getrlimit(RLIMIT_NOFILE, &files);
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);

        char scriptFile[] = "/tmp/reagent-provider-bench-XXXXXX.json";
        const int fd = ::mkstemps(scriptFile, 5);
        ::close(fd);
        std::ofstream(scriptFile) << script().dump();
        Peer peer(scriptFile);
        std::remove(scriptFile);

        boost::asio::io_context io;
        const agent::Agent agent = buildAgent(peer.port(), concurrent);
        runBatch(io, agent, 20);  // warm-up: connections, allocator

        // One reading before and after all the sequential runs: per-run readings would add their own cost.
        Batch one;
        const Sample sequentialStart = sampleNow();
        for (int i = 0; i < sequential; ++i) {
            one.ok += runOne(io, agent);
        }
        measureSince(sequentialStart, one);
        std::printf(
            "sequential: %d/%d runs ok, CPU %.1f us/run in the agent process (%.1f us user, %.1f us "
            "kernel), wall %.1f us/run\n",
            one.ok, sequential, one.cpu / sequential * 1e6, (one.cpu - one.system) / sequential * 1e6,
            one.system / sequential * 1e6, one.wall / sequential * 1e6);

        // The same runs with the spending controls in use (prices, a budget, a rate limiter), in blocks
        // alternating with runs without them, so that both see the same machine: the ratio is the cost.
        const agent::Agent controlled = buildAgent(peer.port(), concurrent, true);
        runBatch(io, controlled, 20);
        Batch plain;
        Batch spent;
        constexpr int kBlock = 100;
        for (int done = 0; done < sequential; done += kBlock) {
            const int block = std::min(kBlock, sequential - done);
            for (auto [target, which] : {std::pair{&plain, &agent}, std::pair{&spent, &controlled}}) {
                Batch part;
                const Sample blockStart = sampleNow();
                for (int i = 0; i < block; ++i) {
                    part.ok += runOne(io, *which);
                }
                measureSince(blockStart, part);
                target->ok += part.ok;
                target->cpu += part.cpu;
            }
        }
        std::printf(
            "sequential with prices, a budget (every limit, wall time included) and a rate limiter: %d/%d "
            "runs ok, CPU %.1f us/run against %.1f us/run without them in alternating blocks: %.3fx\n",
            spent.ok, sequential, spent.cpu / sequential * 1e6, plain.cpu / sequential * 1e6,
            spent.cpu / plain.cpu);

        // The floor: the same two exchanges by a bare Beast client (no agent, no JSON), one pair at a time.
        const auto [first, second] = agentBodies(agent);
        Batch bare;
        const Sample bareStart = sampleNow();
        bare.ok = bench::bareExchangePairs(peer.port(), "/v1/chat/completions", first, second, sequential);
        measureSince(bareStart, bare);
        std::printf(
            "bare Beast loop, same two exchanges: %d/%d pairs ok, CPU %.1f us/pair (%.1f us user, %.1f us "
            "kernel); a reagent run costs %.2fx that\n",
            bare.ok, sequential, bare.cpu / sequential * 1e6, (bare.cpu - bare.system) / sequential * 1e6,
            bare.system / sequential * 1e6, one.cpu / bare.cpu);

        for (int round = 1; round <= rounds; ++round) {
            const Batch many = runBatch(io, agent, concurrent);
            std::printf(
                "concurrent round %d (%s): %d/%d runs ok, %d in flight, wall %.3f s, %.0f runs/s, CPU %.1f "
                "us/run "
                "(%.1f us kernel)\n",
                round, round == 1 ? "opening connections" : "warm connections", many.ok, concurrent,
                concurrent, many.wall, concurrent / many.wall, many.cpu / concurrent * 1e6,
                many.system / concurrent * 1e6);
        }
        std::printf("peak RSS: %.1f MB\n", static_cast<double>(peakRssKb()) / 1024.0);
        return one.ok == sequential && spent.ok == sequential && plain.ok == sequential ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "provider_run_bench: " << e.what() << "\n";
        return 1;
    }
}
