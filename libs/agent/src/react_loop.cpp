#include "reagent/agent/react_loop.hpp"

#include <algorithm>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "compaction_text.hpp"
#include "output_check.hpp"
#include "prompt_count.hpp"
#include "reagent/agent/find_source.hpp"
#include "reagent/llm/fallback_provider.hpp"
#include "reagent/tools/tool_source.hpp"
#include "run_spending.hpp"
#include "tool_attachments.hpp"

namespace reagent::agent {

namespace {

constexpr const char* kSilentPlaceholder = "ok (silent tool; result not shown)";

CallModel modelCall(llm::ModelRequest request, int iteration, std::vector<std::string> rejectedOutput = {}) {
    CallModel call;
    call.request = std::move(request);
    call.iteration = iteration;
    call.rejectedOutput = std::move(rejectedOutput);
    return call;
}

// The model's arguments have been validated against the final-answer schema, but the loop does not
// rely on it: anything unexpected is kept readable rather than dropped.
FinalAnswer parseFinalAnswer(const nlohmann::json& input) {
    FinalAnswer answer;
    if (!input.is_object()) {
        answer.output = input.is_string()
                            ? input.get<std::string>()
                            : input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return answer;
    }
    if (auto it = input.find("output"); it != input.end()) {
        answer.output = it->is_string() ? it->get<std::string>() : it->dump();
    }
    if (auto it = input.find("format");
        it != input.end() && it->is_string() && !it->get<std::string>().empty()) {
        answer.format = it->get<std::string>();
    }
    if (auto it = input.find("summary"); it != input.end() && it->is_string()) {
        answer.summary = it->get<std::string>();
    }
    if (auto it = input.find("confidence"); it != input.end() && it->is_number()) {
        answer.confidence = it->get<double>();
    }
    return answer;
}

bool isSuccessfulFinalAnswer(const tools::ToolCallRecord& record) {
    return record.name == kFinalAnswerTool && record.succeeded();
}

bool isSuccessfulTaskComplete(const tools::ToolCallRecord& record) {
    return record.name == kTaskCompleteTool && record.succeeded();
}

std::string taskSummary(const nlohmann::json& input) {
    if (input.is_object()) {
        if (auto it = input.find("summary"); it != input.end()) {
            return it->is_string() ? it->get<std::string>() : it->dump();
        }
    }
    return input.is_string() ? input.get<std::string>()
                             : input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool offers(const llm::ToolList& tools, std::string_view name) {
    return std::any_of(tools.begin(), tools.end(),
                       [name](const llm::ToolSpec& spec) { return spec.name == name; });
}

bool isExternal(const tools::ToolCallRecord& record) {
    return !record.succeeded() && record.outcome.error().code == tools::ToolErrc::not_executable;
}

bool awaitsApproval(const tools::ToolCallRecord& record) {
    return !record.succeeded() && record.outcome.error().code == tools::ToolErrc::approval_pending;
}

// A call the run cannot answer itself: the caller executes it, or decides on it.
bool isPaused(const tools::ToolCallRecord& record) {
    return isExternal(record) || awaitsApproval(record);
}

// A failure that counts as the run's last tool error (not a pause, not a call left unrun).
bool isToolFailure(const tools::ToolCallRecord& record) {
    return !record.succeeded() && !isPaused(record) &&
           record.outcome.error().code != tools::ToolErrc::not_run;
}

// A held batch with the records of its calls that ran since (approved on resume) in their places; `held` is
// left empty.
std::vector<tools::ToolCallRecord> fillHeld(std::vector<tools::ToolCallRecord>& held,
                                            std::vector<tools::ToolCallRecord> ran) {
    for (tools::ToolCallRecord& record : ran) {
        const auto slot = std::find_if(held.begin(), held.end(), [&](const tools::ToolCallRecord& waiting) {
            return waiting.id == record.id;
        });
        if (slot != held.end()) {
            *slot = std::move(record);
        }
    }
    return std::exchange(held, {});
}

// The answer (a result or a decision) for call `id`, marked in `used`; null when none names it.
template <class Answer>
Answer* claim(std::vector<Answer>& answers, std::vector<bool>& used, const std::string& id) {
    const auto found = std::find_if(answers.begin(), answers.end(),
                                    [&](const Answer& answer) { return answer.callId == id; });
    if (found == answers.end()) {
        return nullptr;
    }
    used[static_cast<std::size_t>(found - answers.begin())] = true;
    return &*found;
}

// The first answer no paused call claimed, or null.
template <class Answer>
const Answer* unclaimed(const std::vector<Answer>& answers, const std::vector<bool>& used) {
    for (std::size_t i = 0; i < answers.size(); ++i) {
        if (!used[i]) {
            return &answers[i];
        }
    }
    return nullptr;
}

// The merge of artifacts bags: objects merge key by key, arrays concatenate, the rest is replaced.
void mergeArtifacts(nlohmann::json& into, const nlohmann::json& from) {
    if (!from.is_object()) {
        return;
    }
    for (auto it = from.begin(); it != from.end(); ++it) {
        auto existing = into.find(it.key());
        if (existing == into.end()) {
            into[it.key()] = it.value();
        } else if (existing->is_object() && it->is_object()) {
            mergeArtifacts(*existing, *it);
        } else if (existing->is_array() && it->is_array()) {
            existing->insert(existing->end(), it->begin(), it->end());
        } else {
            *existing = *it;
        }
    }
}

}  // namespace

ReactLoop::ReactLoop(LoopConfig config, std::string prompt)
    : ReactLoop(std::move(config), {}, llm::Message::user(std::move(prompt))) {}

ReactLoop::ReactLoop(LoopConfig config, std::vector<llm::Message> history, std::string prompt)
    : ReactLoop(std::move(config), std::move(history), llm::Message::user(std::move(prompt))) {}

ReactLoop::ReactLoop(LoopConfig config, std::vector<llm::Message> history, llm::Message prompt)
    : ReactLoop(std::make_shared<const LoopConfig>(std::move(config)), LoopRun{}, std::move(history),
                std::move(prompt)) {}

ReactLoop::ReactLoop(std::shared_ptr<const LoopConfig> config, const LoopRun& run,
                     std::vector<llm::Message> history, llm::Message prompt)
    : ReactLoop(std::move(config), run) {
    if (!config_->systemPrompt.empty()) {
        messages_.push_back(llm::Message::system(config_->systemPrompt));
    }
    for (llm::Message& message : history) {
        if (message.role != llm::Role::system) {  // the agent's own system prompt leads
            messages_.push_back(std::move(message));
        }
    }
    messages_.push_back(std::move(prompt));
    promptIndex_ = messages_.size() - 1;
    if (!config_->onDemand.empty()) {
        // A tool called earlier in the conversation is offered again at once: the model may go on using it.
        for (const llm::Message& message : messages_) {
            for (const llm::ToolCall& call : message.toolCalls) {
                offerTool(call.name);
            }
        }
    }
    const bool runCounted = run.countedTokens > 0;
    const std::size_t countedMessages = runCounted ? run.countedMessages : config_->countedMessages;
    const std::int64_t countedTokens = runCounted ? run.countedTokens : config_->countedTokens;
    if (countedTokens > 0 && countedMessages < messages_.size()) {
        promptMessages_ = countedMessages;  // an earlier run's count of the messages this one repeats
        promptTokens_ = countedTokens;
    }
}

void ReactLoop::expectState(Awaiting expected, const char* operation) const {
    if (awaiting_ == expected) {
        return;
    }
    const char* state = "after the run ended";
    switch (awaiting_) {
        case Awaiting::start:
            state = "before start()";
            break;
        case Awaiting::model:
            state = "while awaiting a model reply";
            break;
        case Awaiting::tools:
            state = "while awaiting tool results";
            break;
        case Awaiting::compaction:
            state = "while awaiting the history's compaction";
            break;
        case Awaiting::external:
            state = "while the run waits for declaration-only results (resume())";
            break;
        case Awaiting::done:
            break;
    }
    throw std::logic_error(std::string("ReactLoop::") + operation + " called " + state +
                           "; the driver must perform each action and report it exactly once");
}

LoopAction ReactLoop::start() {
    expectState(Awaiting::start, "start()");
    return callModel();
}

llm::ModelRequest ReactLoop::modelRequest() const {
    llm::ModelRequest request;
    request.messages = messages_;
    request.tools = found_ ? offered_ : config_->tools;
    request.temperature = config_->options.temperature;
    request.maxTokens = config_->options.maxTokens;
    request.output = config_->outputFormat;
    return request;
}

LoopAction ReactLoop::callModel() {
    llm::ModelRequest request = modelRequest();
    if (config_->contextWindow) {
        const std::int64_t prompt = countPrompt();
        if (config_->compaction && !compacted_) {
            if (const auto target = compactionTarget(prompt)) {
                return compact(CompactionReason::threshold, prompt, *target,
                               config_->compaction->exactCounts);
            }
        }
        if (auto over = overContextWindow(prompt, request.maxTokens.value_or(0))) {
            return failWith(TerminatedBy::context_overflow, std::move(*over));
        }
    }
    if (ledger_.limited()) {
        if (auto over = overBudgetBeforeCall(request)) {
            return failWith(TerminatedBy::budget_exceeded, std::move(*over));
        }
    }
    if (ledger_.counting) {
        Spending call;
        call.modelCalls = 1;
        ledger_.charge(call);
    }
    awaiting_ = Awaiting::model;
    const int iteration = iterations_++;
    return modelCall(std::move(request), iteration, std::exchange(rejection_, {}));
}

std::int64_t ReactLoop::countPrompt() {
    const std::int64_t prompt =
        detail::promptTokens(messages_, toolCharacters(), {promptMessages_, promptTokens_},
                             detail::charactersPerToken(config_->model),
                             detail::hiddenPromptTokens(config_->model, !config_->tools.empty()));
    record_.context.promptTokens = prompt;
    return prompt;
}

std::optional<std::int64_t> ReactLoop::compactionTarget(std::int64_t prompt) const {
    // The prompt's room is the window less the reply's reserve; past the threshold's share of it the
    // history is compacted to the target's share.
    const CompactionOptions& options = *config_->compaction;
    const std::int64_t reserve =
        config_->options.maxTokens ? *config_->options.maxTokens : options.replyReserve;
    const auto room = static_cast<double>(std::max<std::int64_t>(*config_->contextWindow - reserve, 0));
    // After a compaction that could not reach its target, the next waits until the prompt has grown by the
    // gap between threshold and target again: never a compaction (and a summary) per request.
    // A prompt past the room itself is compacted whatever the wait: it would not be sent.
    const double floor =
        compactedTo_ < 0 ? 0
                         : static_cast<double>(compactedTo_) + (options.threshold - options.target) * room;
    const double trigger = std::min(std::max(options.threshold * room, floor), room);
    if (static_cast<double>(prompt) <= trigger) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(options.target * room);
}

LoopAction ReactLoop::compact(CompactionReason reason, std::int64_t prompt, std::int64_t target,
                              bool countFirst) {
    awaiting_ = Awaiting::compaction;
    compacting_ = Compact{reason, prompt, std::max<std::int64_t>(target, 0), countFirst};
    return compacting_;
}

LoopAction ReactLoop::onCounted(std::int64_t tokens) {
    expectState(Awaiting::compaction, "onCounted()");
    promptMessages_ = messages_.size();
    promptTokens_ = std::max<std::int64_t>(tokens, 0);
    record_.context.promptTokens = promptTokens_;
    if (config_->contextWindow && config_->compaction) {
        if (const auto target = compactionTarget(promptTokens_)) {
            return compact(compacting_.reason, promptTokens_, *target);
        }
    }
    compacted_ = true;  // counted exactly: it goes as it is
    return callModel();
}

void ReactLoop::noteCountFailed(std::string why) {
    countNote_ = "the exact count failed, the estimate was used: " + std::move(why);
}

LoopAction ReactLoop::onCompacted(std::vector<llm::Message> messages, Compaction compaction,
                                  std::size_t prompt) {
    expectState(Awaiting::compaction, "onCompacted()");
    compaction.iteration = iterations_;
    compaction.reason = compacting_.reason;
    if (!countNote_.empty()) {
        compaction.notes.insert(compaction.notes.begin(), std::exchange(countNote_, {}));
    }
    compaction.messagesBefore = messages_.size();
    if (!messages.empty()) {
        if (prompt == CompactionContext::kNoPrompt || prompt >= messages.size()) {
            // Not told: the last user message with the prompt's text.
            const std::string& text = messages_[std::min(promptIndex_, messages_.size() - 1)].text;
            prompt = detail::lastUserMessageWith(messages, 0, text);
            prompt = prompt < messages.size() ? prompt : 0;
        }
        promptIndex_ = prompt;
        messages_ = std::move(messages);
        compaction.messagesAfter = messages_.size();
        // The API's count was of the history before.
        record_.context.countedMessages = 0;
        record_.context.countedTokens = 0;
        // The compacted prompt's count (estimated, scaled to the API's) is where the next one starts.
        promptMessages_ = messages_.size();
        promptTokens_ = compaction.tokensAfter;
    }
    compactedTo_ = compaction.tokensAfter;
    record_.context.compactions.push_back(std::move(compaction));
    compacted_ = true;
    // The checkpoints point at the replies that asked for their calls, where those are now; a reply
    // compacted away leaves the pinned messages as the state before the change.
    for (CheckpointMark& mark : record_.checkpoints) {
        const auto reply = std::find_if(messages_.begin(), messages_.end(), [&](const llm::Message& message) {
            return std::any_of(message.toolCalls.begin(), message.toolCalls.end(),
                               [&](const llm::ToolCall& call) { return call.id == mark.toolCallId; });
        });
        mark.messageIndex = reply != messages_.end() ? static_cast<std::size_t>(reply - messages_.begin())
                                                     : detail::pinnedEnd(messages_);
    }
    return callModel();
}

std::optional<std::string> ReactLoop::overContextWindow(std::int64_t prompt, std::int64_t reply) const {
    const std::int64_t window = *config_->contextWindow;
    if (prompt + reply <= window) {
        return std::nullopt;
    }
    return "context: the next request takes about " + std::to_string(prompt) + " tokens" +
           (reply > 0 ? " and its reply up to " + std::to_string(reply) : std::string()) +
           ", past the context window of " + std::to_string(window) + " tokens; it was not sent" +
           (record_.context.compactions.empty()
                ? std::string()
                : " (even after compacting the history to about " +
                      std::to_string(record_.context.compactions.back().tokensAfter) + " tokens)") +
           ". Start from a shorter history, or give the model's window if it is larger (withContextWindow)";
}

std::optional<std::string> ReactLoop::overBudgetBeforeCall(const llm::ModelRequest& request) {
    return detail::overAnyBudget(ledger_, [&](const detail::RunLedger& run) {
        const bool estimated = run.budget.maxTotalTokens || run.budget.maxCost;
        return detail::overBeforeCall(run.budget, run.total(), request, estimated ? toolCharacters() : 0,
                                      ledger_.prices.get(), config_->model);
    });
}

std::optional<std::string> ReactLoop::budgetRefusal(const llm::ModelRequest& request) {
    if (!ledger_.limited()) {
        return std::nullopt;
    }
    // The call's own tools, not the run's: a summary offers none.
    return detail::overAnyBudget(ledger_, [&](const detail::RunLedger& run) {
        return detail::overBeforeCall(run.budget, run.total(), request,
                                      detail::toolDeclarationCharacters(request.tools), ledger_.prices.get(),
                                      config_->model);
    });
}

void ReactLoop::chargeSideCall(const llm::Usage& spent) {
    chargeUsage(config_->model, spent);
    if (ledger_.counting) {
        Spending call;
        call.modelCalls = 1;
        ledger_.charge(call);
    }
}

std::optional<std::string> ReactLoop::overBudgetAfterReply() const {
    const std::string& currency = record_.cost ? record_.cost->currency : std::string("USD");
    return detail::overAnyBudget(ledger_, [&](const detail::RunLedger& run) {
        return detail::overAfterReply(run.budget, run.total(), currency);
    });
}

std::optional<std::string> ReactLoop::overBudgetBeforeTools(int batch) const {
    return detail::overAnyBudget(ledger_, [&](const detail::RunLedger& run) {
        return detail::overBeforeTools(run.budget, run.total().toolCalls, batch);
    });
}

std::int64_t ReactLoop::toolCharacters() {
    if (toolCharacters_ < 0) {
        toolCharacters_ = detail::toolDeclarationCharacters(found_ ? offered_ : config_->tools);
    }
    return toolCharacters_;
}

LoopAction ReactLoop::onModelReply(expected<llm::ModelReply, llm::ProviderError> reply) {
    expectState(Awaiting::model, "onModelReply()");
    if (!reply) {
        chargeUsage(config_->model, reply.error().usage);  // a stream cut mid-way was billed for what it used
        // A provider that reports its own cancellation ends the run the same way as the driver noticing it.
        if (reply.error().code == llm::ProviderErrc::cancelled) {
            return failWith(TerminatedBy::cancelled, reply.error().describe());
        }
        // The API found the request longer than its window: compacted once to half its count, then sent
        // again; a second refusal ends the run.
        if (config_->compaction && !contextRetried_ && llm::isContextLengthExceeded(reply.error())) {
            contextRetried_ = true;
            compacted_ = false;
            const std::int64_t prompt = countPrompt();
            std::int64_t target = prompt / 2;
            if (config_->contextWindow) {
                target =
                    std::min(target, static_cast<std::int64_t>(config_->compaction->target *
                                                               static_cast<double>(*config_->contextWindow)));
            }
            return compact(CompactionReason::context_error, prompt, target);
        }
        return failWith(TerminatedBy::provider_error, reply.error().describe());
    }
    chargeUsage(reply->model.empty() ? config_->model : reply->model, reply->usage);
    compacted_ = false;
    contextRetried_ = false;
    if (reply->usage.inputTokens > 0) {
        // The API counted this request (the messages as they stand: nothing is added while a call is in
        // flight): the next one is this much, plus what is added to it.
        promptMessages_ = messages_.size();
        promptTokens_ = reply->usage.inputTokens;
        record_.context.promptTokens = promptTokens_;
        record_.context.countedMessages = promptMessages_;
        record_.context.countedTokens = promptTokens_;
    }
    if (!reply->text.empty()) {
        lastText_ = reply->text;
    }
    messages_.push_back(llm::Message::assistant(reply->text, reply->toolCalls));
    if (ledger_.limited()) {
        if (auto over = overBudgetAfterReply()) {
            // The reply stays in the history and is the output: it was paid for.
            return failWith(TerminatedBy::budget_exceeded, std::move(*over), reply->text);
        }
    }
    if (reply->toolCalls.empty()) {
        return finish(TerminatedBy::end_turn, std::move(reply->text));
    }
    pending_.clear();
    skipped_.clear();
    pending_.reserve(reply->toolCalls.size());
    // `final-answer` (and `task-complete`) ends the run where it stands in the batch: the calls before it
    // run (the answer may report what they did), the calls after it do not (nothing could read their
    // results).
    assistantIndex_ = messages_.size() - 1;
    bool answered = false;
    for (llm::ToolCall& call : reply->toolCalls) {
        tools::ToolCallRequest request{std::move(call.id), std::move(call.name), std::move(call.arguments)};
        if (call.invalidArguments) {
            request.argumentsProblem = std::move(call.invalidArguments->problem);
        }
        (answered ? skipped_ : pending_).push_back(std::move(request));
        answered = answered || (finalAnswerOffered_ && pending_.back().name == kFinalAnswerTool) ||
                   (taskCompleteOffered_ && pending_.back().name == kTaskCompleteTool);
    }
    if (ledger_.counting) {
        Spending batch;
        batch.toolCalls = detail::countedToolCalls(pending_);
        if (auto over = overBudgetBeforeTools(batch.toolCalls)) {
            return failWith(TerminatedBy::budget_exceeded, std::move(*over));
        }
        ledger_.charge(batch);
    }
    awaiting_ = Awaiting::tools;
    return RunTools{pending_, iterations_ - 1};
}

void ReactLoop::chargeUsage(const std::string& model, const llm::Usage& usage) {
    record_.usage += usage;
    if (!record_.cost && !ledger_.counting) {
        return;
    }
    const Spending spent = detail::priced(ledger_.prices.get(), model, usage);
    if (record_.cost) {
        detail::addCost(*record_.cost, spent);
    }
    ledger_.charge(spent);
}

void ReactLoop::appendToolResults(const std::vector<tools::ToolCallRecord>& records) {
    appendToolMessages(records);
    record_.toolCalls.insert(record_.toolCalls.end(), records.begin(), records.end());
}

void ReactLoop::appendToolMessages(const std::vector<tools::ToolCallRecord>& records) {
    for (const tools::ToolCallRecord& record : records) {
        if (isPaused(record)) {
            continue;  // the caller supplies this result, or decides whether the call runs
        }
        if (record.mode == tools::ToolMode::silent) {
            messages_.push_back(llm::Message::toolResult(record.id, record.name, kSilentPlaceholder));
        } else if (record.succeeded()) {
            llm::Message message = llm::Message::toolResult(record.id, record.name, *record.outcome);
            if (!record.content.empty()) {
                // Images and documents the tool returned beside its text reach the model as parts.
                message.attachments = detail::attachmentsOf(record.content, message.text);
            }
            messages_.push_back(std::move(message));
        } else {
            messages_.push_back(
                llm::Message::toolResult(record.id, record.name, record.outcome.error().describe(), true));
        }
    }
}

LoopAction ReactLoop::onToolResults(std::vector<tools::ToolCallRecord> records) {
    expectState(Awaiting::tools, "onToolResults()");
    if (records.size() != pending_.size()) {
        throw std::logic_error("ReactLoop::onToolResults() got " + std::to_string(records.size()) +
                               " records for a batch of " + std::to_string(pending_.size()) + " calls");
    }
    if (!held_.empty()) {
        records = fillHeld(held_, std::move(records));  // the approved calls of a held batch ran
    }
    const std::string terminalName =
        std::any_of(records.begin(), records.end(),
                    [](const tools::ToolCallRecord& record) { return record.name == kTaskCompleteTool; })
            ? kTaskCompleteTool
            : kFinalAnswerTool;
    for (tools::ToolCallRequest& call : skipped_) {
        tools::ToolCallRecord record;
        record.id = std::move(call.id);
        record.tripIndex = iterations_ - 1;
        record.name = std::move(call.name);
        record.input = std::move(call.arguments);
        record.outcome = unexpected(tools::ToolError{
            tools::ToolErrc::not_run,
            "not run: this call came after " + terminalName + " in the same reply, and " + terminalName +
                " ends the run; call it before " + terminalName + ", in an earlier reply"});
        records.push_back(std::move(record));
    }
    skipped_.clear();

    // A batch with declaration-only calls waits for their results (unless it also ended the run): held
    // whole, so that on `resume` the tool messages go in call order, as if nothing had stopped.
    const bool answered =
        std::any_of(records.begin(), records.end(), [](const tools::ToolCallRecord& record) {
            return isSuccessfulFinalAnswer(record) || isSuccessfulTaskComplete(record);
        });
    if (!answered && std::any_of(records.begin(), records.end(), isPaused)) {
        held_ = std::move(records);
        awaiting_ = Awaiting::external;
        return pausedResult();
    }
    return completeBatch(std::move(records));
}

LoopAction ReactLoop::completeBatch(std::vector<tools::ToolCallRecord> incoming) {
    appendToolMessages(incoming);
    noteCheckpoints(incoming);
    noteLastError(incoming);
    // The records move to the result, and are read there: a batch's records are not copied.
    const auto first = static_cast<std::ptrdiff_t>(record_.toolCalls.size());
    record_.toolCalls.insert(record_.toolCalls.end(), std::make_move_iterator(incoming.begin()),
                             std::make_move_iterator(incoming.end()));
    const std::span<const tools::ToolCallRecord> records(record_.toolCalls.begin() + first,
                                                         record_.toolCalls.end());

    offerFound(records);

    const auto answer = std::find_if(records.begin(), records.end(), isSuccessfulFinalAnswer);
    if (answer != records.end()) {
        FinalAnswer parsed = parseFinalAnswer(answer->input);
        std::string output = parsed.output;
        record_.finalAnswer = std::move(parsed);
        return finish(TerminatedBy::final_answer, std::move(output));
    }
    const auto completed = std::find_if(records.begin(), records.end(), isSuccessfulTaskComplete);
    if (completed != records.end()) {
        return finish(TerminatedBy::task_complete, taskSummary(completed->input));
    }

    const bool allSilent = std::all_of(
        records.begin(), records.end(),
        [](const tools::ToolCallRecord& record) { return record.mode == tools::ToolMode::silent; });
    if (allSilent) {
        return finish(TerminatedBy::silent_tools, lastText_);
    }
    if (iterations_ >= config_->options.maxIterations) {
        return failWith(TerminatedBy::max_iterations,
                        "reached the limit of " + std::to_string(config_->options.maxIterations) +
                            " iterations without a final answer; raise it with withMaxIterations");
    }
    return callModel();
}

void ReactLoop::offerFound(std::span<const tools::ToolCallRecord> records) {
    if (config_->onDemand.empty()) {
        return;
    }
    for (const tools::ToolCallRecord& record : records) {
        offerTool(record.name);  // called by name, found or not: the model knows it
        if (record.name != kFindTool || !record.succeeded() || !record.structured.is_object()) {
            continue;
        }
        const auto tools = record.structured.find("tools");
        if (tools == record.structured.end() || !tools->is_array()) {
            continue;
        }
        for (const nlohmann::json& hit : *tools) {
            if (hit.is_object()) {
                if (const auto name = hit.find("name"); name != hit.end() && name->is_string()) {
                    offerTool(name->get_ref<const std::string&>());
                }
            }
        }
    }
}

void ReactLoop::offerTool(std::string_view name) {
    const auto& onDemand = config_->onDemand.specs();
    const auto spec = std::find_if(onDemand.begin(), onDemand.end(),
                                   [&](const llm::ToolSpec& each) { return each.name == name; });
    if (spec == onDemand.end()) {
        return;
    }
    if (!found_) {
        offered_ = llm::ToolList(config_->tools.specs());
        found_ = true;
    } else if (std::any_of(offered_.begin() + static_cast<std::ptrdiff_t>(config_->tools.size()),
                           offered_.end(), [&](const llm::ToolSpec& each) { return each.name == name; })) {
        return;
    }
    offered_.push_back(*spec);
    toolCharacters_ = -1;  // the budget's estimates measure the longer list
}

LoopAction ReactLoop::pausedResult() {
    // The result shows the batch as it stands (the other calls' messages, every record), while the loop
    // keeps the batch held: the members are applied, copied out, and put back.
    const std::vector<llm::Message> keptMessages = messages_;
    const detail::RunRecord keptRecord = record_;
    appendToolResults(held_);
    noteCheckpoints(held_);
    std::vector<tools::ToolCallRequest> external;
    std::vector<tools::ToolCallRequest> approvals;
    std::string names;
    std::string approvalNames;
    for (const tools::ToolCallRecord& record : held_) {
        if (isExternal(record)) {
            external.push_back(tools::ToolCallRequest{record.id, record.name, record.input});
            names += (names.empty() ? "" : ", ") + record.name;
        } else if (awaitsApproval(record)) {
            approvals.push_back(tools::ToolCallRequest{record.id, record.name, record.input});
            approvalNames += (approvalNames.empty() ? "" : ", ") + record.name;
        }
    }
    RunResult paused = completeResult();
    paused.pendingToolCalls = std::move(external);
    paused.pendingApprovals = std::move(approvals);
    paused.output = lastText_;
    if (!approvalNames.empty()) {
        paused.terminatedBy = TerminatedBy::approval_required;
        paused.errorMessage =
            "calls wait for approval (" + approvalNames + ")" +
            (names.empty() ? "" : " and declaration-only calls for results (" + names + ")") +
            "; decide on them and continue (see pendingApprovals, and Agent::resumeWith with "
            "RunResult::state and the decisions)";
    } else {
        paused.terminatedBy = TerminatedBy::external_tool_calls;
        paused.errorMessage = "the model called declaration-only tools (" + names +
                              "); execute them and continue with their results (see pendingToolCalls, and "
                              "Agent::resume with RunResult::state)";
    }
    messages_ = keptMessages;
    record_ = keptRecord;
    return Finish{std::move(paused)};
}

expected<LoopAction, AgentError> ReactLoop::resume(std::vector<ExternalResult> results) {
    return resume(std::move(results), {});
}

expected<LoopAction, AgentError> ReactLoop::resume(std::vector<ExternalResult> results,
                                                   std::vector<ApprovalDecision> decisions) {
    if (awaiting_ != Awaiting::external) {
        return fail(
            AgentError{AgentErrc::invalid_state, "this run is not waiting for tool results or approvals"});
    }
    // Each paused call's answer, found once: nothing is applied until every call has one and nothing
    // else was given, so a refused resume leaves the loop as it was.
    std::vector<bool> resultUsed(results.size(), false);
    std::vector<bool> decisionUsed(decisions.size(), false);
    std::vector<ExternalResult*> matchedResult(held_.size(), nullptr);
    std::vector<ApprovalDecision*> matchedDecision(held_.size(), nullptr);
    std::string missing;
    std::string undecided;
    for (std::size_t i = 0; i < held_.size(); ++i) {
        const tools::ToolCallRecord& record = held_[i];
        const auto named = " " + record.id + " (" + record.name + ")";
        if (isExternal(record)) {
            matchedResult[i] = claim(results, resultUsed, record.id);
            if (matchedResult[i] == nullptr) {
                missing += (missing.empty() ? "" : ",") + named;
            }
        } else if (awaitsApproval(record)) {
            matchedDecision[i] = claim(decisions, decisionUsed, record.id);
            if (matchedDecision[i] == nullptr) {
                undecided += (undecided.empty() ? "" : ",") + named;
            }
        }
    }
    if (!missing.empty()) {
        return fail(
            AgentError{AgentErrc::invalid_state, "no result supplied for the pending call(s)" + missing});
    }
    if (!undecided.empty()) {
        return fail(AgentError{AgentErrc::invalid_state,
                               "no decision supplied for the call(s) waiting for approval" + undecided});
    }
    if (const ExternalResult* extra = unclaimed(results, resultUsed)) {
        return fail(AgentError{AgentErrc::invalid_state, "a result was supplied for call '" + extra->callId +
                                                             "', which is not a pending call of this run"});
    }
    if (const ApprovalDecision* extra = unclaimed(decisions, decisionUsed)) {
        return fail(AgentError{AgentErrc::invalid_state,
                               "a decision was supplied for call '" + extra->callId +
                                   "', which is not a call of this run waiting for approval"});
    }
    std::vector<tools::ToolCallRequest> approved;
    for (std::size_t i = 0; i < held_.size(); ++i) {
        tools::ToolCallRecord& record = held_[i];
        if (matchedResult[i] != nullptr) {
            record.outcome = std::move(matchedResult[i]->outcome);
            if (!record.outcome && (record.outcome.error().code == tools::ToolErrc::not_executable ||
                                    record.outcome.error().code == tools::ToolErrc::approval_pending)) {
                record.outcome.error().code = tools::ToolErrc::failed;  // never taken for paused again
            }
        } else if (matchedDecision[i] != nullptr && matchedDecision[i]->approved) {
            tools::ToolCallRequest call{record.id, record.name, record.input};
            call.preApproved = true;
            approved.push_back(std::move(call));
        } else if (matchedDecision[i] != nullptr) {
            const std::string& reason = matchedDecision[i]->reason;
            tools::ToolError refusal{tools::ToolErrc::approval_denied,
                                     "refused: the call to tool " + record.name + " was not approved" +
                                         (reason.empty() ? std::string() : ": " + reason)};
            refusal.tool = record.name;
            refusal.tripIndex = record.tripIndex;
            record.outcome = unexpected(std::move(refusal));
        }
    }
    awaiting_ = Awaiting::tools;
    if (!approved.empty()) {
        // The held batch stays held; the approved calls' records take their places (onToolResults).
        pending_ = std::move(approved);
        return LoopAction{RunTools{pending_, iterations_ - 1}};
    }
    auto records = std::move(held_);
    held_.clear();
    return completeBatch(std::move(records));
}

LoopAction ReactLoop::onCancelled(std::vector<tools::ToolCallRecord> inFlight) {
    if (awaiting_ == Awaiting::done) {
        expectState(Awaiting::model, "onCancelled()");  // throws: the run is over
    }
    std::string where = "before it started";
    if (awaiting_ == Awaiting::model) {
        where = "while waiting for the model (iteration " + std::to_string(iterations_) + ")";
    } else if (awaiting_ == Awaiting::compaction) {
        where = "while compacting the history (before iteration " + std::to_string(iterations_ + 1) + ")";
    } else if (awaiting_ == Awaiting::tools) {
        where = "while tools were running (iteration " + std::to_string(iterations_) + ")";
        if (!held_.empty()) {
            // Approved calls of a resumed batch were running: the batch shows whole, in call order.
            inFlight = fillHeld(held_, std::move(inFlight));
        }
        appendToolResults(inFlight);
    }
    return failWith(TerminatedBy::cancelled, "the run was cancelled " + where);
}

LoopAction ReactLoop::onOutOfTime(std::string message) {
    if (done()) {
        expectState(Awaiting::model, "onOutOfTime()");  // throws: the run is over
    }
    return failWith(TerminatedBy::budget_exceeded, std::move(message));
}

LoopAction ReactLoop::onInternalError(std::string message) {
    if (awaiting_ == Awaiting::done) {
        expectState(Awaiting::model, "onInternalError()");  // throws: the run is over
    }
    return failWith(TerminatedBy::internal_error, std::move(message));
}

void ReactLoop::noteLastError(const std::vector<tools::ToolCallRecord>& records) {
    const auto last = std::find_if(records.rbegin(), records.rend(), isToolFailure);
    if (last != records.rend()) {
        const tools::ToolError& error = last->outcome.error();
        session_["lastToolError"] = {{"toolId", last->name},
                                     {"code", tools::toString(error.code)},
                                     {"error", error.message},
                                     {"args", last->input}};
    }
}

void ReactLoop::noteCheckpoints(const std::vector<tools::ToolCallRecord>& records) {
    for (const tools::ToolCallRecord& record : records) {
        if (!record.artifacts.is_object()) {
            continue;
        }
        const auto id = record.artifacts.find(tools::kCheckpointArtifact);
        if (id != record.artifacts.end() && id->is_string()) {
            record_.checkpoints.push_back(CheckpointMark{id->get<std::string>(), record.id, record.name,
                                                         record.tripIndex, assistantIndex_});
        }
    }
}

RunResult ReactLoop::completeResult() {
    // Handed over (`LoopConfig::handOverAtEnd`) only when the loop is over: one that pauses for `resume`
    // keeps them.
    const bool over = config_->handOverAtEnd && awaiting_ == Awaiting::done;
    // Moved out of the loop when it is over, copied otherwise (the moved-from members are left empty).
    const auto take = [over](auto& member) {
        auto taken = over ? std::move(member) : member;
        if (over) {
            member = {};
        }
        return taken;
    };
    RunResult result;
    result.toolCalls = take(record_.toolCalls);
    result.context = take(record_.context);
    result.checkpoints = take(record_.checkpoints);
    result.fallbacks = take(record_.fallbacks);
    result.finalAnswer = take(record_.finalAnswer);
    result.structuredOutput = take(record_.structuredOutput);
    result.output = take(record_.output);
    result.errorMessage = take(record_.errorMessage);
    result.messages = take(messages_);
    result.usage = record_.usage;
    result.cost = record_.cost;
    result.outputRetries = record_.outputRetries;
    result.terminatedBy = record_.terminatedBy;
    result.subRuns = ledger_.subRuns;
    result.iterations = iterations_;
    if (!session_.is_object()) {
        result.sessionState = nlohmann::json::object();
    } else if (over) {
        result.sessionState = std::move(session_);
    } else {
        result.sessionState = session_;
    }
    const auto last = std::find_if(result.toolCalls.rbegin(), result.toolCalls.rend(), isToolFailure);
    if (last != result.toolCalls.rend()) {
        result.lastToolError = LastToolError{last->name, last->outcome.error(), last->input};
    }
    // Most runs' tools fill no artifacts: then there is nothing to merge (and nothing allocated).
    const bool anyArtifacts = std::any_of(
        result.toolCalls.begin(), result.toolCalls.end(),
        [](const auto& record) { return record.artifacts.is_object() && !record.artifacts.empty(); });
    if (anyArtifacts) {
        result.artifacts = nlohmann::json::object();
        result.iterationArtifacts.assign(static_cast<std::size_t>(iterations_), nlohmann::json::object());
        for (const tools::ToolCallRecord& record : result.toolCalls) {
            if (record.tripIndex >= 0 && record.tripIndex < iterations_ && record.artifacts.is_object()) {
                mergeArtifacts(result.iterationArtifacts[static_cast<std::size_t>(record.tripIndex)],
                               record.artifacts);
            }
        }
        for (const nlohmann::json& bag : result.iterationArtifacts) {
            mergeArtifacts(result.artifacts, bag);
        }
    }
    return result;
}

LoopAction ReactLoop::finish(TerminatedBy reason, std::string output, std::string errorMessage) {
    if (config_->output && isSuccess(reason)) {
        auto checked = detail::checkOutput(*config_->output, output);
        if (!checked) {
            return rejectOutput(std::move(output), std::move(checked.error()));
        }
        record_.structuredOutput = std::move(*checked);
    }
    awaiting_ = Awaiting::done;
    record_.output = std::move(output);
    record_.terminatedBy = reason;
    record_.errorMessage = std::move(errorMessage);
    return Finish{completeResult()};
}

LoopAction ReactLoop::rejectOutput(std::string output, std::vector<std::string> problems) {
    record_.finalAnswer.reset();
    const bool retriesLeft = record_.outputRetries < config_->options.maxOutputRetries;
    if (!retriesLeft || iterations_ >= config_->options.maxIterations) {
        std::string message = "the answer does not match the output schema";
        message += retriesLeft
                       ? " and the iteration limit (" + std::to_string(config_->options.maxIterations) +
                             ") leaves no call to ask again"
                       : " after " + std::to_string(record_.outputRetries) + " re-ask(s)";
        for (std::size_t i = 0; i < problems.size(); ++i) {
            message += (i == 0 ? ": " : "; ") + problems[i];
        }
        return failWith(TerminatedBy::output_invalid, std::move(message), std::move(output));
    }
    ++record_.outputRetries;
    messages_.push_back(llm::Message::user(detail::outputReask(problems)));
    rejection_ = std::move(problems);
    return callModel();
}

LoopAction ReactLoop::failWith(TerminatedBy reason, std::string message, std::optional<std::string> output) {
    awaiting_ = Awaiting::done;
    record_.output = output ? std::move(*output) : lastText_;
    record_.terminatedBy = reason;
    record_.errorMessage = std::move(message);
    return Fail{completeResult()};
}

namespace {

// The configuration with an iteration limit of at least 1 (copied only when it had less).
std::shared_ptr<const LoopConfig> withIterationLimit(std::shared_ptr<const LoopConfig> config) {
    if (config->options.maxIterations >= 1) {
        return config;
    }
    auto fixed = std::make_shared<LoopConfig>(*config);
    fixed->options.maxIterations = 1;
    return fixed;
}

}  // namespace

ReactLoop::ReactLoop(std::shared_ptr<const LoopConfig> config, const LoopRun& run)
    : config_(withIterationLimit(std::move(config))),
      toolCharacters_(config_->toolCharacters),
      finalAnswerOffered_(offers(config_->tools, kFinalAnswerTool)),
      taskCompleteOffered_(offers(config_->tools, kTaskCompleteTool)) {
    ledger_.budget = run.budget ? *run.budget : config_->budget;
    ledger_.parent = run.parent != nullptr ? run.parent : config_->parent;
    ledger_.prices = config_->prices;
    if (!ledger_.prices && ledger_.parent != nullptr) {
        ledger_.prices = ledger_.parent->prices;  // a sub-agent without a table is priced as its caller
    }
    ledger_.counting = ledger_.parent != nullptr || !ledger_.budget.empty();
    record_.context.window = config_->contextWindow;
    if (ledger_.prices) {
        record_.cost = RunCost{0, ledger_.prices->currency(), 0};  // priced from the start, nothing spent
    }
}

LoopAction ReactLoop::proceed() {
    switch (awaiting_) {
        case Awaiting::start:
            return start();
        case Awaiting::model:
            return modelCall(modelRequest(), std::max(iterations_ - 1, 0));
        case Awaiting::tools:
            return RunTools{pending_, iterations_ - 1};
        case Awaiting::compaction:
            return compacting_;
        case Awaiting::external:
            throw std::logic_error(
                "ReactLoop::proceed() called on a run waiting for tool results: use resume()");
        case Awaiting::done:
            break;
    }
    throw std::logic_error("ReactLoop::proceed() called after the run ended");
}

}  // namespace reagent::agent
