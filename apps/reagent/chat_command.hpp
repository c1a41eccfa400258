#pragma once
// `reagent chat`: an interactive conversation with the agent `run` builds.

#include <boost/asio/io_context.hpp>
#include <string>

#include "commands.hpp"

namespace reagent::cli {

struct ChatOptions {
    /// The agent's settings, as for `run` (the prompt is unused).
    RunOptions run;
    /// `--system`: the system prompt added to the agent's.
    std::string system;
    /// `--trace-file`: where the turns' spans are appended (OTLP/JSON lines); empty: none.
    std::string traceFile;
};

/// Reads one user turn per line from stdin until its end or `/exit`; `/reset` forgets the history. Each
/// answer streams to stdout as the model writes it; the trace (unless --quiet) goes to stderr. Ctrl-C
/// cancels the turn in progress, a second one quits. Returns the exit code.
int chatCommand(boost::asio::io_context& io, const ChatOptions& options);

}  // namespace reagent::cli
