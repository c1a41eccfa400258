// A full agent run over HTTP: two model turns (a tool call, then the answer) and one tool, against the
// loopback provider peer (tests/peers/provider_peer.py) speaking the OpenAI Chat Completions format.
//
// Reports the CPU time the agent process spends per run (getrusage(RUSAGE_SELF): the peer is another
// process and is not counted), runs one after another and 1,000 at once on one io_context, and the peak
// RSS. Targets: < 50 us CPU per run; 1,000 runs in flight in < 100 MB.
//
//   provider_run_bench [sequential-runs] [concurrent-runs] [rounds]     (defaults 2000 1000 3)

#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bare_http_loop.hpp"
#include "peer_process.hpp"
#include "provider_peer_process.hpp"
#include "reagent/reagent.hpp"

namespace {

using namespace reagent;

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
        boost::asio::co_spawn(io, agent.run("Say hello"),
                              [&batch](std::exception_ptr error, agent::RunResult result) {
                                  if (bench::endedAsScripted(error, result)) {
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

// `runs` runs of each agent, one after another, in blocks of 100 alternating between them, so that all see
// the same machine; each batch gets its agent's runs and CPU.
void alternate(boost::asio::io_context& io, int runs,
               std::initializer_list<std::pair<Batch*, const agent::Agent*>> agents) {
    constexpr int kBlock = 100;
    for (int done = 0; done < runs; done += kBlock) {
        const int block = std::min(kBlock, runs - done);
        for (const auto& [target, which] : agents) {
            Batch part;
            const Sample blockStart = sampleNow();
            for (int i = 0; i < block; ++i) {
                part.ok += bench::runOne(io, *which);
            }
            measureSince(blockStart, part);
            target->ok += part.ok;
            target->cpu += part.cpu;
        }
    }
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

        const bench::ProviderPeer peer;

        boost::asio::io_context io;
        const agent::Agent agent = bench::buildHttpAgent(peer.port(), concurrent);
        runBatch(io, agent, 20);  // warm-up: connections, allocator

        // One reading before and after all the sequential runs: per-run readings would add their own cost.
        Batch one;
        const Sample sequentialStart = sampleNow();
        for (int i = 0; i < sequential; ++i) {
            one.ok += bench::runOne(io, agent);
        }
        measureSince(sequentialStart, one);
        std::printf(
            "sequential: %d/%d runs ok, CPU %.1f us/run in the agent process (%.1f us user, %.1f us "
            "kernel), wall %.1f us/run\n",
            one.ok, sequential, one.cpu / sequential * 1e6, (one.cpu - one.system) / sequential * 1e6,
            one.system / sequential * 1e6, one.wall / sequential * 1e6);

        // The same runs with the spending controls in use (prices, a budget, a rate limiter), in blocks
        // alternating with runs without them, so that both see the same machine: the ratio is the cost.
        const agent::Agent controlled = bench::buildHttpAgent(peer.port(), concurrent, true);
        runBatch(io, controlled, 20);
        Batch plain;
        Batch spent;
        alternate(io, sequential, {{&plain, &agent}, {&spent, &controlled}});
        std::printf(
            "sequential with prices, a budget (every limit, wall time included) and a rate limiter: %d/%d "
            "runs ok, CPU %.1f us/run against %.1f us/run without them in alternating blocks: %.3fx\n",
            spent.ok, sequential, spent.cpu / sequential * 1e6, plain.cpu / sequential * 1e6,
            spent.cpu / plain.cpu);

        // The same runs traced, in blocks alternating with untraced ones: with every trace sampled out (the
        // metrics still recorded) and with every span and metric exported to a loopback OTLP receiver
        // from a second thread, as a server's exporter runs. Process CPU: the exporter's is counted.
        {
            const reagent::test::PeerProcess receiver(std::string(REAGENT_PEERS_DIR) + "/otlp_receiver.py",
                                                      std::vector<std::string>{});
            boost::asio::io_context exports;
            auto guard = boost::asio::make_work_guard(exports);
            std::thread exporter([&exports] { exports.run(); });
            const auto telemetryFor = [&](telemetry::SamplerKind sampler) {
                telemetry::TelemetryConfig config;
                config.sampler.kind = sampler;
                config.enabled = true;
                config.traces.endpoint = receiver.url("/v1/traces");
                config.metricsEnabled = true;
                config.metrics.endpoint = receiver.url("/v1/metrics");
                return telemetry::Telemetry::create(exports.get_executor(), config).value();
            };
            const auto sampledOut = telemetryFor(telemetry::SamplerKind::always_off);
            const auto fullyOn = telemetryFor(telemetry::SamplerKind::always_on);
            const agent::Agent quiet = bench::buildHttpAgent(peer.port(), concurrent, false, sampledOut);
            const agent::Agent traced = bench::buildHttpAgent(peer.port(), concurrent, false, fullyOn);
            runBatch(io, quiet, 20);
            runBatch(io, traced, 20);
            Batch off;
            Batch zero;
            Batch all;
            alternate(io, sequential, {{&off, &agent}, {&zero, &quiet}, {&all, &traced}});
            for (const auto& shut : {sampledOut, fullyOn}) {
                (void)boost::asio::co_spawn(exports, shut->shutdown(std::chrono::seconds(30)),
                                            boost::asio::use_future)
                    .get();
            }
            guard.reset();
            exporter.join();
            std::printf(
                "sequential traced, alternating blocks: %.1f us/run untraced; every trace sampled out %.1f "
                "us "
                "(%.3fx); every span and metric exported %.1f us (%.3fx, %llu spans, %llu dropped); %d/%d "
                "and %d/%d runs ok\n",
                off.cpu / sequential * 1e6, zero.cpu / sequential * 1e6, zero.cpu / off.cpu,
                all.cpu / sequential * 1e6, all.cpu / off.cpu,
                static_cast<unsigned long long>(fullyOn->stats().exported),
                static_cast<unsigned long long>(fullyOn->stats().dropped), zero.ok, sequential, all.ok,
                sequential);
        }

        // The floor: the same two exchanges by a bare Beast client (no agent, no JSON), one pair at a time.
        const auto [first, second] = bench::agentBodies(agent);
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
