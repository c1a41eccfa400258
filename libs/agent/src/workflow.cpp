// Workflows: steps run in sequence, in parallel (parallelMapUntilError) or behind a router; one
// driver per kind, each run under checked cancellation so that a cancelled workflow still reports which
// step it stopped at.

#include "reagent/agent/workflow.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/this_coro.hpp>
#include <cctype>
#include <optional>
#include <set>
#include <utility>

#include "agent_delegate.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/telemetry/telemetry.hpp"

namespace reagent::agent {

namespace asio = boost::asio;
using tools::ErrorCause;
using tools::ToolErrc;
using tools::ToolError;

struct Workflow::State {
    std::string name;
    std::string kind;
    std::vector<Step> steps;
    ParallelOptions options;
    Route::Chooser choose;
    std::shared_ptr<telemetry::Telemetry> telemetry{};
};

namespace {

constexpr std::string_view kDomain = "workflow";

// What a workflow runs for: the budget its agents draw on (a tool call's ledger, or none) and the span its
// own span (or, without telemetry, its agents' runs) nests under.
struct Scope {
    tools::SpendingLedger* ledger = nullptr;
    SpanContext trace{};

    [[nodiscard]] bool nested() const noexcept { return ledger != nullptr || trace.valid(); }
    [[nodiscard]] const SpanContext* traceOrNull() const noexcept { return trace.valid() ? &trace : nullptr; }
};

// --- Errors ------------------------------------------------------------------------------------------

nlohmann::json where(const Workflow::State& workflow) {
    return {{"workflow", workflow.name}, {"kind", workflow.kind}};
}

std::string stepLabel(const Workflow::State& workflow, std::size_t index) {
    const std::string& step = workflow.steps[index].name;
    if (workflow.kind == "router") {
        return "route '" + step + "'";
    }
    return "step " + std::to_string(index + 1) + " '" + step + "'";
}

// A workflow's error caused by `inner` (a step's, the chooser's, combine's): the message says what failed
// and why; the cause (domain `workflow`, `code`) chains `inner` so that rootCause() is the original error.
ToolError causedBy(const Workflow::State& workflow, std::string what, std::string code,
                   nlohmann::json details, const ToolError& inner, bool cancelled) {
    ToolError error{cancelled ? ToolErrc::cancelled : ToolErrc::failed,
                    "workflow '" + workflow.name + "' " + what + ": " + inner.message};
    ErrorCause cause{std::string(kDomain), std::move(code), std::move(what), details};
    cause.cause = std::make_shared<const ErrorCause>(inner.asCause());
    error.cause = std::make_shared<const ErrorCause>(std::move(cause));
    error.details = std::move(details);
    return error;
}

ToolError stepFailure(const Workflow::State& workflow, std::size_t index, const ToolError& inner,
                      bool cancelled) {
    auto details = where(workflow);
    details["step"] = workflow.steps[index].name;
    details["position"] = index + 1;
    const std::string what = stepLabel(workflow, index) + (cancelled ? " was cancelled" : " failed");
    return causedBy(workflow, what, "step_failed", std::move(details), inner, cancelled);
}

// The workflow was cancelled before `index` started (no step error to chain).
ToolError cancelledBefore(const Workflow::State& workflow, std::size_t index) {
    auto details = where(workflow);
    details["step"] = workflow.steps[index].name;
    details["position"] = index + 1;
    std::string what = "was cancelled before " + stepLabel(workflow, index);
    ToolError error{ToolErrc::cancelled, "workflow '" + workflow.name + "' " + what};
    error.cause = std::make_shared<const ErrorCause>(
        ErrorCause{std::string(kDomain), "cancelled", std::move(what), details});
    error.details = std::move(details);
    return error;
}

// How a step ended without a result of its own (an exception, a cancellation), as its error.
ToolError fromEffect(const EffectError& error, const std::string& step) {
    if (error.code == EffectErrc::exception) {
        ToolError thrown{ToolErrc::exception, "step '" + step + "' threw: " + error.message};
        thrown.cause = std::make_shared<const ErrorCause>(ErrorCause{"exception", {}, error.message});
        return thrown;
    }
    return {ToolErrc::cancelled, "step '" + step + "' was cancelled"};
}

Task<StepResult> runWorkflow(std::shared_ptr<const Workflow::State> workflow, std::string input, Scope scope);

// --- Steps that run agents ---------------------------------------------------------------------------

// The functions `Step::fromAgent`, `Step::fromWorkflow` and `Route::byAgent` make are of these types, so
// that a workflow run for a tool call finds them (`std::function::target`) and lets their runs draw on the
// call's budget; called as plain functions they run on their own.
struct AgentStep {
    Agent agent;
    std::string name;
    Task<StepResult> operator()(std::string input) const {
        return delegateRun(agent, name, std::move(input));
    }
};

struct WorkflowStep {
    std::shared_ptr<const Workflow::State> workflow;
    Task<StepResult> operator()(std::string input) const {
        return runWorkflow(workflow, std::move(input), Scope{});
    }
};

Task<StepResult> chooseByAgent(Agent classifier, std::string input, std::vector<std::string> routes,
                               Scope scope);

struct AgentChooser {
    Agent classifier;
    Task<StepResult> operator()(std::string input, std::vector<std::string> routes) const {
        return chooseByAgent(classifier, std::move(input), std::move(routes), Scope{});
    }
};

// --- Running one step --------------------------------------------------------------------------------

// A coroutine of its own, so that a function that throws before returning its task is settled too. A
// step that runs agents draws on the scope's ledger and nests in its trace.
Task<StepResult> callStep(Workflow::StepFunction function, std::string input, Scope scope) {
    if (scope.nested()) {
        if (const auto* agent = function.target<AgentStep>()) {
            auto task = delegateRun(agent->agent, agent->name, std::move(input), {}, scope.ledger,
                                    scope.traceOrNull());
            co_return co_await std::move(task);
        }
        if (const auto* nested = function.target<WorkflowStep>()) {
            auto task = runWorkflow(nested->workflow, std::move(input), scope);
            co_return co_await std::move(task);
        }
    }
    auto task = function(std::move(input));
    co_return co_await std::move(task);
}

// The step's result, or its exception or cancellation as its error. Never throws.
Task<StepResult> runStep(Workflow::StepFunction function, std::string name, std::string input, Scope scope) {
    auto task = settle(callStep(std::move(function), std::move(input), scope));
    auto settled = co_await std::move(task);
    if (!settled) {
        co_return fail(fromEffect(settled.error(), name));
    }
    co_return std::move(*settled);
}

// --- Sequential --------------------------------------------------------------------------------------

Task<StepResult> runSequential(std::shared_ptr<const Workflow::State> workflow, std::string input,
                               Scope scope) {
    std::string current = std::move(input);
    for (std::size_t i = 0; i < workflow->steps.size(); ++i) {
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return fail(cancelledBefore(*workflow, i));
        }
        const auto& step = workflow->steps[i];
        auto task = runStep(step.run, step.name, std::move(current), scope);
        StepResult output = co_await std::move(task);
        if (!output) {
            const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
            co_return fail(stepFailure(*workflow, i, output.error(), cancelled));
        }
        current = std::move(*output);
    }
    co_return current;
}

// --- Parallel ----------------------------------------------------------------------------------------

StepResult defaultCombine(const std::vector<Workflow::StepOutput>& outputs) {
    // Ordered, so that each object reads "step" first, as documented.
    auto joined = nlohmann::ordered_json::array();
    for (const auto& output : outputs) {
        nlohmann::ordered_json entry;
        entry["step"] = output.step;
        entry["output"] = output.output;
        joined.push_back(std::move(entry));
    }
    // Outputs are untrusted text (model output): invalid UTF-8 is replaced, not thrown on.
    return joined.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

StepResult combine(const Workflow::State& workflow, std::vector<Workflow::StepOutput> outputs) {
    if (!workflow.options.combine) {
        return defaultCombine(outputs);
    }
    auto combined = settleCall(workflow.options.combine, std::move(outputs));
    StepResult result = combined ? StepResult(std::move(*combined))
                                 : StepResult(fail(fromEffect(combined.error(), "combine")));
    if (!result) {
        return fail(causedBy(workflow, "could not combine the outputs", "combine_failed", where(workflow),
                             result.error(), false));
    }
    return result;
}

Task<StepResult> runParallel(std::shared_ptr<const Workflow::State> workflow, std::string input,
                             Scope scope) {
    std::vector<std::size_t> indices(workflow->steps.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        indices[i] = i;
    }
    auto each = [workflow, input = std::move(input), scope](std::size_t index) {
        const auto& step = workflow->steps[index];
        return runStep(step.run, step.name, input, scope);
    };
    // The first step to fail stops the others: those running are cancelled, the rest never start.
    auto mapping = parallelMapUntilError(std::move(indices), workflow->options.maxParallel, std::move(each));
    auto outputs = co_await std::move(mapping);
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);

    // The step that failed first is the workflow's error; the others were stopped because of it.
    if (!outputs) {
        const FirstFailure<ToolError>& failure = outputs.error();
        const auto& step = workflow->steps[failure.index];
        if (!failure.settled && failure.settled.error().code == EffectErrc::cancelled && cancelled) {
            co_return fail(cancelledBefore(*workflow, failure.index));
        }
        const ToolError inner =
            failure.settled ? *failure.settled : fromEffect(failure.settled.error(), step.name);
        co_return fail(stepFailure(*workflow, failure.index, inner, cancelled));
    }
    std::vector<Workflow::StepOutput> joined;
    joined.reserve(outputs->size());
    for (std::size_t i = 0; i < outputs->size(); ++i) {
        joined.push_back({workflow->steps[i].name, std::move((*outputs)[i])});
    }
    co_return combine(*workflow, std::move(joined));
}

// --- Router ------------------------------------------------------------------------------------------

std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// The chooser's answer (untrusted text) as a route's index: exactly, then loosely (see `router`).
std::optional<std::size_t> findRoute(const std::vector<Workflow::Step>& routes, const std::string& answer) {
    for (std::size_t i = 0; i < routes.size(); ++i) {
        if (routes[i].name == answer) {
            return i;
        }
    }
    constexpr std::string_view kNoise = " \t\r\n\"'`*";
    std::string loose = answer;
    for (int pass = 0; pass < 2; ++pass) {
        const auto first = loose.find_first_not_of(kNoise);
        const auto last = loose.find_last_not_of(kNoise);
        loose = first == std::string::npos ? std::string() : loose.substr(first, last - first + 1);
        if (pass == 0 && !loose.empty() && loose.back() == '.') {
            loose.pop_back();
        }
    }
    loose = lowered(std::move(loose));
    for (std::size_t i = 0; i < routes.size(); ++i) {
        if (lowered(routes[i].name) == loose) {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<std::string> namesOf(const std::vector<Workflow::Step>& steps) {
    std::vector<std::string> names;
    names.reserve(steps.size());
    for (const auto& step : steps) {
        names.push_back(step.name);
    }
    return names;
}

std::string listed(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) {
        text += (text.empty() ? "" : ", ") + name;
    }
    return text;
}

Task<StepResult> callChooser(Workflow::Route::Chooser choose, std::string input,
                             std::vector<std::string> routes, Scope scope) {
    if (const auto* agent = scope.nested() ? choose.target<AgentChooser>() : nullptr) {
        auto task = chooseByAgent(agent->classifier, std::move(input), std::move(routes), scope);
        co_return co_await std::move(task);
    }
    auto task = choose(std::move(input), std::move(routes));
    co_return co_await std::move(task);
}

Task<StepResult> runRouter(std::shared_ptr<const Workflow::State> workflow, std::string input, Scope scope) {
    auto routes = namesOf(workflow->steps);
    auto choosing = settle(callChooser(workflow->choose, input, routes, scope));
    auto settled = co_await std::move(choosing);
    const StepResult chosen =
        settled ? StepResult(std::move(*settled)) : StepResult(fail(fromEffect(settled.error(), "choose")));
    if (!chosen) {
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        co_return fail(causedBy(*workflow, "could not choose a route", "choose_failed", where(*workflow),
                                chosen.error(), cancelled));
    }
    const auto index = findRoute(workflow->steps, *chosen);
    if (!index) {
        auto details = where(*workflow);
        details["route"] = *chosen;
        details["routes"] = routes;
        std::string what = "has no route '" + *chosen + "' (the routes are: " + listed(routes) + ")";
        ToolError error{ToolErrc::failed, "workflow '" + workflow->name + "' " + what};
        error.cause = std::make_shared<const ErrorCause>(
            ErrorCause{std::string(kDomain), "unknown_route", std::move(what), details});
        error.details = std::move(details);
        co_return fail(std::move(error));
    }
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(cancelledBefore(*workflow, *index));
    }
    const auto& step = workflow->steps[*index];
    auto task = runStep(step.run, step.name, std::move(input), scope);
    StepResult output = co_await std::move(task);
    if (!output) {
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        co_return fail(stepFailure(*workflow, *index, output.error(), cancelled));
    }
    co_return output;
}

// --- Running a workflow ------------------------------------------------------------------------------

Task<StepResult> dispatch(std::shared_ptr<const Workflow::State> workflow, std::string input, Scope scope) {
    if (workflow->kind == "parallel") {
        return runParallel(std::move(workflow), std::move(input), scope);
    }
    if (workflow->kind == "router") {
        return runRouter(std::move(workflow), std::move(input), scope);
    }
    return runSequential(std::move(workflow), std::move(input), scope);
}

Task<StepResult> runWorkflow(std::shared_ptr<const Workflow::State> workflow, std::string input,
                             Scope scope) {
    if (!workflow->telemetry) {
        auto body =
            withCheckedCancellation(dispatch(std::move(workflow), std::move(input), std::move(scope)));
        co_return co_await std::move(body);
    }
    // The conventions' invoke_workflow span: the steps' agents (and nested workflows) run under it.
    telemetry::Span span = workflow->telemetry->tracer().startSpan(
        "invoke_workflow " + workflow->name, telemetry::SpanKind::internal, scope.traceOrNull());
    if (span.recording()) {
        span.setAttribute("gen_ai.operation.name", std::string("invoke_workflow"));
        span.setAttribute("gen_ai.workflow.name", workflow->name);
        span.setAttribute("reagent.workflow.kind", workflow->kind);
    }
    scope.trace = span.context();
    auto body = withCheckedCancellation(dispatch(std::move(workflow), std::move(input), std::move(scope)));
    StepResult result = co_await std::move(body);
    if (!result && span.recording()) {
        span.setAttribute("error.type", std::string(tools::toString(result.error().code)));
        span.setStatus(telemetry::StatusCode::error, result.error().message);
    }
    span.end();
    co_return result;
}

Task<StepResult> chooseByAgent(Agent classifier, std::string input, std::vector<std::string> routes,
                               Scope scope) {
    std::string prompt =
        "Choose the route for the request below. Reply with the route's name only, exactly "
        "one of: " +
        listed(routes) + ".\n\nRequest:\n" + input;
    auto running = delegateRun(classifier, classifier.config().name, std::move(prompt), {}, scope.ledger,
                               scope.traceOrNull());
    co_return co_await std::move(running);
}

// --- Construction ------------------------------------------------------------------------------------

expected<void, AgentError> validate(const Workflow::State& state) {
    std::vector<std::string> problems;
    if (!tools::isValidToolName(state.name)) {
        problems.push_back("the name '" + state.name +
                           "' must be a valid tool name (^[a-zA-Z_][a-zA-Z0-9_.:/-]{0,127}$): the workflow "
                           "is a tool named after it");
    }
    const std::string noun = state.kind == "router" ? "route" : "step";
    if (state.steps.empty()) {
        problems.push_back("no " + noun + "s: give at least one");
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < state.steps.size(); ++i) {
        const auto& step = state.steps[i];
        const std::string label = noun + " " + std::to_string(i + 1);
        if (step.name.empty()) {
            problems.push_back(label + " has no name");
        } else if (!seen.insert(step.name).second) {
            problems.push_back(label + ": two " + noun + "s are named '" + step.name +
                               "'; names must be unique");
        }
        if (!step.run) {
            problems.push_back(label + " ('" + step.name + "') has no function");
        }
    }
    if (state.kind == "parallel" && state.options.maxParallel == 0) {
        problems.emplace_back("maxParallel must be at least 1");
    }
    if (state.kind == "router" && !state.choose) {
        problems.emplace_back("no chooser: give a function naming the route (or Route::byAgent(classifier))");
    }
    if (problems.empty()) {
        return {};
    }
    std::string message = "the " + state.kind + " workflow '" + state.name + "' has " +
                          std::to_string(problems.size()) + " problem" + (problems.size() == 1 ? "" : "s") +
                          ":";
    for (std::size_t i = 0; i < problems.size(); ++i) {
        message += " " + std::to_string(i + 1) + ") " + problems[i] + (i + 1 < problems.size() ? ";" : "");
    }
    return fail(AgentError{AgentErrc::invalid_config, std::move(message)});
}

}  // namespace

Workflow::Step Workflow::Step::fromAgent(std::string name, Agent agent) {
    StepFunction function = AgentStep{std::move(agent), name};
    return Step{std::move(name), std::move(function)};
}

Workflow::Step Workflow::Step::fromWorkflow(std::string name, Workflow workflow) {
    if (name.empty()) {
        name = workflow.name();
    }
    StepFunction function = WorkflowStep{workflow.state_};
    return Step{std::move(name), std::move(function)};
}

Workflow::Step Workflow::Step::fromFunction(std::string name, StepFunction function) {
    return Step{std::move(name), std::move(function)};
}

Workflow::Route::Chooser Workflow::Route::byAgent(Agent classifier) {
    return AgentChooser{std::move(classifier)};
}

Workflow::Workflow(std::shared_ptr<const State> state) : state_(std::move(state)) {}

expected<Workflow, AgentError> Workflow::sequential(std::string name, std::vector<Step> steps) {
    State state{std::move(name), "sequential", std::move(steps), {}, {}};
    if (auto valid = validate(state); !valid) {
        return fail(std::move(valid.error()));
    }
    return Workflow(std::make_shared<const State>(std::move(state)));
}

expected<Workflow, AgentError> Workflow::parallel(std::string name, std::vector<Step> steps) {
    return parallel(std::move(name), std::move(steps), ParallelOptions{});
}

expected<Workflow, AgentError> Workflow::parallel(std::string name, std::vector<Step> steps,
                                                  ParallelOptions options) {
    State state{std::move(name), "parallel", std::move(steps), std::move(options), {}};
    if (auto valid = validate(state); !valid) {
        return fail(std::move(valid.error()));
    }
    return Workflow(std::make_shared<const State>(std::move(state)));
}

expected<Workflow, AgentError> Workflow::router(std::string name, Route::Chooser choose,
                                                std::vector<Step> routes) {
    State state{std::move(name), "router", std::move(routes), {}, std::move(choose)};
    if (auto valid = validate(state); !valid) {
        return fail(std::move(valid.error()));
    }
    return Workflow(std::make_shared<const State>(std::move(state)));
}

Task<StepResult> Workflow::run(std::string input) const {
    return runWorkflow(state_, std::move(input), Scope{});
}

Task<StepResult> Workflow::run(std::string input, tools::SpendingLedger* parent) const {
    return runWorkflow(state_, std::move(input), Scope{parent, {}});
}

Task<StepResult> Workflow::run(std::string input, tools::SpendingLedger* parent,
                               const SpanContext& trace) const {
    return runWorkflow(state_, std::move(input), Scope{parent, trace});
}

Workflow Workflow::withTelemetry(std::shared_ptr<telemetry::Telemetry> telemetry) const {
    auto state = std::make_shared<State>(*state_);
    state->telemetry = std::move(telemetry);
    return Workflow(std::move(state));
}

tools::Tool Workflow::asTool(std::string description, std::chrono::milliseconds timeout) const {
    const auto& state = *state_;
    if (description.empty()) {
        const auto names = stepNames();
        std::string shape;
        if (state.kind == "sequential") {
            for (const auto& name : names) {
                shape += (shape.empty() ? "steps " : ", then ") + name;
            }
        } else if (state.kind == "parallel") {
            shape = "steps " + listed(names) + " at once, their outputs joined";
        } else {
            shape = "one route per task among " + listed(names);
        }
        description = "Run the workflow '" + state.name + "' (" + shape +
                      ") on a task: give it the whole task in `message`, with what it needs to know; it "
                      "replies with the workflow's output.";
    }
    tools::Tool tool;
    tool.definition.name = state.name;
    tool.definition.description = std::move(description);
    tool.definition.inputSchema = taskInputSchema();
    tool.definition.category = "workflow";
    tool.definition.timeout = timeout;
    tool.definition.action = [name = state.name](const nlohmann::json&) {
        return "Running the workflow " + name;
    };
    tool.handler = [state = state_](nlohmann::json args, tools::ToolContext context) {
        return runWorkflow(state, args.value("message", std::string()),
                           Scope{context.ledger, context.trace != nullptr ? *context.trace : SpanContext{}});
    };
    return tool;
}

const std::string& Workflow::name() const noexcept {
    return state_->name;
}

const std::string& Workflow::kind() const noexcept {
    return state_->kind;
}

std::vector<std::string> Workflow::stepNames() const {
    return namesOf(state_->steps);
}

}  // namespace reagent::agent
