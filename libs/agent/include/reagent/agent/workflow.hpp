#pragma once
/// \file
/// \brief `Workflow`: agents and functions composed in sequence, in parallel or behind a router, run as
/// one task or as one tool.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/agent/agent_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::telemetry {
class Telemetry;
}  // namespace reagent::telemetry

namespace reagent::agent {

/// \brief What a step, a route chooser or a whole workflow produces: text, or why there is none.
using StepResult = expected<std::string, tools::ToolError>;

/// \brief A fixed composition of steps (agents, functions, other workflows): `sequential`, `parallel` or
/// `router`. A cheap, immutable value: copies share the same steps, and one workflow can run many inputs,
/// one after another or concurrently.
///
/// \par Errors
/// `run` never throws. A step that fails (an error value, an exception, a sub-agent's run that did not
/// succeed) fails the workflow with a `tools::ToolError` of code `failed` (`cancelled` when the workflow
/// itself was cancelled) whose message names the workflow and the step ("workflow 'research' step 2
/// 'writer' failed: ..."), and whose `cause` is an `ErrorCause` of domain `workflow` chaining the step's
/// own error (`stepError.asCause()`), so `rootCause()` is the original error: a sub-agent's
/// `agent/provider_failed`, a thrown `exception`, a nested workflow's innermost cause. Codes of the
/// `workflow` cause (its `details` hold `workflow`, `kind` and, for a step, `step` and `position`):
/// - `step_failed`: a step (or the chosen route) failed; the step's error is the next cause;
/// - `choose_failed`: a router's chooser failed; its error is the next cause;
/// - `unknown_route`: the chooser named no route; `details.route` and `details.routes`;
/// - `combine_failed`: a parallel workflow's `combine` failed; its error is the next cause;
/// - `cancelled`: the workflow was cancelled before a step started.
///
/// \par Cancellation
/// Cancelling the coroutine awaiting `run` (or the tool call of `asTool`) reaches every step in flight;
/// steps not started never start.
///
/// \par Thread safety
/// Use from one strand, like the agents it runs.
class Workflow {
  public:
    /// \brief A step's work: its input text in, its output text (or error) out. It must react to
    /// cancellation (any Asio wait does). An exception it throws becomes the step's `ToolErrc::exception`.
    using StepFunction = std::function<Task<StepResult>(std::string input)>;

    /// \brief A named unit of a workflow. Names are unique within a workflow (a router's routes are its
    /// steps' names).
    struct Step {
        std::string name;
        StepFunction run;

        /// \brief One run of `agent` per input, the input as its prompt: its answer, or the error
        /// `Agent::asTool` gives for a run that did not succeed (cause domain `agent`).
        [[nodiscard]] static Step fromAgent(std::string name, Agent agent);
        /// \brief A nested workflow; `name` empty: the workflow's name.
        [[nodiscard]] static Step fromWorkflow(std::string name, Workflow workflow);
        /// \brief Any asynchronous function. A `tools::Tool` becomes a step this way: call its handler
        /// with the arguments it expects (there is no tool step, since a tool's arguments are not a text).
        [[nodiscard]] static Step fromFunction(std::string name, StepFunction function);
    };

    /// \brief One parallel step's output, for `ParallelOptions::combine`.
    struct StepOutput {
        std::string step;
        std::string output;
    };

    /// \brief How a `parallel` workflow runs its steps and joins their outputs.
    struct ParallelOptions {
        /// Steps running at once; the tool executor's cap (`ExecutionPolicy::maxParallel`). Invariant: >= 1.
        /// Default 3.
        std::size_t maxParallel = 3;
        /// Joins the outputs, given in step order. Empty (default): a JSON array
        /// `[{"step": name, "output": text}, ...]` in step order. An error it returns (or an exception it
        /// throws) fails the workflow (`combine_failed`).
        std::function<StepResult(std::vector<StepOutput> outputs)> combine{};
    };

    /// \brief How a `router` picks its route.
    struct Route {
        /// \brief Names the route for `input` among `routes` (the routes' names, in order). The answer is
        /// untrusted text: the router only compares it with the names (see `router`).
        using Chooser = std::function<Task<StepResult>(std::string input, std::vector<std::string> routes)>;

        /// \brief A classifier agent: one run per input, prompted with the routes' names and the input,
        /// whose answer names the route. A run that does not succeed is the chooser's error (domain
        /// `agent`).
        [[nodiscard]] static Chooser byAgent(Agent classifier);
    };

    /// \brief Each step's output is the next step's input; the last step's output is the workflow's. The
    /// first failure stops it.
    ///
    /// \par Errors
    /// `AgentErrc::invalid_config` listing every problem: a name that is not a valid tool name (the
    /// workflow's `asTool` is named after it), no steps, a step without a name or a function, two steps
    /// with the same name.
    [[nodiscard]] static expected<Workflow, AgentError> sequential(std::string name, std::vector<Step> steps);

    /// \brief Every step gets the same input, at most `options.maxParallel` at once
    /// (`parallelMapUntilError`); the output joins theirs (`ParallelOptions::combine`). A step that fails
    /// fails the workflow with its error and cancels the steps still running (those not started never start).
    ///
    /// \par Errors
    /// As `sequential`, and `maxParallel` of 0.
    [[nodiscard]] static expected<Workflow, AgentError> parallel(std::string name, std::vector<Step> steps,
                                                                 ParallelOptions options);
    /// \brief `parallel` with the default `ParallelOptions` (3 at once, outputs as a JSON array).
    [[nodiscard]] static expected<Workflow, AgentError> parallel(std::string name, std::vector<Step> steps);

    /// \brief Asks `choose` which route takes the input, then runs that route's step on the input; its
    /// output is the workflow's. The chooser's answer is matched against the routes' names: exactly, then
    /// ignoring case, surrounding spaces, quotes, backticks, asterisks and a final period. A name that
    /// matches no route is an `unknown_route` error listing the routes.
    ///
    /// \par Errors
    /// As `sequential` (the steps are the routes), and an empty `choose`.
    [[nodiscard]] static expected<Workflow, AgentError> router(std::string name, Route::Chooser choose,
                                                               std::vector<Step> routes);

    /// \brief Runs the workflow on `input`: its output, or the error described in the class comment.
    [[nodiscard]] Task<StepResult> run(std::string input) const;
    /// \brief Runs the workflow for the run that owns `parent` (a tool handler's `ToolContext::ledger`):
    /// the agents of its `fromAgent` steps, nested workflows and `Route::byAgent` chooser draw on that
    /// run's budget (`RunOptions::parent`). `asTool` does this itself. A `fromFunction` step that runs an
    /// agent does not: it is not given the ledger.
    [[nodiscard]] Task<StepResult> run(std::string input, tools::SpendingLedger* parent) const;
    /// \brief The same, within the trace of `trace` (a tool handler's `ToolContext::trace`): the
    /// workflow's span (see `withTelemetry`), or without one its agents' runs, nest under it. `asTool` does
    /// this itself.
    [[nodiscard]] Task<StepResult> run(std::string input, tools::SpendingLedger* parent,
                                       const SpanContext& trace) const;

    /// \brief This workflow, traced into `telemetry`: each run is an `invoke_workflow {name}` span
    /// (`gen_ai.workflow.name`, `reagent.workflow.kind`; `error.type` when it fails) under the caller's
    /// span, and the runs of its agent steps, its chooser and nested workflows nest under it (each agent
    /// traces as its own `withTelemetry` says). Without: the steps' runs nest directly under the caller's.
    [[nodiscard]] Workflow withTelemetry(std::shared_ptr<telemetry::Telemetry> telemetry) const;

    /// \brief This workflow as a tool named after it: input `{message}` (required), output the workflow's
    /// output; a failure is the call's error, as `run` gives it (the executor fills in `tool` and
    /// `tripIndex`). Cancelling the call (its timeout, the caller's run) cancels the workflow.
    ///
    /// \param description what the model reads; empty: one naming the workflow and its steps.
    /// \param timeout the whole workflow's bound. Default 10 minutes.
    [[nodiscard]] tools::Tool asTool(std::string description = {},
                                     std::chrono::milliseconds timeout = std::chrono::minutes(10)) const;

    /// \brief The workflow's name (also its tool's name).
    [[nodiscard]] const std::string& name() const noexcept;
    /// \brief `"sequential"`, `"parallel"` or `"router"`.
    [[nodiscard]] const std::string& kind() const noexcept;
    /// \brief The steps' (or routes') names, in order.
    [[nodiscard]] std::vector<std::string> stepNames() const;

    struct State;

  private:
    explicit Workflow(std::shared_ptr<const State> state);
    std::shared_ptr<const State> state_;
};

}  // namespace reagent::agent
