#include "commands/run_process.hpp"

#include <boost/asio/this_coro.hpp>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/run_to_end.hpp"

namespace reagent::builtins::detail {

Task<expected<CommandResult, WorkspaceError>> runProcess(ProcessSpec spec) {
    if (isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::cancelled, "cancelled before '" + spec.program + "' started"});
    }
    SubprocessOptions options;
    options.program = spec.program;
    options.args = std::move(spec.args);
    options.environment = std::move(spec.environment);
    options.workingDirectory = std::move(spec.workingDirectory);
    // Nothing the command starts outlives it, also what left its group (setsid, a double fork).
    options.containDescendants = true;
    const auto started = std::chrono::steady_clock::now();
    RunLimits limits;
    limits.deadline = started + spec.timeout;
    limits.stdoutLimit.maxBytes = spec.maxOutputBytes;
    limits.stderrLimit.maxBytes = spec.maxOutputBytes;
    // Nothing is written to stdin: the command reads end of file at once.
    auto running = runToEnd(std::move(options), std::move(limits));
    auto ran = co_await std::move(running);
    if (!ran) {
        co_return fail(WorkspaceError{WorkspaceErrc::spawn_failed, std::move(ran.error().message)});
    }
    if (ran->cancelled) {
        co_return fail(WorkspaceError{WorkspaceErrc::cancelled,
                                      "'" + spec.program + "' was cancelled; its process group was killed"});
    }
    CommandResult result;
    result.exitCode = ran->exitCode;
    result.signal = ran->signal;
    result.timedOut = ran->timedOut;
    result.stdoutText = std::move(ran->stdoutText);
    result.stderrText = std::move(ran->stderrText);
    result.stdoutCut = ran->stdoutDropped;
    result.stderrCut = ran->stderrDropped;
    result.duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    co_return result;
}

std::vector<std::string> withoutGitVariables(std::vector<std::string> environment) {
    std::erase_if(environment, [](const std::string& entry) { return entry.rfind("GIT_", 0) == 0; });
    return environment;
}

}  // namespace reagent::builtins::detail
