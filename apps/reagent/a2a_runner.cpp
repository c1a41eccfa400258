#include "a2a_runner.hpp"

#include <utility>
#include <variant>

namespace reagent::cli {

namespace {

// A progress line for a remote caller: the tool calls and the tools' own progress reports.
std::string progressLine(const agent::AgentEvent& event) {
    if (const auto* calling = std::get_if<tools::ToolCalling>(&event)) {
        return calling->action.empty() ? "calling " + calling->tool : calling->action;
    }
    if (const auto* progressed = std::get_if<tools::ToolProgressed>(&event)) {
        return progressed->tool + ": " + progressed->progress.message;
    }
    return {};
}

}  // namespace

// One agent serves every task: runs are independent (each starts from a fresh conversation), and each
// run's own events stream to its task as progress, however many tasks run at once.
Task<expected<std::string, std::string>> runAgentTask(agent::Agent agent, std::string prompt,
                                                      a2a::ProgressSink progress, SpanContext trace) {
    agent::RunOptions options;
    options.traceParent = std::move(trace);
    if (progress) {
        options.onEvent = [progress = std::move(progress)](const agent::AgentEvent& event) {
            if (auto line = progressLine(event); !line.empty()) {
                progress(std::move(line));
            }
        };
    }
    auto running = agent.run(std::move(prompt), std::move(options));
    agent::RunResult result = co_await std::move(running);
    if (result.success()) {
        co_return std::move(result.output);
    }
    co_return fail(result.error() ? result.error()->describe() : std::string("the run failed"));
}

a2a::TracedRunFunction sharedAgentRunner(agent::Agent agent) {
    return [agent = std::move(agent)](std::string prompt, a2a::TaskContext context) {
        return runAgentTask(agent, std::move(prompt), std::move(context.progress), std::move(context.trace));
    };
}

}  // namespace reagent::cli
