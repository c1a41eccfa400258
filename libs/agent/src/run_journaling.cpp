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

// Why the run stops: the journal refused `step`.
std::string refusal(const RunContext& run, const std::string& step, const std::string& reason) {
    return "the journal refused step " + step + " of run " + run.journal->runId() + ": " + reason;
}

Task<void> journalRecord(RunContext* run, std::string step, nlohmann::json payload) {
    // Named: GCC 12 miscompiles an aggregate temporary passed to an awaited call.
    JournaledStep entry{step, "tool_call", std::move(payload)};
    auto kept = co_await run->journal->record(std::move(entry));
    if (!kept && run->journalFailure.empty()) {
        run->journalFailure = refusal(*run, step, kept.error());
    }
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
