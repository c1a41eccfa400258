#pragma once
// An agent run over HTTP as the benchmarks make it (provider_run_bench, concurrency_bench): the loopback
// provider peer (tests/peers/provider_peer.py) as a child process, scripted in the OpenAI Chat Completions
// format to answer a question with a call of the `echo` tool and the tool's result with "done"; the agent
// that runs against it; and the two request bodies of such a run, for the bare Beast client
// (bare_http_loop.hpp) to send.

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "reagent/agent/agent.hpp"
#include "reagent/telemetry/telemetry.hpp"

namespace bench {

/// The provider peer playing the echo run's model, on an ephemeral port of 127.0.0.1. Starting it throws
/// std::runtime_error when the peer does not start (no python3, no port on its first line); destroying it
/// closes the peer's stdin, on which it exits, and waits for it.
class ProviderPeer {
  public:
    ProviderPeer();
    ~ProviderPeer();

    [[nodiscard]] int port() const { return port_; }

  private:
    pid_t pid_ = -1;
    int stdin_ = -1;
    int port_ = 0;
    // Its stdout, closed after the peer has exited (and what makes a peer impossible to copy).
    std::unique_ptr<FILE, int (*)(FILE*)> reader_{nullptr, &std::fclose};
};

/// An agent whose model is the peer at `port` (OpenAI format) and whose one tool is `echo`, keeping up to
/// `concurrent` connections warm. With `spendControls`: a price table, a budget with every limit set and a
/// rate limiter with every limit set, none of them reached, so that each run pays for its accounting and
/// none waits. Throws std::runtime_error when the agent cannot be built.
/// `telemetry`: traced into it (null: not traced).
reagent::agent::Agent buildHttpAgent(int port, int concurrent, bool spendControls = false,
                                     std::shared_ptr<reagent::telemetry::Telemetry> telemetry = nullptr);

/// Whether a run ended as the peer scripts it: "done" after one tool call.
bool endedAsScripted(const std::exception_ptr& error, const reagent::agent::RunResult& result);

/// The two request bodies `agent` sends in a run, written by the same codec: the question, then the
/// question with the tool call and its result.
std::pair<std::string, std::string> agentBodies(const reagent::agent::Agent& agent);

/// One run of `agent`, alone on `io`; 1 when it ended as scripted.
int runOne(boost::asio::io_context& io, const reagent::agent::Agent& agent);

}  // namespace bench
