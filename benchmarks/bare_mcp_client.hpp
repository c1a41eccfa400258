#pragma once
// An MCP stdio call as the benchmarks time it (mcp_stdio_bench, concurrency_bench): sequential
// `tools/call` round trips against server-everything, each timed alone, by reagent's mcp::Client and by a
// bare client (posix_spawn with pipes, the initialize handshake, then write the request line and read lines
// until the reply; blocking read/write, no JSON parsing): the server's own floor. Built only where node
// and the pinned MCP peers are (REAGENT_NODE, REAGENT_MCP_NODE_MODULES).

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/mcp/client.hpp"

namespace bench {

using Clock = std::chrono::steady_clock;

/// What server-everything's `echo` answers to {"message":"ping"}.
inline constexpr std::string_view kEchoReply = "Echo: ping";

/// The server the clients talk to: node server-everything over stdio, as a command line.
std::vector<std::string> everythingArgv();
/// The same server as reagent's client is configured for it.
reagent::mcp::ServerConfig everything();

/// This process's CPU time so far, user plus kernel (the servers are other processes), s. The kernel's
/// split between the two is sampled by ticks, too coarse per call: only the sum is used.
double cpuSeconds();

/// The figures of a series of calls (or runs). Quantiles as the SDK's anchor script takes them: the sorted
/// sample at floor(p * n).
struct Figures {
    double median = 0;  // latency, us
    double p99 = 0;     // us
    double cpu = 0;     // this process's CPU per call or run, us; 0 when not measured (the sdk)
    double rate = 0;    // calls or runs per second over the timed span
};

/// Latencies of timed calls and the CPU and wall time over them, added up over one or more spans.
struct Samples {
    std::vector<double> latencies;  // us, one a call
    double cpu = 0;                 // this process's, s
    double wall = 0;                // s

    void add(const Samples& other);
    /// Throws std::runtime_error when there are no latencies.
    [[nodiscard]] Figures figures() const;
};

/// Times `count` calls made one after another: each call's latency, and this process's CPU and the wall
/// time from the timer's making to the end of the last call. Use: `while (timer.next()) { call }`.
class CallTimer {
  public:
    explicit CallTimer(int count);
    /// Ends the call under way, if any; true when another is to start (its clock starts now).
    bool next();
    /// The samples, once next() has returned false.
    [[nodiscard]] Samples samples() const { return samples_; }

  private:
    std::size_t count_;
    Samples samples_;
    double cpuStart_;
    Clock::time_point wallStart_;
    std::optional<Clock::time_point> callStart_;
};

/// Times `count` calls of `call` one after another (`call()` throws when a call fails).
template <class Call>
Samples timeCalls(int count, Call call) {
    CallTimer timer(count);
    while (timer.next()) {
        call();
    }
    return timer.samples();
}

/// The same for `call()` returning a reagent::Task<void>; `call` is kept in this coroutine's frame.
template <class Call>
reagent::Task<Samples> timeCallTasks(int count, Call call) {
    CallTimer timer(count);
    while (timer.next()) {
        co_await call();
    }
    co_return timer.samples();
}

/// What a timed call sends, and what it must answer.
struct McpCall {
    std::string tool = "echo";
    nlohmann::json arguments = {{"message", "ping"}};
    std::string reply = std::string(kEchoReply);
};

/// Connects reagent's client to `config`'s server; throws std::runtime_error when it cannot.
reagent::Task<std::shared_ptr<reagent::mcp::Client>> connectClient(reagent::mcp::ServerConfig config);

/// One call of `call` by `client`; throws std::runtime_error when it fails or answers otherwise.
reagent::Task<void> callOnce(std::shared_ptr<reagent::mcp::Client> client,
                             std::shared_ptr<const McpCall> call);

/// The bare client: a child server on pipes (stderr to /dev/null), read and written blocking. Starting it
/// makes the initialize handshake; destroying it closes the server's stdin, on which it exits, and waits
/// for it. Throws std::runtime_error when the server does not start or a read or write fails.
class BareMcpClient {
  public:
    /// With `socketInput`, the server's stdin is one end of a socketpair (as reagent's Subprocess made it
    /// before it used a pipe).
    explicit BareMcpClient(const std::vector<std::string>& argv, bool socketInput = false);
    ~BareMcpClient();

    /// One `tools/call echo {"message":"ping"}`; throws when the reply lacks kEchoReply.
    void callEcho();

  private:
    class Child;
    std::unique_ptr<Child> child_;
    int nextId_ = 1;
};

}  // namespace bench
