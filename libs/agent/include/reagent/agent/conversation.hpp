#pragma once
/// \file
/// \brief `Conversation`: an agent's turns that go on, each run seeing the ones before it.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/message.hpp"

namespace reagent::agent {

/// \brief One message of a conversation, with what a chat application needs to show and address it.
struct ConversationMessage {
    /// Unique within the conversation (`m1`, `m2`, ... in order).
    std::string id;
    std::chrono::system_clock::time_point createdAt;
    llm::Message message;
    /// The latest checkpoint recorded up to this message (for a rollback to it), or empty.
    std::string lastCheckpointId;
};

/// \brief A conversation with an agent: `send` runs the next turn with the whole history, and keeps the
/// turn's messages (the user's, the model's, the tools') when it succeeds.
///
/// A turn that does not succeed (provider error, cancelled, iteration limit) leaves the history as it was,
/// so the next `send` starts from the last good state; its result still shows what happened. A turn that
/// stops for declaration-only calls or approvals is kept pending (`RunResult::state`): finish it with
/// `resume`. The session state (`sessionState()`) goes from turn to turn like the history, and is saved
/// with it.
///
/// \par Thread safety
/// Use from the agent's strand; one turn at a time (a `send` while one runs is `invalid_state`).
class Conversation {
  public:
    /// \brief A conversation with `agent`, named `id` (a random one when empty: 32 hexadecimal digits).
    explicit Conversation(Agent agent, std::string id = {});

    /// \brief What names the conversation: on every turn's spans (`gen_ai.conversation.id`), and saved
    /// with it.
    [[nodiscard]] const std::string& id() const noexcept { return id_; }

    /// \brief Runs `text` as the next user turn.
    ///
    /// \par Errors
    /// `invalid_state` when a turn is running or waits for `resume`. Everything else is in the result.
    [[nodiscard]] Task<expected<RunResult, AgentError>> send(std::string text);
    /// \brief The same, with this turn's own event handler (`RunOptions::onEvent`).
    [[nodiscard]] Task<expected<RunResult, AgentError>> send(std::string text, EventHandler onEvent);
    /// \brief The same, with images and documents in the user turn (see `RunOptions::attachments`); they
    /// stay in the history, and in a saved conversation.
    [[nodiscard]] Task<expected<RunResult, AgentError>> send(std::string text,
                                                             std::vector<llm::Attachment> attachments,
                                                             EventHandler onEvent = {});

    /// \brief Finishes a turn that stopped for declaration-only calls, with their results (see
    /// `Agent::resume`); on success its messages join the history.
    [[nodiscard]] Task<expected<RunResult, AgentError>> resume(std::vector<ExternalResult> results);
    /// \brief Finishes a turn that stopped for declaration-only calls or approvals (`approval_required`)
    /// with their results and decisions (see `Agent::resumeWith`).
    [[nodiscard]] Task<expected<RunResult, AgentError>> resumeWith(ResumeInput input);

    /// \brief The history, oldest first (no system prompt: the agent adds its own to each turn).
    [[nodiscard]] const std::vector<ConversationMessage>& messages() const noexcept { return messages_; }
    /// \brief The tool calls of every kept turn, in order.
    [[nodiscard]] const std::vector<tools::ToolCallRecord>& toolCalls() const noexcept { return toolCalls_; }
    /// \brief The answer of every kept turn, in order.
    [[nodiscard]] const std::vector<std::string>& responses() const noexcept { return responses_; }
    /// \brief The session state the turns' tools share (`ToolContext::session`): each turn starts from it,
    /// and a kept turn's changes stay. Set it before a turn to give the tools data; it must stay a JSON
    /// object.
    [[nodiscard]] nlohmann::json& sessionState() noexcept { return sessionState_; }
    [[nodiscard]] const nlohmann::json& sessionState() const noexcept { return sessionState_; }
    /// \brief The last failed call of the kept turns (also in `sessionState()["lastToolError"]`).
    [[nodiscard]] const std::optional<LastToolError>& lastToolError() const noexcept {
        return lastToolError_;
    }
    /// \brief Tokens of every turn, kept or not, their sub-runs' included (`RunResult::subRuns`).
    [[nodiscard]] const llm::Usage& usage() const noexcept { return usage_; }
    /// \brief What every turn cost, with the agent's price table (`AgentBuilder::withPrices`); none without.
    [[nodiscard]] const std::optional<RunCost>& cost() const noexcept { return cost_; }
    /// \brief Model calls and tool calls (besides `final-answer` and `task-complete`) of every turn and its
    /// sub-runs.
    [[nodiscard]] int modelCalls() const noexcept { return modelCalls_; }
    [[nodiscard]] int toolCallsMade() const noexcept { return toolCallsMade_; }

    /// \brief Bounds what the whole conversation spends, across its turns: each turn runs with what is left
    /// (within the agent's own per-run budget), a paused turn resumes with what was left when it started,
    /// and a `send` when a limit is used up fails with `budget_exceeded`, running nothing. `maxDuration`
    /// bounds each turn (wall time is not summed across turns). Not saved: set it again after `restore`
    /// (the counts are saved).
    void setBudget(RunBudget budget) { budget_ = budget; }
    [[nodiscard]] const RunBudget& budget() const noexcept { return budget_; }

    /// \brief Compacts the history now, as a turn does when it nears the context window
    /// (`AgentBuilder::withCompaction`): down to the target share of the window (half the history's tokens
    /// when the window is unknown), with the agent's strategies. What a summary costs counts in `usage()`.
    ///
    /// \par Errors
    /// `invalid_state` while a turn runs or waits for `resume`; `invalid_config` for an agent without
    /// compaction (`withoutCompaction`). The history is unchanged then.
    [[nodiscard]] Task<expected<Compaction, AgentError>> compact();
    /// \brief How full the window was at the last kept turn (its last request), and every compaction of the
    /// history so far, the turns' and `compact`'s.
    [[nodiscard]] const ContextUse& context() const noexcept { return context_; }

    /// \brief Forgets the history, the answers, the session state (and a turn waiting for `resume`); ids go
    /// on counting.
    void reset();

    /// \brief Drops the messages from the one that asked for the call that recorded `checkpointId`
    /// onwards (the files are restored separately, with `Agent::rollback`).
    ///
    /// \par Errors
    /// `invalid_state` for a checkpoint no kept turn recorded; the history is unchanged then.
    [[nodiscard]] expected<void, AgentError> truncateAt(const std::string& checkpointId);

    /// \brief The history as JSON (`"format": "reagent.conversation/1"`), to continue in another process:
    /// messages, answers, session state, the context's count and compactions, the agent's working memory
    /// (the stored results the history names, for `recall`), and a turn waiting for `resume` (finish it
    /// after `restore`, which loads the memory into the agent's).
    [[nodiscard]] nlohmann::json save() const;
    /// \brief A conversation with `agent` continuing a saved history.
    ///
    /// \par Errors
    /// `invalid_state`, naming the field at fault.
    [[nodiscard]] static expected<Conversation, AgentError> restore(Agent agent, const nlohmann::json& saved);

  private:
    /// The next turn's budget: what the conversation's has left, within the agent's; an error when a limit
    /// is used up.
    /// `inTurn`: what the turn being resumed already spent, which its run counts itself.
    [[nodiscard]] expected<std::optional<RunBudget>, AgentError> turnBudget(const Spending& inTurn) const;
    void keep(const RunResult& result, std::size_t historySize);
    /// Takes `messages[from..]` as the whole history after a compaction: the messages that survived keep
    /// their ids and checkpoints, the others (a summary, the turn's new ones) get new ids.
    /// Adds what a turn (or a compaction's summary) spent to the conversation's figures.
    void count(const Spending& added, const std::string& currency, bool priced = false);
    [[nodiscard]] nlohmann::json contextJson() const;
    /// The working-memory keys the history names (its compressed and cleared results).
    [[nodiscard]] std::vector<std::string> storedKeys() const;
    void adoptCompacted(const std::vector<llm::Message>& messages, std::size_t from);
    /// Takes the outcome of a turn (run or resumed): pending again, kept, or dropped.
    void settle(const RunResult& result, std::size_t historySize);

    Agent agent_;
    std::string id_;
    std::vector<ConversationMessage> messages_;
    std::vector<tools::ToolCallRecord> toolCalls_;
    std::vector<CheckpointMark> checkpoints_;
    std::vector<std::string> responses_;
    ContextUse context_;
    nlohmann::json sessionState_ = nlohmann::json::object();
    std::optional<LastToolError> lastToolError_;
    llm::Usage usage_;
    std::optional<RunCost> cost_;
    int modelCalls_ = 0;
    int toolCallsMade_ = 0;
    RunBudget budget_;
    std::uint64_t nextId_ = 1;
    bool running_ = false;
    /// A turn stopped for declaration-only calls, and the history size it started from.
    nlohmann::json pending_;
    std::size_t pendingHistory_ = 0;
    /// What that turn had spent when it paused (counted already; its resumed result counts it again).
    Spending paused_;
};

}  // namespace reagent::agent
