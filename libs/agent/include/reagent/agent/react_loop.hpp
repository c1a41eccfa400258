#pragma once
/// \file
/// \brief `ReactLoop`: the think → act → observe loop as a sans-io state machine.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reagent/agent/attachment_store.hpp"
#include "reagent/agent/compaction.hpp"
#include "reagent/agent/detail/run_ledger.hpp"
#include "reagent/agent/detail/run_record.hpp"
#include "reagent/agent/loop_options.hpp"
#include "reagent/agent/run_budget.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/price_table.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/tools/schema_validator.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent {

/// \brief Name of the meta-tool that ends a run with a structured answer.
inline constexpr const char* kFinalAnswerTool = "final-answer";
/// \brief Name of the meta-tool that ends a run with a summary of what was done.
inline constexpr const char* kTaskCompleteTool = "task-complete";
/// \brief Name of the meta-tool that reports the run's state (budget, tools, memory keys, tokens).
inline constexpr const char* kContextStatusTool = "context-status";

/// \brief What a run is, independent of any I/O.
struct LoopConfig {
    /// Sent as the first (system) message when not empty.
    std::string systemPrompt;
    /// The tools offered to the model on every call (one shared list: each request copies a pointer).
    llm::ToolList tools;
    /// Tools not offered up front (tool search, `AgentBuilder::withToolSearch`): one is offered, after
    /// `tools`, from the request after the model found it with `find` (the call's structured result lists
    /// it under "tools") or called it by name, here or earlier in the history, until the run ends.
    llm::ToolList onDemand;
    /// The iteration limit and sampling options.
    LoopOptions options;
    /// The schema the final answer must match (`AgentBuilder::withOutputSchema`), compiled; none: any
    /// text is an answer.
    std::optional<tools::SchemaValidator> output;
    /// The same schema as every request carries it (`llm::ModelRequest::output`), for providers that
    /// constrain the reply to it; null without one.
    std::shared_ptr<const llm::OutputFormat> outputFormat;
    /// How `save` keeps attachments, and where `restore` reads those kept by reference.
    AttachmentStorage attachments;
    /// Prices each reply (`RunResult::cost`) and the estimate of a cost budget; null: no cost.
    std::shared_ptr<const llm::PriceTable> prices;
    /// The model the provider asks (`llm::Provider::model`), for replies that do not name theirs.
    std::string model;
    /// Limits on what the run spends; none by default.
    RunBudget budget;
    /// The characters of `tools`' declarations, for the budget's estimates, when the caller has measured
    /// them (an agent does once per tool list); -1: the loop measures them on first use.
    std::int64_t toolCharacters = -1;
    /// The ledger of the run whose tool call started this one (`RunOptions::parent`): this run's spending
    /// counts in it, and its budget (and its callers') limits this run too. Null for a run nobody
    /// started. Without `prices`, the parent's price this run's calls.
    detail::RunLedger* parent = nullptr;
    /// The model's context window in tokens: a request whose prompt (counted as `RunResult::context`
    /// says) and reply (`maxTokens`) would not fit it is not sent, and the run ends with
    /// `context_overflow`. None: not checked.
    std::optional<std::int64_t> contextWindow;
    /// When to compact the history (`Compact`); null: never (past the window the run ends, and an API's
    /// context-length error ends it as a provider error).
    std::shared_ptr<const CompactionOptions> compaction;
    /// The API's count of the first `countedMessages` messages the loop starts with (`RunOptions::counted`);
    /// 0: none, the first request is estimated in full.
    std::size_t countedMessages = 0;
    std::int64_t countedTokens = 0;
    /// At its end (`Finish` or `Fail`, but for a pause for `resume`), the loop moves its history, records
    /// and session state into the result instead of copying them: the result is then their only copy, and
    /// `messages()`, `toolCalls()` and `context().compactions` are empty (a saved loop has lost them too).
    /// A driver that is done with the loop once it ends sets it (`Agent::run` does): a long conversation's
    /// history is not copied once more per turn.
    bool handOverAtEnd = false;
};

/// \brief What differs between the runs of one shared `LoopConfig` (`ReactLoop`'s shared constructor): each
/// member left empty takes the configuration's.
struct LoopRun {
    /// In place of `LoopConfig::budget`.
    std::optional<RunBudget> budget;
    /// In place of `LoopConfig::parent`.
    detail::RunLedger* parent = nullptr;
    /// In place of `LoopConfig::countedMessages` and `countedTokens` when `countedTokens` is above 0.
    std::size_t countedMessages = 0;
    std::int64_t countedTokens = 0;
};

/// \brief The loop's next step: ask the model.
struct CallModel {
    llm::ModelRequest request;
    /// 0-based index of this model call (the trip index of any calls it asks for).
    int iteration = 0;
    /// When this call asks again for an answer that did not match the output schema: why it did not
    /// (one line per violation, the first few); empty otherwise.
    std::vector<std::string> rejectedOutput{};
};

/// \brief The loop's next step: run these tool calls and report their records.
struct RunTools {
    std::vector<tools::ToolCallRequest> calls;
    int tripIndex = 0;
};

/// \brief The loop's next step: shorten the history (`messages()`) to `target` tokens, then `onCompacted`.
/// Comes before a model call whose prompt passes the threshold, and after a call the API refused as too
/// long (`reason`).
struct Compact {
    CompactionReason reason = CompactionReason::threshold;
    /// The prompt's tokens now (anchored on the API's count when it gave one).
    std::int64_t promptTokens = 0;
    std::int64_t target = 0;
    /// Ask the API for the exact count first (`CompactionOptions::exactCounts`), and report it with
    /// `onCounted` (the loop then compacts only if it passes the threshold too).
    bool countFirst = false;
};

/// \brief The loop is over; the result is complete (successful or not).
struct Finish {
    RunResult result;
};

/// \brief The loop is over because something failed; the result says what was done before.
struct Fail {
    RunResult result;
};

using LoopAction = std::variant<CallModel, RunTools, Finish, Fail, Compact>;

/// \brief The ReAct loop without I/O: feed it what happened, it says what to do next.
///
/// States: start → CallModel → (reply with tool calls) RunTools → CallModel → ... → Finish | Fail.
/// A reply without tool calls finishes with its text; a successful `final-answer` call finishes with
/// its output; a batch of only silent calls finishes after dispatch; a declaration-only call stops the
/// run for the caller; the iteration limit, a provider error or cancellation fail the run.
///
/// With an output schema (`LoopConfig::output`), an answer that ends the run must be a JSON value that
/// validates (one fenced code block around it is accepted): it is then `RunResult::structuredOutput`.
/// Otherwise the answer goes back to the model in a user message listing the violations (`CallModel::
/// rejectedOutput`), at most `LoopOptions::maxOutputRetries` times and within the iteration limit; past
/// that the run fails with `output_invalid`.
///
/// `final-answer` and `task-complete` (when offered) end a batch where they stand: the calls before it in the
/// reply run (the answer may report what they did); the calls after it are not run — `RunTools` leaves them
/// out, and they are recorded as `ToolErrc::not_run` with a tool message saying why, so that every call of
/// the reply has its result and a model whose answer was refused can call them again.
///
/// The driver (`Agent::run`) performs each action and calls back exactly once per action. Calling out
/// of order is a programming error (`std::logic_error`).
///
/// Every model call counts as one iteration; its 0-based index is the trip index of the calls it asks
/// for. After each tool batch the conversation gets one tool message per call, in call order: the output,
/// the error (`ToolError::describe()`, flagged `isError`) or, for a silent tool, a fixed placeholder so
/// that providers requiring a result per call stay satisfied. Calls to declaration-only tools get no
/// message: the caller executes them (`RunResult::pendingToolCalls`) and supplies their results.
///
/// \par Thread safety
/// None; a loop belongs to one run.
class ReactLoop {
  public:
    /// \brief A loop for one prompt; an `options.maxIterations` below 1 counts as 1.
    ReactLoop(LoopConfig config, std::string prompt);
    /// \brief A loop for the next turn of a conversation: the system prompt, `history` (its system messages
    /// left out), then `prompt`.
    ReactLoop(LoopConfig config, std::vector<llm::Message> history, std::string prompt);
    /// \brief As above, the prompt a whole user message (its text and attachments).
    ReactLoop(LoopConfig config, std::vector<llm::Message> history, llm::Message prompt);
    /// \brief As above, with a configuration that many loops share (an agent's runs): it is kept by pointer,
    /// not copied, and `run` says what differs for this one.
    ReactLoop(std::shared_ptr<const LoopConfig> config, const LoopRun& run, std::vector<llm::Message> history,
              llm::Message prompt);

    /// \brief The first action: always `CallModel`.
    [[nodiscard]] LoopAction start();
    /// \brief After `CallModel`. A failed call's `ProviderError::usage` counts in the run's usage too.
    [[nodiscard]] LoopAction onModelReply(expected<llm::ModelReply, llm::ProviderError> reply);
    /// \brief Counts tokens a model call spent whose reply the loop does not read: a call the driver saw
    /// cancelled (then `onCancelled`). The run's usage must say what was billed.
    void addUsage(const llm::Usage& spent) { chargeUsage(config_->model, spent); }
    /// \brief Why a model call of the run's own besides its turns (a compaction's summary) would pass a
    /// budget, this run's or a calling run's; none when it would not. Such a call is then not made.
    [[nodiscard]] std::optional<std::string> budgetRefusal(const llm::ModelRequest& request);
    /// \brief Counts such a call: its usage (and cost) like a turn's, and one model call for the budgets.
    void chargeSideCall(const llm::Usage& spent);
    /// \brief Records that the model call in flight moved to another provider (`RunResult::fallbacks`).
    void noteFallback(ModelFallback fallback) { record_.fallbacks.push_back(std::move(fallback)); }
    /// \brief After `Compact`: the history as compacted (its leading system and first user message as they
    /// were), and what was done (`Compaction`; the loop sets `iteration`). The history replaces the
    /// loop's, the compaction is recorded (`RunResult::context`), and the model call goes on: sent when it
    /// fits the window, else the run ends with `context_overflow`.
    [[nodiscard]] LoopAction onCompacted(std::vector<llm::Message> messages, Compaction compaction,
                                         std::size_t prompt = CompactionContext::kNoPrompt);
    /// \brief After a `Compact` with `countFirst`: the API's exact count of the request about to go
    /// (`request()`). It anchors the count; the next action is the `Compact` again (without `countFirst`)
    /// when the exact count passes the threshold too, else the model call.
    [[nodiscard]] LoopAction onCounted(std::int64_t tokens);
    /// \brief The request the next model call sends, as it stands (for counting it exactly).
    [[nodiscard]] llm::ModelRequest request() const { return modelRequest(); }
    /// \brief After a `Compact` with `countFirst` whose count failed: the compaction that follows notes
    /// `why` (it goes on from the estimate).
    void noteCountFailed(std::string why);
    /// \brief After `RunTools`: one record per requested call, in order.
    [[nodiscard]] LoopAction onToolResults(std::vector<tools::ToolCallRecord> records);
    /// \brief The driver noticed cancellation; ends the run with `TerminatedBy::cancelled`.
    ///
    /// `inFlight` holds the records of the tool batch that was running, if any, so that the result
    /// still shows those calls (typically as `ToolErrc::cancelled`).
    [[nodiscard]] LoopAction onCancelled(std::vector<tools::ToolCallRecord> inFlight = {});
    /// \brief The driver found the run past its deadline (`RunLedger::deadline`, which the loop does not
    /// watch) before a step; ends the run with `TerminatedBy::budget_exceeded` and `message`.
    [[nodiscard]] LoopAction onOutOfTime(std::string message);
    /// \brief The driver caught an unexpected exception; ends the run with `TerminatedBy::internal_error`
    /// and keeps what was done so far.
    [[nodiscard]] LoopAction onInternalError(std::string message);

    [[nodiscard]] const std::vector<llm::Message>& messages() const noexcept { return messages_; }
    /// \brief Where the prompt this run answers is in `messages()` (a compaction keeps it).
    [[nodiscard]] std::size_t promptIndex() const noexcept { return promptIndex_; }
    [[nodiscard]] int iterations() const noexcept { return iterations_; }
    /// \brief The iteration limit of this run.
    [[nodiscard]] int maxIterations() const noexcept { return config_->options.maxIterations; }
    /// \brief Answers sent back for not matching the output schema so far.
    [[nodiscard]] int outputRetries() const noexcept { return record_.outputRetries; }
    /// \brief How full the context window is: its size, and the last request's prompt.
    [[nodiscard]] const ContextUse& context() const noexcept { return record_.context; }
    /// \brief Tokens used so far.
    [[nodiscard]] const llm::Usage& usage() const noexcept { return record_.usage; }
    /// \brief What the run and its sub-runs spent, with its limits: the tool calls it dispatches hand it
    /// to the runs they start (`ToolContext::ledger`); the driver sets its deadline.
    [[nodiscard]] detail::RunLedger& ledger() noexcept { return ledger_; }
    /// \brief The calls whose results came back so far, in order.
    [[nodiscard]] const std::vector<tools::ToolCallRecord>& toolCalls() const noexcept {
        return record_.toolCalls;
    }
    /// \brief True once a `Finish` or `Fail` was returned.
    [[nodiscard]] bool done() const noexcept {
        return awaiting_ == Awaiting::done || awaiting_ == Awaiting::external;
    }
    /// \brief True when the loop ended with `external_tool_calls` or `approval_required` and waits for
    /// `resume`.
    [[nodiscard]] bool awaitingResults() const noexcept { return awaiting_ == Awaiting::external; }

    /// \brief After a `Finish` with `external_tool_calls`: the results of the pending calls (one per call,
    /// by id, in any order) complete the held batch, and the run goes on exactly as if the calls had run
    /// in it.
    ///
    /// \par Errors
    /// `invalid_state`: the loop is not waiting for results, a pending call has no result, or a result
    /// names a call that is not pending. The loop is unchanged then.
    [[nodiscard]] expected<LoopAction, AgentError> resume(std::vector<ExternalResult> results);
    /// \brief After a `Finish` with `external_tool_calls` or `approval_required`: the results of the
    /// declaration-only calls and the decisions on the calls waiting for approval. Refused calls get an
    /// `approval_denied` error; when some were approved the next action is `RunTools` with just those
    /// (`preApproved`), whose records complete the held batch; otherwise the batch completes now.
    ///
    /// \par Errors
    /// `invalid_state` as above, and for a call waiting for approval without a decision or a decision for
    /// a call that is not waiting. The loop is unchanged then.
    [[nodiscard]] expected<LoopAction, AgentError> resume(std::vector<ExternalResult> results,
                                                          std::vector<ApprovalDecision> decisions);

    /// \brief The run's session state (`ToolContext::session`, `RunResult::sessionState`): set it before
    /// `start`; the driver points each call at it (making it an object first). Saved with the loop.
    [[nodiscard]] nlohmann::json& sessionState() noexcept { return session_; }

    /// \brief The loop's whole state as JSON (`"format": "reagent.run/1"`): where it stands, messages,
    /// iterations, the batch in flight or held, and the result so far. Plain data: store it anywhere.
    [[nodiscard]] nlohmann::json save() const;
    /// \brief A loop that continues from `state` (made by `save`, in this process or another) with `config`
    /// (tools and options; the system prompt is already among the saved messages).
    ///
    /// \par Errors
    /// `invalid_state`, naming the field at fault, for a state that is not one `save` made.
    [[nodiscard]] static expected<ReactLoop, AgentError> restore(LoopConfig config,
                                                                 const nlohmann::json& state);
    /// \brief As above, with a shared configuration and what differs for this run.
    [[nodiscard]] static expected<ReactLoop, AgentError> restore(std::shared_ptr<const LoopConfig> config,
                                                                 const LoopRun& run,
                                                                 const nlohmann::json& state);
    /// \brief For a restored loop: the action it stood at, performed again (`start`'s action, the model call
    /// it awaited, the batch it was running). A loop waiting for `resume` or already done throws
    /// `std::logic_error`.
    [[nodiscard]] LoopAction proceed();

  private:
    enum class Awaiting { start, model, tools, compaction, external, done };
    /// A loop to be filled in by `restore` (or by the constructors above).
    ReactLoop(std::shared_ptr<const LoopConfig> config, const LoopRun& run);
    /// The batch's end: tool messages, checkpoints, then the next action.
    [[nodiscard]] LoopAction completeBatch(std::vector<tools::ToolCallRecord> records);
    /// The result of a run paused for external calls (the held batch shown, not applied).
    [[nodiscard]] LoopAction pausedResult();
    void expectState(Awaiting expected, const char* operation) const;
    /// The batch's tool messages, and a copy of its records in the result.
    void appendToolResults(const std::vector<tools::ToolCallRecord>& records);
    /// The batch's tool messages only.
    void appendToolMessages(const std::vector<tools::ToolCallRecord>& records);
    /// Gathers the checkpoints the batch's calls recorded (`tools::kCheckpointArtifact`).
    void noteCheckpoints(const std::vector<tools::ToolCallRecord>& records);
    /// Keeps the batch's last failure in the session state (`lastToolError`).
    void noteLastError(const std::vector<tools::ToolCallRecord>& records);
    /// Offers the on-demand tools that `records` found or called (`LoopConfig::onDemand`).
    void offerFound(std::span<const tools::ToolCallRecord> records);
    /// Offers the on-demand tool `name` from the next request on; nothing when it is not on demand or
    /// already offered.
    void offerTool(std::string_view name);
    [[nodiscard]] LoopAction callModel();
    /// The `Compact` for a prompt of `prompt` tokens, to `target`.
    [[nodiscard]] LoopAction compact(CompactionReason reason, std::int64_t prompt, std::int64_t target,
                                     bool countFirst = false);
    /// Whether a prompt of `prompt` tokens calls for a compaction before the next request; its target.
    [[nodiscard]] std::optional<std::int64_t> compactionTarget(std::int64_t prompt) const;
    /// Adds a call's usage to the result, and its cost with a price table; charges the ledger.
    void chargeUsage(const std::string& model, const llm::Usage& usage);
    /// Why the budget of this run or of a calling run would be passed by sending `request`; none when no
    /// budget would be.
    [[nodiscard]] std::optional<std::string> overBudgetBeforeCall(const llm::ModelRequest& request);
    /// Why a budget is passed now that a reply was charged; none when none is.
    [[nodiscard]] std::optional<std::string> overBudgetAfterReply() const;
    /// Why a prompt of `prompt` tokens and a reply of up to `reply` would not fit the context window; none
    /// when they would.
    [[nodiscard]] std::optional<std::string> overContextWindow(std::int64_t prompt, std::int64_t reply) const;
    /// The prompt of the next request in tokens (the API's count of the last, plus estimates); kept as
    /// `RunResult::context`'s.
    [[nodiscard]] std::int64_t countPrompt();
    /// The characters of the tools' declarations (`LoopConfig::toolCharacters`), measured on first use.
    [[nodiscard]] std::int64_t toolCharacters();
    /// Why running the pending batch would pass a budget's `maxToolCalls`; none when it would not.
    [[nodiscard]] std::optional<std::string> overBudgetBeforeTools(int batch) const;
    [[nodiscard]] llm::ModelRequest modelRequest() const;
    /// Ends with `output`; `errorMessage` only for an end that is not a success (external calls). With an
    /// output schema, a successful end's answer is checked first, and may be asked for again.
    [[nodiscard]] LoopAction finish(TerminatedBy reason, std::string output, std::string errorMessage = {});
    /// An answer that did not match the output schema: asked for again, or the run fails.
    [[nodiscard]] LoopAction rejectOutput(std::string output, std::vector<std::string> problems);
    /// Ends without an answer; the output is `output` when given, else the last assistant text.
    [[nodiscard]] LoopAction failWith(TerminatedBy reason, std::string message,
                                      std::optional<std::string> output = std::nullopt);
    [[nodiscard]] RunResult completeResult();

    /// Shared by the runs of an agent; what differs per run is in `ledger_` (budget, parent, prices) and
    /// the members below.
    std::shared_ptr<const LoopConfig> config_;
    /// `config_->tools` and the on-demand tools found so far; used once `found_` is set.
    llm::ToolList offered_;
    /// `LoopConfig::toolCharacters`, measured on first use when the configuration did not say.
    std::int64_t toolCharacters_ = -1;
    /// Whether `final-answer` is among the offered tools (it then ends a batch where it stands).
    bool finalAnswerOffered_;
    /// Whether `task-complete` is offered (it ends a batch as `final-answer` does).
    bool taskCompleteOffered_;
    /// An on-demand tool was found: requests offer `offered_`.
    bool found_ = false;
    /// Index in `messages_` of the assistant message that asked for the current batch.
    std::size_t assistantIndex_ = 0;
    std::vector<llm::Message> messages_;
    Awaiting awaiting_ = Awaiting::start;
    int iterations_ = 0;
    std::string lastText_;
    /// Why the last answer did not match the output schema, for the re-ask's `CallModel`.
    std::vector<std::string> rejection_;
    /// The batch handed out with the last `RunTools`.
    std::vector<tools::ToolCallRequest> pending_;
    /// Calls of the last reply that came after `final-answer`: recorded as `not_run`, never executed.
    std::vector<tools::ToolCallRequest> skipped_;
    /// A batch waiting for the results of its declaration-only calls or for approvals (`resume`); still
    /// held while the approved calls run, whose records then take their places in it.
    std::vector<tools::ToolCallRecord> held_;
    /// The session state the run's tools share: null until the run is given one or dispatches a call.
    nlohmann::json session_;
    /// What the run recorded so far; `completeResult` builds the `RunResult` from it.
    detail::RunRecord record_;
    /// The spending the budgets count: this run's (as in `record_`) and its sub-runs'.
    detail::RunLedger ledger_;
    /// The API's count of the last request it answered, which the next request's size starts from.
    std::size_t promptMessages_ = 0;
    std::int64_t promptTokens_ = 0;
    /// The compaction asked for (`Awaiting::compaction`), for `proceed`.
    Compact compacting_;
    /// The history was compacted for the request about to go: it goes as it is now.
    bool compacted_ = false;
    /// The API refused the request in flight as too long once already: a second refusal ends the run.
    bool contextRetried_ = false;
    /// Where the run's prompt is in `messages_`.
    std::size_t promptIndex_ = 0;
    /// Why the exact count before this compaction failed, for its notes.
    std::string countNote_;
    /// The prompt's count after the last compaction (-1: none yet), from which the next one waits.
    std::int64_t compactedTo_ = -1;
};

}  // namespace reagent::agent
