#pragma once
// Private to libs/agent: the coroutine driver of the sans-io loop, shared by `Agent::run` and
// `Agent::resume`.

#include <chrono>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "agent_state.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/agent/run_journal.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "run_meta_tools.hpp"
#include "run_trace.hpp"

namespace reagent::agent::detail {

/// The step the driver takes next: the loop's action, but for its end, whose result has moved to
/// `RunContext::result` (`std::monostate`). A `Finish` carries a whole `RunResult`: kept as the pending
/// step, it would make every suspended run hold one more. A model call is held on the heap until its
/// request goes to the provider (then the step is `std::monostate` until the reply): its request is the
/// largest of the steps, and a run waiting for its model would otherwise keep room for it.
using Step = std::variant<std::monostate, std::unique_ptr<CallModel>, RunTools, Compact>;

/// Everything one run holds while it waits: its coroutine frames keep a reference to it, and it outlives
/// every step they await.
struct RunContext {
    /// The loop is made in place from `loopArgs` (`ReactLoop`'s constructor's, or a restored loop).
    template <class... LoopArgs>
    RunContext(std::shared_ptr<Agent::State> agent, std::shared_ptr<RunEvents> runEvents,
               LoopArgs&&... loopArgs)
        : state(std::move(agent)), events(std::move(runEvents)), loop(std::forward<LoopArgs>(loopArgs)...) {
        status.loop = &loop;
        status.memory = &state->workingMemory;
    }
    RunContext(const RunContext&) = delete;
    RunContext& operator=(const RunContext&) = delete;

    std::shared_ptr<Agent::State> state;
    std::shared_ptr<RunEvents> events;
    ReactLoop loop;
    Step next;
    /// Set once the loop ended (allocated then: a suspended run does not carry an empty one).
    std::unique_ptr<RunResult> result;
    std::vector<std::string> warnings;
    /// What `context-status` reads during a batch (`attachRunStatus`).
    RunStatusSource status;
    /// The run's spans, when its agent traces (`AgentBuilder::withTelemetry`); null otherwise.
    std::unique_ptr<RunTrace> trace;
    /// Where the run journals its steps (`RunOptions::journal`); null otherwise.
    std::shared_ptr<RunJournal> journal;
    /// Why the journal refused a step of the batch in progress; empty while it has refused none.
    std::string journalFailure;
};

/// Takes `action` as the run's next step; an end's result moves to `run.result` (with the saved state of a
/// run that waits for `Agent::resume`).
void advance(RunContext& run, LoopAction action);

/// Drives `run` from its next step to its end; the task delivers how the drive ended, for `finishRun`.
[[nodiscard]] Task<expected<void, EffectError>> driveToEnd(RunContext& run);

/// The run's result, completed, to be moved out. A drive that did not end by itself (`driven`: past the
/// deadline, cancelled, or by an exception from a component that broke its contract) still yields one
/// holding what the loop had recorded. Then its warnings and its duration since `started` are set, and
/// `RunFinished` is emitted.
[[nodiscard]] RunResult& finishRun(RunContext& run, const expected<void, EffectError>& driven,
                                   std::chrono::steady_clock::time_point started);

/// Sets the run's deadline: its own `maxDuration` from `started`, or its caller's deadline if earlier.
void setDeadline(RunLedger& ledger, std::chrono::steady_clock::time_point started);

}  // namespace reagent::agent::detail
