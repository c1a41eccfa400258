// ReactLoop::save and ReactLoop::restore: a run's state as versioned JSON ("reagent.run/1"), so that a run
// paused or cut in the middle of a step can go on later, in another process.

#include <algorithm>
#include <string>

#include "reagent/agent/react_loop.hpp"
#include "run_spending.hpp"
#include "run_state_codec.hpp"

namespace reagent::agent {

namespace {

constexpr const char* kStateFormat = "reagent.run/1";

// A held call the run waits on: declaration-only (the caller runs it) or waiting for approval.
bool waitsForCaller(const tools::ToolCallRecord& record) {
    return !record.succeeded() && (record.outcome.error().code == tools::ToolErrc::not_executable ||
                                   record.outcome.error().code == tools::ToolErrc::approval_pending);
}

const char* awaitingName(int state) {
    static constexpr const char* kNames[] = {"start", "model", "tools", "compaction", "external", "done"};
    return kNames[state];
}

}  // namespace

nlohmann::json ReactLoop::save() const {
    using detail::toJson;
    using nlohmann::json;
    json messages = json::array();
    for (const llm::Message& message : messages_) {
        messages.push_back(toJson(message, config_->attachments));
    }
    const auto calls = [](const std::vector<tools::ToolCallRequest>& list) {
        json out = json::array();
        for (const auto& call : list) {
            out.push_back(toJson(call));
        }
        return out;
    };
    const auto records = [](const std::vector<tools::ToolCallRecord>& list) {
        json out = json::array();
        for (const auto& record : list) {
            out.push_back(toJson(record));
        }
        return out;
    };
    json checkpoints = json::array();
    for (const CheckpointMark& mark : record_.checkpoints) {
        checkpoints.push_back(toJson(mark));
    }
    json result = {{"toolCalls", records(record_.toolCalls)},
                   {"usage", toJson(record_.usage)},
                   {"checkpoints", std::move(checkpoints)},
                   {"terminatedBy", toString(record_.terminatedBy)},
                   {"output", record_.output},
                   {"errorMessage", record_.errorMessage},
                   // A loop holds no pending calls (a pause's result lists them, from the held batch):
                   // kept in the format, empty, for the readers of saved states.
                   {"pendingToolCalls", json::array()},
                   {"pendingApprovals", json::array()}};
    if (record_.finalAnswer) {
        result["finalAnswer"] = toJson(*record_.finalAnswer);
    }
    if (record_.outputRetries > 0) {
        result["outputRetries"] = record_.outputRetries;
    }
    if (!record_.structuredOutput.is_null()) {
        result["structuredOutput"] = record_.structuredOutput;
    }
    if (!record_.fallbacks.empty()) {
        json fallbacks = json::array();
        for (const ModelFallback& fallback : record_.fallbacks) {
            fallbacks.push_back({{"iteration", fallback.iteration},
                                 {"from", fallback.from},
                                 {"to", fallback.to},
                                 {"reason", fallback.reason}});
        }
        result["fallbacks"] = std::move(fallbacks);
    }
    if (record_.cost) {
        result["cost"] = toJson(*record_.cost);
    }
    // What the budgets counted, the sub-runs' included, so that a resumed run keeps counting from there.
    result["spent"] = toJson(ledger_.counting ? ledger_.own : detail::ownSpending(record_, iterations_));
    if (!ledger_.subRuns.empty()) {
        result["subRuns"] = toJson(ledger_.subRuns);
    }
    if (promptTokens_ > 0) {
        result["promptCount"] = {{"messages", promptMessages_}, {"tokens", promptTokens_}};
    }
    if (!record_.context.compactions.empty()) {
        json compactions = json::array();
        for (const Compaction& compaction : record_.context.compactions) {
            compactions.push_back(toJson(compaction));
        }
        result["compactions"] = std::move(compactions);
    }
    json context = json::object();
    if (awaiting_ == Awaiting::compaction) {
        context["compacting"] = {{"reason", toString(compacting_.reason)},
                                 {"promptTokens", compacting_.promptTokens},
                                 {"target", compacting_.target},
                                 {"countFirst", compacting_.countFirst}};
    }
    if (compacted_) {
        context["compacted"] = true;
    }
    if (contextRetried_) {
        context["contextRetried"] = true;
    }
    if (compactedTo_ >= 0) {
        context["compactedTo"] = compactedTo_;
    }
    if (!context.empty()) {
        result["contextState"] = std::move(context);
    }
    return json{{"format", kStateFormat},
                {"awaiting", awaitingName(static_cast<int>(awaiting_))},
                {"iterations", iterations_},
                {"lastText", lastText_},
                {"assistantIndex", assistantIndex_},
                {"promptIndex", promptIndex_},
                {"messages", std::move(messages)},
                {"pending", calls(pending_)},
                {"skipped", calls(skipped_)},
                {"held", records(held_)},
                {"session", session_},
                {"result", std::move(result)}};
}

expected<ReactLoop, AgentError> ReactLoop::restore(LoopConfig config, const nlohmann::json& state) {
    return restore(std::make_shared<const LoopConfig>(std::move(config)), LoopRun{}, state);
}

expected<ReactLoop, AgentError> ReactLoop::restore(std::shared_ptr<const LoopConfig> config,
                                                   const LoopRun& run, const nlohmann::json& state) {
    using nlohmann::json;
    using namespace detail;
    ReactLoop loop(std::move(config), run);
    try {
        const std::string path = "state";
        const auto format = field<std::string>(state, "format", path);
        if (format != kStateFormat) {
            throw StateError("state.format is '" + format + "', not " + kStateFormat +
                             " (a state saved by another version of reagent?)");
        }
        const auto awaiting = field<std::string>(state, "awaiting", path);
        bool known = false;
        for (int i = 0; i <= static_cast<int>(Awaiting::done); ++i) {
            if (awaiting == awaitingName(i)) {
                loop.awaiting_ = static_cast<Awaiting>(i);
                known = true;
            }
        }
        if (!known) {
            throw StateError("state.awaiting '" + awaiting +
                             "' is not start, model, tools, compaction, external or done");
        }
        loop.iterations_ = field<int>(state, "iterations", path);
        if (loop.iterations_ < 0) {
            throw StateError("state.iterations must not be negative");
        }
        loop.lastText_ = field<std::string>(state, "lastText", path);
        loop.assistantIndex_ = optionalField<std::size_t>(state, "assistantIndex", path, 0);
        loop.promptIndex_ =
            optionalField<std::size_t>(state, "promptIndex", path, static_cast<std::size_t>(-1));
        loop.messages_ =
            arrayField(state, "messages", path, [&](const nlohmann::json& item, const std::string& at) {
                return messageFromJson(item, at, loop.config_->attachments);
            });
        if (loop.messages_.empty()) {
            throw StateError("state.messages is empty: a run has at least its prompt");
        }
        if (loop.promptIndex_ == static_cast<std::size_t>(-1)) {
            // A state saved before the prompt's place was: its last user message.
            loop.promptIndex_ = 0;
            for (std::size_t i = loop.messages_.size(); i > 0; --i) {
                if (loop.messages_[i - 1].role == llm::Role::user) {
                    loop.promptIndex_ = i - 1;
                    break;
                }
            }
        } else if (loop.promptIndex_ >= loop.messages_.size()) {
            throw StateError("state.promptIndex is beyond the messages");
        }
        loop.pending_ = arrayField(state, "pending", path, callFromJson);
        loop.skipped_ = arrayField(state, "skipped", path, callFromJson);
        loop.held_ = arrayField(state, "held", path, recordFromJson);
        if (loop.awaiting_ == Awaiting::external &&
            std::none_of(loop.held_.begin(), loop.held_.end(), waitsForCaller)) {
            throw StateError(
                "state.held has no declaration-only call or call waiting for approval, but the run waits for "
                "them");
        }
        loop.session_ = optionalField<json>(state, "session", path, nullptr);
        if (!loop.session_.is_object() && !loop.session_.is_null()) {
            throw StateError("state.session must be an object");
        }
        const json result = field<json>(state, "result", path);
        detail::RunRecord& out = loop.record_;
        out.toolCalls = arrayField(result, "toolCalls", "state.result", recordFromJson);
        // The tools found on demand, as the run found them: from its calls (the history's calls are
        // offered by the constructor's rule, applied here too).
        for (const llm::Message& message : loop.messages_) {
            for (const llm::ToolCall& call : message.toolCalls) {
                loop.offerTool(call.name);
            }
        }
        loop.offerFound(out.toolCalls);
        out.usage = usageFromJson(field<json>(result, "usage", "state.result"), "state.result.usage");
        out.checkpoints = arrayField(result, "checkpoints", "state.result", checkpointFromJson);
        out.output = optionalField<std::string>(result, "output", "state.result", {});
        out.errorMessage = optionalField<std::string>(result, "errorMessage", "state.result", {});
        const auto reason =
            optionalField<std::string>(result, "terminatedBy", "state.result", "internal_error");
        bool reasonKnown = false;
        for (int i = 0; i <= static_cast<int>(TerminatedBy::context_overflow); ++i) {
            if (toString(static_cast<TerminatedBy>(i)) == reason) {
                out.terminatedBy = static_cast<TerminatedBy>(i);
                reasonKnown = true;
            }
        }
        if (!reasonKnown) {
            throw StateError("state.result.terminatedBy '" + reason + "' is not a way a run ends");
        }
        // Checked, not kept: the held batch (`held`) is what a paused loop resumes from.
        if (result.contains("pendingToolCalls")) {
            (void)arrayField(result, "pendingToolCalls", "state.result", callFromJson);
        }
        if (result.contains("pendingApprovals")) {
            (void)arrayField(result, "pendingApprovals", "state.result", callFromJson);
        }
        if (result.contains("finalAnswer")) {
            out.finalAnswer = finalAnswerFromJson(result["finalAnswer"], "state.result.finalAnswer");
        }
        out.outputRetries = optionalField<int>(result, "outputRetries", "state.result", 0);
        if (out.outputRetries < 0) {
            throw StateError("state.result.outputRetries must not be negative");
        }
        out.structuredOutput = optionalField<json>(result, "structuredOutput", "state.result", nullptr);
        if (result.contains("fallbacks")) {
            out.fallbacks =
                arrayField(result, "fallbacks", "state.result", [](const json& item, const std::string& at) {
                    return ModelFallback{
                        field<int>(item, "iteration", at), field<std::string>(item, "from", at),
                        field<std::string>(item, "to", at), field<std::string>(item, "reason", at)};
                });
        }
        if (result.contains("cost")) {
            out.cost = costFromJson(result["cost"], "state.result.cost");
        }
        if (result.contains("spent")) {
            loop.ledger_.own = spendingFromJson(result["spent"], "state.result.spent");
        } else {  // a state saved before budgets counted sub-runs: its own figures, as the result has them
            loop.ledger_.own = ownSpending(out, loop.iterations_);
        }
        if (result.contains("promptCount")) {
            const json& count = result["promptCount"];
            loop.promptMessages_ = field<std::size_t>(count, "messages", "state.result.promptCount");
            loop.promptTokens_ = field<std::int64_t>(count, "tokens", "state.result.promptCount");
            if (loop.promptMessages_ > loop.messages_.size() || loop.promptTokens_ < 0) {
                throw StateError("state.result.promptCount does not fit the saved messages");
            }
            out.context.promptTokens = loop.promptTokens_;
            out.context.countedMessages = loop.promptMessages_;
            out.context.countedTokens = loop.promptTokens_;
        }
        if (result.contains("compactions")) {
            out.context.compactions = arrayField(result, "compactions", "state.result", compactionFromJson);
        }
        if (result.contains("contextState")) {
            const json& context = result["contextState"];
            const std::string at = "state.result.contextState";
            loop.compacted_ = optionalField<bool>(context, "compacted", at, false);
            loop.contextRetried_ = optionalField<bool>(context, "contextRetried", at, false);
            loop.compactedTo_ = optionalField<std::int64_t>(context, "compactedTo", at, -1);
            if (context.contains("compacting")) {
                const json& compacting = context["compacting"];
                loop.compacting_.reason = compactionReasonFromJson(compacting, at + ".compacting");
                loop.compacting_.promptTokens =
                    field<std::int64_t>(compacting, "promptTokens", at + ".compacting");
                loop.compacting_.target = field<std::int64_t>(compacting, "target", at + ".compacting");
                loop.compacting_.countFirst =
                    optionalField<bool>(compacting, "countFirst", at + ".compacting", false);
            }
        }
        if (loop.awaiting_ == Awaiting::compaction) {
            if (!result.contains("contextState") || !result["contextState"].contains("compacting")) {
                throw StateError(
                    "state.result.contextState.compacting is missing, but the run waits for a compaction");
            }
            if (!loop.config_->compaction) {
                // An agent without compaction cannot perform it: the model call it stood before goes on.
                loop.awaiting_ = Awaiting::start;
                loop.compacted_ = true;
            }
        }
        if (result.contains("subRuns")) {
            loop.ledger_.subRuns = spendingFromJson(result["subRuns"], "state.result.subRuns");
        }
    } catch (const StateError& error) {
        return fail(
            AgentError{AgentErrc::invalid_state, std::string("cannot resume the run: ") + error.what()});
    }
    return loop;
}

}  // namespace reagent::agent
