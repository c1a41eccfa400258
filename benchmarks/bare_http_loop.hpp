#pragma once
// The floor under an agent run over HTTP (provider_run_bench, concurrency_bench): the two HTTP exchanges
// of an agent run (a request answered by a tool call, then one answered by the text), made by a bare Beast
// client on one keep-alive connection, with no agent, no JSON and no error handling beyond a check of the
// status.

#include <memory>
#include <string>

namespace bench {

/// A bare Beast client connected to 127.0.0.1:`port`, on an io_context of its own, that makes pairs of POST
/// exchanges to `target` with the bodies given; the connection stays open between calls of pairs(), so
/// that blocks of pairs can alternate with blocks of agent runs. Throws when it cannot connect, and from
/// pairs() when the connection fails.
class BareExchanges {
  public:
    BareExchanges(int port, std::string target, std::string first, std::string second);
    ~BareExchanges();

    /// Makes `count` pairs one after another; returns how many got two 200 answers.
    int pairs(int count);

    struct State;  // the io_context, the connection and the bodies (bare_http_loop.cpp)

  private:
    std::unique_ptr<State> state_;
};

/// Connects, then makes `runs` pairs of exchanges (BareExchanges above); returns how many pairs got two 200
/// answers.
int bareExchangePairs(int port, const std::string& target, const std::string& first,
                      const std::string& second, int runs);

}  // namespace bench
