// A conversation: runs with the history, keeps what successful turns added.

#include "reagent/agent/conversation.hpp"

#include <algorithm>
#include <utility>

#include "compaction_run.hpp"
#include "compaction_text.hpp"
#include "reagent/telemetry/id_generator.hpp"
#include "run_spending.hpp"
#include "run_state_codec.hpp"

namespace reagent::agent {

namespace {

constexpr const char* kConversationFormat = "reagent.conversation/1";

std::vector<llm::Message> plainHistory(const std::vector<ConversationMessage>& messages) {
    std::vector<llm::Message> history;
    history.reserve(messages.size());
    for (const ConversationMessage& entry : messages) {
        history.push_back(entry.message);
    }
    return history;
}

// A turn may be kept when it ended with an answer; the others leave no trace in the history.
bool keepable(const RunResult& result) {
    return result.success();
}

// Clears the running flag on every path out of a turn, cancellation included.
struct RunningGuard {
    bool* flag;
    ~RunningGuard() { *flag = false; }
};

Task<expected<RunResult, AgentError>> busy() {
    co_return fail(AgentError{AgentErrc::invalid_state,
                              "a turn of this conversation is already running; wait for it before sending"});
}

}  // namespace

Conversation::Conversation(Agent agent, std::string id) : agent_(std::move(agent)), id_(std::move(id)) {
    if (id_.empty()) {
        id_ = telemetry::IdGenerator().traceId().hex();  // 128 random bits, as a trace id has
    }
}

Task<expected<RunResult, AgentError>> Conversation::send(std::string text) {
    return send(std::move(text), EventHandler{});
}

Task<expected<RunResult, AgentError>> Conversation::send(std::string text, EventHandler onEvent) {
    return send(std::move(text), {}, std::move(onEvent));
}

Task<expected<RunResult, AgentError>> Conversation::send(std::string text,
                                                         std::vector<llm::Attachment> attachments,
                                                         EventHandler onEvent) {
    if (running_) {
        co_return co_await busy();
    }
    if (!pending_.is_null()) {
        co_return fail(AgentError{AgentErrc::invalid_state,
                                  "the last turn waits for the results of declaration-only calls or for "
                                  "approvals: finish it with resume (or reset the conversation)"});
    }
    if (!sessionState_.is_object()) {
        co_return fail(AgentError{AgentErrc::invalid_state,
                                  "the conversation's session state must be a JSON "
                                  "object, not " +
                                      std::string(sessionState_.type_name())});
    }
    auto budget = turnBudget(Spending{});
    if (!budget) {
        co_return fail(std::move(budget.error()));
    }
    running_ = true;
    const RunningGuard guard{&running_};
    const std::size_t before = messages_.size();
    RunOptions options;
    options.budget = std::move(*budget);
    options.onEvent = std::move(onEvent);
    options.sessionState = sessionState_;
    options.attachments = std::move(attachments);
    options.conversationId = id_;
    if (context_.countedTokens > 0) {
        options.counted = context_;
    }
    auto run = agent_.run(plainHistory(messages_), std::move(text), std::move(options));
    RunResult result = co_await std::move(run);
    settle(result, before);
    co_return result;
}

expected<std::optional<RunBudget>, AgentError> Conversation::turnBudget(const Spending& inTurn) const {
    if (budget_.empty()) {
        return std::optional<RunBudget>{};  // the agent's own
    }
    RunBudget turn = agent_.config().budget;
    const auto usedUp = [](const std::string& limit, const std::string& used) {
        return fail(AgentError{AgentErrc::budget_exceeded,
                               "the conversation's budget: " + limit + " used up (" + used + ")"});
    };
    // Each limit: the least of the agent's and what the conversation has left.
    const auto within = [](auto& slot, auto left) { slot = slot ? std::min(*slot, left) : left; };
    if (budget_.maxTotalTokens) {
        const std::int64_t used = usage_.total() - inTurn.usage.total();
        const std::int64_t left = *budget_.maxTotalTokens - used;
        if (left <= 0) {
            return usedUp("maxTotalTokens of " + std::to_string(*budget_.maxTotalTokens),
                          std::to_string(used) + " tokens");
        }
        within(turn.maxTotalTokens, left);
    }
    if (budget_.maxCost) {
        const double spent = (cost_ ? cost_->amount : 0) - inTurn.cost;
        if (spent >= *budget_.maxCost) {
            return usedUp("maxCost of " + std::to_string(*budget_.maxCost), std::to_string(spent) + " spent");
        }
        within(turn.maxCost, *budget_.maxCost - spent);
    }
    if (budget_.maxModelCalls) {
        const int used = modelCalls_ - inTurn.modelCalls;
        const int left = *budget_.maxModelCalls - used;
        if (left <= 0) {
            return usedUp("maxModelCalls of " + std::to_string(*budget_.maxModelCalls),
                          std::to_string(used) + " model calls");
        }
        within(turn.maxModelCalls, left);
    }
    if (budget_.maxToolCalls) {
        within(turn.maxToolCalls, std::max(0, *budget_.maxToolCalls - (toolCallsMade_ - inTurn.toolCalls)));
    }
    if (budget_.maxDuration) {
        within(turn.maxDuration, *budget_.maxDuration);
    }
    return std::optional<RunBudget>{turn};
}

Task<expected<RunResult, AgentError>> Conversation::resume(std::vector<ExternalResult> results) {
    ResumeInput input;
    input.results = std::move(results);
    return resumeWith(std::move(input));
}

Task<expected<RunResult, AgentError>> Conversation::resumeWith(ResumeInput input) {
    if (running_) {
        co_return co_await busy();
    }
    if (pending_.is_null()) {
        co_return fail(AgentError{AgentErrc::invalid_state,
                                  "no turn of this conversation waits for results or approvals"});
    }
    if (!budget_.empty()) {
        auto budget = turnBudget(paused_);
        if (!budget) {
            co_return fail(std::move(budget.error()));
        }
        input.budget = std::move(*budget);
    }
    running_ = true;
    const RunningGuard guard{&running_};
    input.conversationId = id_;
    auto resuming = agent_.resumeWith(pending_, std::move(input));
    auto resumed = co_await std::move(resuming);
    if (!resumed) {
        co_return fail(std::move(resumed.error()));  // the turn still waits
    }
    settle(*resumed, pendingHistory_);
    co_return resumed;
}

void Conversation::count(const Spending& added, const std::string& currency, bool priced) {
    usage_ += added.usage;
    if (priced || added.cost != 0 || added.unpricedCalls != 0) {
        if (!cost_) {
            cost_ = RunCost{0, currency, 0};
        }
        cost_->amount += added.cost;
        cost_->unpricedCalls += added.unpricedCalls;
    }
    modelCalls_ += added.modelCalls;
    toolCallsMade_ += added.toolCalls;
}

void Conversation::settle(const RunResult& result, std::size_t historySize) {
    // A resumed turn's result counts what it spent before it paused too, which was counted then.
    const Spending spent = detail::spentBy(result);
    Spending added = spent;
    added -= std::exchange(paused_, Spending{});
    count(added, result.cost ? result.cost->currency : std::string("USD"), result.cost.has_value());
    if (result.state.is_object()) {
        pending_ = result.state;
        pendingHistory_ = historySize;
        paused_ = spent;
        return;
    }
    pending_ = nullptr;
    if (keepable(result)) {
        keep(result, historySize);
    }
}

void Conversation::keep(const RunResult& result, std::size_t historySize) {
    // The run's messages are: the system prompt (when the agent has one), the history it was given, then
    // this turn's. Only this turn's are new, unless the run compacted the history.
    const std::size_t offset =
        (!result.messages.empty() && result.messages.front().role == llm::Role::system) ? 1 : 0;
    context_.window = result.context.window;
    context_.promptTokens = result.context.promptTokens;
    // The next turn repeats these messages (the system prompt, the history as it is now): its first
    // request is counted from the API's count of them.
    context_.countedMessages = result.context.countedMessages;
    context_.countedTokens = result.context.countedTokens;
    if (!result.context.compactions.empty()) {
        context_.compactions.insert(context_.compactions.end(), result.context.compactions.begin(),
                                    result.context.compactions.end());
        adoptCompacted(result.messages, offset);
        for (const CheckpointMark& recorded : result.checkpoints) {
            // The turn's checkpoints hold from the result of the call that recorded them on.
            const auto from =
                std::find_if(messages_.begin(), messages_.end(), [&](const ConversationMessage& entry) {
                    return entry.message.role == llm::Role::tool &&
                           entry.message.toolCallId == recorded.toolCallId;
                });
            for (auto it = from; it != messages_.end(); ++it) {
                it->lastCheckpointId = recorded.id;
            }
            CheckpointMark mark = recorded;
            mark.messageIndex =
                std::min(mark.messageIndex >= offset ? mark.messageIndex - offset : 0, messages_.size());
            checkpoints_.push_back(std::move(mark));
        }
        toolCalls_.insert(toolCalls_.end(), result.toolCalls.begin(), result.toolCalls.end());
        responses_.push_back(result.output);
        sessionState_ = result.sessionState;
        if (result.lastToolError) {
            lastToolError_ = result.lastToolError;
        }
        return;
    }
    const std::size_t first = std::min(offset + historySize, result.messages.size());
    const auto now = std::chrono::system_clock::now();
    const std::size_t base = messages_.size();
    std::size_t checkpoint = 0;
    std::string lastCheckpoint = messages_.empty() ? std::string() : messages_.back().lastCheckpointId;
    for (std::size_t i = first; i < result.messages.size(); ++i) {
        // A checkpoint belongs to the messages from the tool result of the call that recorded it on.
        const llm::Message& message = result.messages[i];
        for (; checkpoint < result.checkpoints.size(); ++checkpoint) {
            if (message.role == llm::Role::tool &&
                message.toolCallId == result.checkpoints[checkpoint].toolCallId) {
                lastCheckpoint = result.checkpoints[checkpoint].id;
            } else {
                break;
            }
        }
        messages_.push_back(
            ConversationMessage{"m" + std::to_string(nextId_++), now, message, lastCheckpoint});
    }
    toolCalls_.insert(toolCalls_.end(), result.toolCalls.begin(), result.toolCalls.end());
    responses_.push_back(result.output);
    sessionState_ = result.sessionState;
    if (result.lastToolError) {
        lastToolError_ = result.lastToolError;
    }
    for (CheckpointMark mark : result.checkpoints) {
        // Indices into the conversation's history rather than the run's messages.
        mark.messageIndex = mark.messageIndex >= first ? base + (mark.messageIndex - first) : base;
        checkpoints_.push_back(std::move(mark));
    }
}

namespace {

// Whether `now` is `before` after a compaction that may have cleared it (a tool result's text).
bool sameMessage(const llm::Message& before, const llm::Message& now) {
    if (before.role != now.role || before.toolCallId != now.toolCallId ||
        before.toolCalls.size() != now.toolCalls.size()) {
        return false;
    }
    if (!before.toolCalls.empty() && before.toolCalls.front().id != now.toolCalls.front().id) {
        return false;
    }
    return before.text == now.text || (now.role == llm::Role::tool && !now.toolCallId.empty());
}

}  // namespace

void Conversation::adoptCompacted(const std::vector<llm::Message>& messages, std::size_t from) {
    std::vector<ConversationMessage> before = std::move(messages_);
    messages_.clear();
    messages_.reserve(messages.size() - std::min(from, messages.size()));
    // Where each old message went (npos: compacted away), for the checkpoints.
    std::vector<std::size_t> movedTo(before.size(), static_cast<std::size_t>(-1));
    const auto now = std::chrono::system_clock::now();
    std::size_t next = 0;  // survivors keep their order: each is looked for after the last one found
    for (std::size_t i = from; i < messages.size(); ++i) {
        std::size_t found = next;
        while (found < before.size() && !sameMessage(before[found].message, messages[i])) {
            ++found;
        }
        if (found < before.size()) {
            ConversationMessage entry = std::move(before[found]);
            entry.message = messages[i];
            movedTo[found] = messages_.size();
            messages_.push_back(std::move(entry));
            next = found + 1;
        } else {
            const std::string last = messages_.empty() ? std::string() : messages_.back().lastCheckpointId;
            messages_.push_back(ConversationMessage{"m" + std::to_string(nextId_++), now, messages[i], last});
        }
    }
    // A checkpoint whose reply was compacted away truncates to the pinned messages.
    const std::size_t pinned =
        std::min(detail::pinnedEnd(messages) - std::min(from, detail::pinnedEnd(messages)), messages_.size());
    for (CheckpointMark& mark : checkpoints_) {
        mark.messageIndex =
            mark.messageIndex < movedTo.size() && movedTo[mark.messageIndex] != static_cast<std::size_t>(-1)
                ? movedTo[mark.messageIndex]
                : std::min(pinned, messages_.size());
    }
}

Task<expected<Compaction, AgentError>> Conversation::compact() {
    if (running_) {
        co_return fail(
            AgentError{AgentErrc::invalid_state, "a turn of this conversation is running; compact after it"});
    }
    if (!pending_.is_null()) {
        co_return fail(
            AgentError{AgentErrc::invalid_state,
                       "the last turn waits for results or approvals: finish it with resume first"});
    }
    const std::shared_ptr<Agent::State> state = agent_.state_;
    if (!state->compaction) {
        co_return fail(AgentError{AgentErrc::invalid_config,
                                  "this agent compacts nothing: it was built withoutCompaction()"});
    }
    running_ = true;
    const RunningGuard guard{&running_};
    std::vector<llm::Message> history;
    history.reserve(messages_.size() + 1);
    if (!state->systemPrompt.empty()) {
        history.push_back(llm::Message::system(state->systemPrompt));
    }
    const std::size_t offset = history.size();
    for (const ConversationMessage& entry : messages_) {
        history.push_back(entry.message);
    }
    detail::CompactionPlan plan;
    plan.reason = CompactionReason::manual;
    plan.window = agent_.contextWindow();
    plan.target = -1;  // half the history
    // What the summaries spend counts as a turn's would (the callback runs on this strand).
    auto spent = std::make_shared<Spending>();
    const std::string model = state->config.provider ? std::string(state->config.provider->model()) : "";
    auto compacting = detail::compactHistory(
        state, std::move(history), plan, [state, spent, model](const llm::Usage& usage) {
            *spent += detail::priced(state->config.prices.get(), model, usage);
            spent->modelCalls += 1;
        });
    detail::CompactionOutcome outcome = co_await std::move(compacting);
    count(*spent, state->config.prices ? state->config.prices->currency() : std::string("USD"));
    adoptCompacted(outcome.messages, offset);
    context_.promptTokens = outcome.record.tokensAfter;
    context_.countedMessages = 0;  // the count was of the history before
    context_.countedTokens = 0;
    context_.window = plan.window;
    context_.compactions.push_back(outcome.record);
    co_return outcome.record;
}

void Conversation::reset() {
    messages_.clear();
    toolCalls_.clear();
    checkpoints_.clear();
    responses_.clear();
    sessionState_ = nlohmann::json::object();
    lastToolError_.reset();
    pending_ = nullptr;
    pendingHistory_ = 0;
    context_ = ContextUse{};
    paused_ = Spending{};  // (what it spent stays counted)
}

expected<void, AgentError> Conversation::truncateAt(const std::string& checkpointId) {
    const auto found = std::find_if(checkpoints_.begin(), checkpoints_.end(),
                                    [&](const CheckpointMark& mark) { return mark.id == checkpointId; });
    if (found == checkpoints_.end()) {
        return fail(AgentError{AgentErrc::invalid_state,
                               "no turn of this conversation recorded checkpoint '" + checkpointId + "'"});
    }
    const std::size_t end = std::min(found->messageIndex, messages_.size());
    messages_.resize(end);
    context_.countedMessages = 0;  // the count was of the longer history
    context_.countedTokens = 0;
    checkpoints_.erase(found, checkpoints_.end());
    pending_ = nullptr;
    return {};
}

nlohmann::json Conversation::contextJson() const {
    nlohmann::json compactions = nlohmann::json::array();
    for (const Compaction& compaction : context_.compactions) {
        compactions.push_back(detail::toJson(compaction));
    }
    return {{"promptTokens", context_.promptTokens},
            {"countedMessages", context_.countedMessages},
            {"countedTokens", context_.countedTokens},
            {"window", context_.window ? nlohmann::json(*context_.window) : nlohmann::json(nullptr)},
            {"compactions", std::move(compactions)}};
}

std::vector<std::string> Conversation::storedKeys() const {
    std::vector<std::string> keys;
    for (const ConversationMessage& entry : messages_) {
        detail::collectStoredKeys(entry.message.text, keys);
    }
    return keys;
}

nlohmann::json Conversation::save() const {
    using nlohmann::json;
    json messages = json::array();
    for (const ConversationMessage& entry : messages_) {
        json item = detail::toJson(entry.message, agent_.state_->config.attachments);
        item["id"] = entry.id;
        item["createdAt"] =
            std::chrono::duration_cast<std::chrono::microseconds>(entry.createdAt.time_since_epoch()).count();
        if (!entry.lastCheckpointId.empty()) {
            item["lastCheckpointId"] = entry.lastCheckpointId;
        }
        messages.push_back(std::move(item));
    }
    json checkpoints = json::array();
    for (const CheckpointMark& mark : checkpoints_) {
        checkpoints.push_back(detail::toJson(mark));
    }
    return json{{"format", kConversationFormat},
                {"id", id_},
                {"nextId", nextId_},
                {"messages", std::move(messages)},
                {"checkpoints", std::move(checkpoints)},
                {"responses", responses_},
                {"pending", pending_},
                {"pendingHistory", pendingHistory_},
                {"sessionState", sessionState_},
                {"usage", detail::toJson(usage_)},
                {"modelCalls", modelCalls_},
                {"toolCallsMade", toolCallsMade_},
                {"cost", cost_ ? detail::toJson(*cost_) : json(nullptr)},
                {"pausedSpent", pending_.is_null() ? json(nullptr) : detail::toJson(paused_)},
                {"context", contextJson()},
                // The stored results the history's previews and cleared results name, for `recall`.
                {"workingMemory", agent_.state_->workingMemory.save(storedKeys())}};
}

expected<Conversation, AgentError> Conversation::restore(Agent agent, const nlohmann::json& saved) {
    using namespace detail;
    using nlohmann::json;
    Conversation conversation(std::move(agent));
    try {
        const std::string path = "conversation";
        const auto format = field<std::string>(saved, "format", path);
        if (format != kConversationFormat) {
            throw StateError("conversation.format is '" + format + "', not " + kConversationFormat);
        }
        // Saved before conversations had ids: the new one stands.
        conversation.id_ = optionalField<std::string>(saved, "id", path, conversation.id_);
        conversation.nextId_ = field<std::uint64_t>(saved, "nextId", path);
        conversation.messages_ =
            arrayField(saved, "messages", path, [&](const nlohmann::json& item, const std::string& at) {
                ConversationMessage entry;
                entry.message = messageFromJson(item, at, conversation.agent_.state_->config.attachments);
                entry.id = field<std::string>(item, "id", at);
                entry.createdAt = std::chrono::system_clock::time_point(
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(
                        std::chrono::microseconds(field<std::int64_t>(item, "createdAt", at))));
                entry.lastCheckpointId = optionalField<std::string>(item, "lastCheckpointId", at, {});
                return entry;
            });
        conversation.checkpoints_ = arrayField(saved, "checkpoints", path, checkpointFromJson);
        conversation.responses_ =
            optionalField<std::vector<std::string>>(saved, "responses", path, std::vector<std::string>());
        conversation.sessionState_ =
            optionalField<nlohmann::json>(saved, "sessionState", path, nlohmann::json::object());
        if (!conversation.sessionState_.is_object()) {
            throw StateError("conversation.sessionState must be an object");
        }
        // A turn waiting for results or approvals goes on in this process too (`resume`, `resumeWith`).
        conversation.pending_ = optionalField<nlohmann::json>(saved, "pending", path, nullptr);
        if (!conversation.pending_.is_null() && !conversation.pending_.is_object()) {
            throw StateError("conversation.pending must be a saved run state or null");
        }
        conversation.pendingHistory_ = optionalField<std::size_t>(saved, "pendingHistory", path, 0);
        if (conversation.pendingHistory_ > conversation.messages_.size()) {
            throw StateError("conversation.pendingHistory is beyond the history");
        }
        if (saved.contains("usage")) {
            conversation.usage_ = usageFromJson(saved["usage"], path + ".usage");
        }
        conversation.modelCalls_ = optionalField<int>(saved, "modelCalls", path, 0);
        conversation.toolCallsMade_ = optionalField<int>(saved, "toolCallsMade", path, 0);
        if (const auto cost = optionalField<json>(saved, "cost", path, nullptr); !cost.is_null()) {
            conversation.cost_ = costFromJson(cost, path + ".cost");
        }
        if (const auto paused = optionalField<json>(saved, "pausedSpent", path, nullptr); !paused.is_null()) {
            conversation.paused_ = spendingFromJson(paused, path + ".pausedSpent");
        }
        if (const auto context = optionalField<json>(saved, "context", path, nullptr); !context.is_null()) {
            const std::string at = path + ".context";
            conversation.context_.promptTokens = field<std::int64_t>(context, "promptTokens", at);
            conversation.context_.countedMessages =
                optionalField<std::size_t>(context, "countedMessages", at, 0);
            conversation.context_.countedTokens =
                optionalField<std::int64_t>(context, "countedTokens", at, 0);
            if (const auto window = optionalField<json>(context, "window", at, nullptr); !window.is_null()) {
                conversation.context_.window = field<std::int64_t>(context, "window", at);
            }
            conversation.context_.compactions = arrayField(context, "compactions", at, compactionFromJson);
        }
        if (const auto memory = optionalField<json>(saved, "workingMemory", path, nullptr);
            !memory.is_null()) {
            // Checked in full before anything is added, so a refused document leaves the agent's memory as it
            // was.
            auto loaded = conversation.agent_.state_->workingMemory.load(memory);
            if (!loaded) {
                throw StateError("conversation.workingMemory: " + loaded.error().message);
            }
            // A result stored under another key here (the agent's memory held that key already) is named so.
            for (ConversationMessage& entry : conversation.messages_) {
                detail::renameStoredKeys(entry.message.text, *loaded);
            }
        }
    } catch (const StateError& error) {
        return fail(AgentError{AgentErrc::invalid_state,
                               std::string("cannot restore the conversation: ") + error.what()});
    }
    return conversation;
}

}  // namespace reagent::agent
