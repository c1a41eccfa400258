// A2A tasks as durable runs: the run a task is, and the task a run is.

#include "reagent/durable/a2a_tasks.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/json_fields.hpp"

namespace reagent::durable {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

// A message of the agent's in the task.
a2a::Message agentSays(std::string text, const a2a::AgentTask& task, const std::string& what) {
    a2a::Message message;
    message.messageId = task.id + "-" + what;  // the same at every read
    message.role = a2a::Role::agent;
    message.parts.push_back(a2a::Part::fromText(std::move(text)));
    message.taskId = task.id;
    message.contextId = task.contextId;
    return message;
}

// What a waiting run waits for, for a person.
std::string waitsFor(const RunRecord& run) {
    std::string calls;
    if (const auto pending = run.outcome.find("pendingApprovals");
        pending != run.outcome.end() && pending->is_array()) {
        for (const auto& call : *pending) {
            calls += (calls.empty() ? "" : ", ") + stringOr(call, "id") + " (" + stringOr(call, "name") + ")";
        }
    }
    if (calls.empty()) {
        return "the run waits for inputs from outside (results of its declaration-only tools)";
    }
    return "the run waits for a person's decision on call(s) " + calls + ": reagent runs approve " + run.id +
           " CALL [--deny]";
}

std::string errorOf(const RunRecord& run) {
    const auto error = run.outcome.find("error");
    if (error == run.outcome.end()) {
        return "the run failed";
    }
    return error->is_string() ? error->get<std::string>() : error->dump();
}

}  // namespace

expected<std::shared_ptr<A2aTasks>, DurableError> A2aTasks::create(std::shared_ptr<RunStore> store,
                                                                   A2aTaskOptions options) {
    if (!store) {
        return unexpected(DurableError{DurableErrc::invalid_input, "A2A tasks need a run store"});
    }
    if (options.firstPoll.count() < 1 || options.maxPoll < options.firstPoll) {
        return unexpected(DurableError{DurableErrc::invalid_input,
                                       "A2A task polls: firstPoll must be at least 1 ms and maxPoll at "
                                       "least firstPoll"});
    }
    return std::shared_ptr<A2aTasks>(new A2aTasks(std::move(store), options));
}

a2a::AgentTask A2aTasks::taskOf(const RunRecord& run) {
    a2a::AgentTask task;
    task.id = run.id;
    const json a2aInput = run.input.value("a2a", json::object());
    task.contextId = stringOr(a2aInput, "contextId");
    if (task.contextId.empty()) {
        task.contextId = run.id;
    }
    auto asked =
        a2aInput.contains("message")
            ? a2a::parseMessage(a2aInput["message"])
            : expected<a2a::Message, a2a::A2aError>(a2a::Message::userText(stringOr(run.input, "prompt")));
    if (!asked) {
        asked = a2a::Message::userText(stringOr(run.input, "prompt"));
    }
    asked->taskId = task.id;
    asked->contextId = task.contextId;
    if (asked->messageId.empty()) {
        asked->messageId = task.id + "-prompt";
    }
    task.history.push_back(std::move(*asked));
    switch (run.status) {
        case RunStatus::queued:
            task.status.state = run.attempts == 0 ? a2a::TaskState::submitted : a2a::TaskState::working;
            break;
        case RunStatus::running:
            task.status.state = a2a::TaskState::working;
            break;
        case RunStatus::waiting:
            task.status.state = a2a::TaskState::input_required;
            task.status.message = agentSays(waitsFor(run), task, "waits");
            break;
        case RunStatus::completed: {
            task.status.state = a2a::TaskState::completed;
            a2a::Artifact answer;
            answer.artifactId = run.id + "-answer";
            answer.name = "answer";
            answer.parts.push_back(a2a::Part::fromText(stringOr(run.outcome, "output")));
            task.artifacts.push_back(std::move(answer));
            break;
        }
        case RunStatus::failed:
            task.status.state = a2a::TaskState::failed;
            task.status.message = agentSays(errorOf(run), task, "error");
            break;
        case RunStatus::cancelled:
            task.status.state = a2a::TaskState::canceled;
            break;
    }
    return task;
}

Task<expected<std::optional<a2a::AgentTask>, std::string>> A2aTasks::find(std::string id) {
    auto run = co_await store_->run(id);
    if (!run && run.error().code == DurableErrc::not_found) {
        co_return std::optional<a2a::AgentTask>{};
    }
    if (!run) {
        co_return unexpected(run.error().describe());
    }
    co_return std::optional<a2a::AgentTask>{taskOf(*run)};
}

Task<expected<std::optional<a2a::AgentTask>, std::string>> A2aTasks::cancel(std::string id) {
    RunInput stop;
    stop.kind = InputKind::cancel;
    auto given = co_await store_->addInput(id, std::move(stop));
    if (!given && given.error().code == DurableErrc::not_found) {
        co_return std::optional<a2a::AgentTask>{};
    }
    // A run that ended meanwhile refuses the input: the task as it stands says how it ended.
    if (!given && given.error().code != DurableErrc::conflict) {
        co_return unexpected(given.error().describe());
    }
    auto found = co_await find(std::move(id));
    co_return found;
}

a2a::TracedRunFunction A2aTasks::runFunction() {
    return [self = shared_from_this()](std::string prompt, a2a::TaskContext context) {
        return self->follow(std::move(prompt), std::move(context));
    };
}

Task<expected<std::string, std::string>> A2aTasks::follow(std::string prompt, a2a::TaskContext context) {
    const std::string id = context.message.taskId;
    json input = {{"prompt", std::move(prompt)},
                  {"a2a",
                   {{"contextId", context.message.contextId},
                    {"message", a2a::toJson(context.message, a2a::ProtocolVersion::v1_0)}}}};
    Submission submission{id, std::move(input)};
    auto submitted = co_await store_->submit(std::move(submission));
    if (!submitted) {
        co_return unexpected("could not keep the task as a durable run: " + submitted.error().describe());
    }
    if (context.accepted) {
        context.accepted();
    }
    // A server that stops (or a send's caller that goes) stops following; the run is not cancelled.
    const std::string leftToRun = "the server stopped following the task; its run goes on";
    auto pause = options_.firstPoll;
    bool saidWait = false;
    for (;;) {
        auto run = co_await store_->run(id);
        if (!run) {
            co_return unexpected("could not read the task's run: " + run.error().describe());
        }
        switch (run->status) {
            case RunStatus::completed:
                co_return stringOr(run->outcome, "output");
            case RunStatus::failed:
                co_return unexpected(errorOf(*run));
            case RunStatus::cancelled:
                co_return unexpected(std::string("the task was canceled"));
            case RunStatus::waiting:
                if (!saidWait && context.progress) {
                    context.progress(waitsFor(*run));
                }
                saidWait = true;
                break;
            case RunStatus::queued:
            case RunStatus::running:
                saidWait = false;
                break;
        }
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return unexpected(leftToRun);
        }
        asio::steady_timer timer(co_await asio::this_coro::executor, pause);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return unexpected(leftToRun);
        }
        pause = std::min(pause * 2, options_.maxPoll);
    }
}

}  // namespace reagent::durable
