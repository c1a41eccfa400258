#include "run_journaling.hpp"

#include <memory>
#include <utility>

#include "run_state_codec.hpp"

namespace reagent::agent::detail {

namespace {

std::string modelStep(int iteration) {
    return "model:" + std::to_string(iteration);
}

std::string toolStep(int tripIndex, const std::string& callId) {
    return "tool:" + std::to_string(tripIndex) + ":" + callId;
}

std::string compactionStep(std::size_t index) {
    return "compaction:" + std::to_string(index);
}

// Journaled before the handler of a tool that is not idempotent starts: found without the call's record,
// it says the call may have had its effect.
std::string startStep(int tripIndex, const std::string& callId) {
    return "start:" + std::to_string(tripIndex) + ":" + callId;
}

// Why the run stops: the journal refused `step`.
std::string refusal(const RunContext& run, const std::string& step, const std::string& reason) {
    return "the journal refused step " + step + " of run " + run.journal->runId() + ": " + reason;
}

Task<bool> journalStep(RunContext* run, std::string step, std::string kind, nlohmann::json payload) {
    // Named: GCC 12 miscompiles an aggregate temporary passed to an awaited call.
    JournaledStep entry{step, std::move(kind), std::move(payload)};
    auto kept = co_await run->journal->record(std::move(entry));
    if (!kept && run->journalFailure.empty()) {
        run->journalFailure = refusal(*run, step, kept.error());
    }
    co_return kept.has_value();
}

Task<void> journalRecord(RunContext* run, std::string step, nlohmann::json payload) {
    co_await journalStep(run, std::move(step), "tool_call", std::move(payload));
}

}  // namespace

std::optional<expected<llm::ModelReply, llm::ProviderError>> replayedReply(RunContext& run, int iteration) {
    const std::string step = modelStep(iteration);
    const nlohmann::json* recorded = run.journal->recorded(step);
    if (recorded == nullptr) {
        return std::nullopt;
    }
    try {
        return modelOutcomeFromJson(*recorded, step);
    } catch (const StateError& unreadable) {
        run.warnings.push_back("the journal's " + step + " cannot be read (" + unreadable.what() +
                               "): the model is called again");
        return std::nullopt;
    }
}

Task<bool> journalReply(RunContext& run, int iteration,
                        const expected<llm::ModelReply, llm::ProviderError>& reply) {
    if (!reply && reply.error().code == llm::ProviderErrc::cancelled) {
        co_return true;
    }
    const std::string step = modelStep(iteration);
    JournaledStep entry{step, "model_reply", toJson(reply)};
    auto kept = co_await run.journal->record(std::move(entry));
    if (!kept) {
        run.journalFailure = refusal(run, step, kept.error());
        co_return false;
    }
    co_return true;
}

std::optional<std::pair<CompactionOutcome, std::vector<llm::Usage>>> replayedCompaction(RunContext& run,
                                                                                        std::size_t index) {
    const std::string step = compactionStep(index);
    const nlohmann::json* recorded = run.journal->recorded(step);
    if (recorded == nullptr) {
        return std::nullopt;
    }
    try {
        std::pair<CompactionOutcome, std::vector<llm::Usage>> replayed;
        CompactionOutcome& outcome = replayed.first;
        outcome.messages = arrayField(
            *recorded, "messages", step,
            [](const nlohmann::json& item, const std::string& path) { return messageFromJson(item, path); });
        outcome.record =
            compactionFromJson(field<nlohmann::json>(*recorded, "record", step), step + ".record");
        outcome.prompt = optionalField<std::size_t>(*recorded, "prompt", step, CompactionContext::kNoPrompt);
        replayed.second = arrayField(
            *recorded, "calls", step,
            [](const nlohmann::json& item, const std::string& path) { return usageFromJson(item, path); });
        return replayed;
    } catch (const StateError& unreadable) {
        run.warnings.push_back("the journal's " + step + " cannot be read (" + unreadable.what() +
                               "): the history is compacted again");
        return std::nullopt;
    }
}

Task<bool> journalCompaction(RunContext& run, std::size_t index, const CompactionOutcome& outcome,
                             const std::vector<llm::Usage>& calls) {
    nlohmann::json messages = nlohmann::json::array();
    for (const llm::Message& message : outcome.messages) {
        messages.push_back(toJson(message));
    }
    nlohmann::json spent = nlohmann::json::array();
    for (const llm::Usage& usage : calls) {
        spent.push_back(toJson(usage));
    }
    nlohmann::json payload = {
        {"messages", std::move(messages)}, {"record", toJson(outcome.record)}, {"calls", std::move(spent)}};
    if (outcome.prompt != CompactionContext::kNoPrompt) {
        payload["prompt"] = outcome.prompt;
    }
    const bool kept = co_await journalStep(&run, compactionStep(index), "compaction", std::move(payload));
    co_return kept;
}

void attachJournal(RunContext& run, std::vector<tools::ToolCallRequest>& calls, int tripIndex) {
    for (tools::ToolCallRequest& call : calls) {
        std::string step = toolStep(tripIndex, call.id);
        auto journal = std::make_shared<tools::CallJournal>();
        journal->idempotencyKey = run.journal->runId() + "/" + step;
        if (const nlohmann::json* recorded = run.journal->recorded(step)) {
            try {
                journal->recorded = recordFromJson(*recorded, step);
            } catch (const StateError& unreadable) {
                run.warnings.push_back("the journal's " + step + " cannot be read (" + unreadable.what() +
                                       "): the call runs again");
            }
        }
        if (!journal->recorded) {
            std::string start = startStep(tripIndex, call.id);
            journal->interrupted = run.journal->recorded(start) != nullptr;
            if (journal->interrupted && !call.preApproved) {
                run.warnings.push_back("call " + call.id + " of tool " + call.name +
                                       " was running when an earlier attempt of the run stopped; a tool "
                                       "that is not idempotent asks for approval before it runs again");
            }
            journal->begin = [raw = &run, start = std::move(start), name = call.name]() {
                return journalStep(raw, start, "tool_start", nlohmann::json{{"tool", name}});
            };
            // Not a call cancelled with the run: whoever holds the run next makes it.
            journal->record = [raw = &run, step](const tools::ToolCallRecord& record) -> Task<void> {
                if (!record.outcome && record.outcome.error().code == tools::ToolErrc::cancelled) {
                    return []() -> Task<void> { co_return; }();
                }
                return journalRecord(raw, step, toJson(record));
            };
        }
        call.journal = std::move(journal);
    }
}

}  // namespace reagent::agent::detail
