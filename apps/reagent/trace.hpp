#pragma once
/// \file
/// \brief `TracePrinter`: the human-readable trace of a run, driven by agent events.

#include <chrono>
#include <map>
#include <ostream>
#include <string>

#include "reagent/agent/agent_event.hpp"
#include "terminal_text.hpp"

namespace reagent::cli {

/// \brief Prints each model turn, each tool call as it starts (with its action text) and its result or
/// error with its duration.
///
/// Tool output is untrusted text: it is shown as a single-line excerpt, never interpreted.
class TracePrinter {
  public:
    explicit TracePrinter(std::ostream& out) : out_(&out) {}

    void operator()(const agent::AgentEvent& event);

  private:
    void print(const agent::RunStarted& event);
    void print(const agent::ModelResponded& event);
    void print(const tools::ToolCalling& event);
    void print(const tools::ToolCalled& event);
    void print(const tools::ToolFailed& event);
    void print(const agent::RunFinished& event);
    void print(const agent::TextDelta& event);
    void print(const agent::ToolCallDelta& event);
    void print(const agent::ToolResultCompressed& event);
    void print(const agent::MemoryWarning& event);
    void print(const agent::ModelRetrying& event);
    void print(const agent::ModelFellBack& event);
    void print(const agent::ModelThrottled& event);
    void print(const tools::ToolProgressed& event);
    void print(const agent::ServerLogged& event);
    void print(const agent::SubAgentEvent& event);
    void print(const agent::OutputRejected& event);
    void print(const agent::ContextCompacted& event);
    /// Nothing: the streamed text already shows the answer as it grows.
    void print(const agent::PartialOutput& /*event*/) {}

    std::ostream* out_;
    int turns_ = 0;
    /// The current turn's text has been printed as it streamed in.
    bool streamed_ = false;
    /// The streamed text of the current turn, made safe for the terminal piece by piece.
    StreamedTerminalText streamedText_;
    /// When each call in flight started, to time calls that fail (a failure event carries no duration);
    /// keyed by `nest_` and the call's id, since a sub-agent's call ids may repeat the parent's.
    std::map<std::string, std::chrono::steady_clock::time_point> started_;
    /// Before the lines of a sub-agent's events: "  <tool> › ", then "<tool> › " per deeper level; empty
    /// at the top.
    std::string nest_;
};

/// \brief `text` made safe for a terminal (`terminalSafe`) on one line, cut to `limit` bytes (at a UTF-8
/// boundary) with "..." when longer.
[[nodiscard]] std::string oneLine(std::string_view text, std::size_t limit = 100);

}  // namespace reagent::cli
