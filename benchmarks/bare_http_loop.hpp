#pragma once
// The floor under provider_run_bench: the two HTTP exchanges of an agent run (a request answered by a
// tool call, then one answered by the text), made by a bare Beast client on one keep-alive connection,
// with no agent, no JSON and no error handling beyond a check of the status.

#include <string>

namespace bench {

/// Makes `runs` pairs of POST exchanges with the bodies given against 127.0.0.1:`port` `target`, one pair
/// after another on one io_context; returns how many pairs got two 200 answers.
int bareExchangePairs(int port, const std::string& target, const std::string& first,
                      const std::string& second, int runs);

}  // namespace bench
