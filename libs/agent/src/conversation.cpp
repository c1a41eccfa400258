// A conversation: runs with the history, keeps what successful turns added.

#include "reagent/agent/conversation.hpp"

#include <algorithm>
#include <utility>

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

Conversation::Conversation(Agent agent) : agent_(std::move(agent)) {}

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
    auto resuming = agent_.resumeWith(pending_, std::move(input));
    auto resumed = co_await std::move(resuming);
    if (!resumed) {
        co_return fail(std::move(resumed.error()));  // the turn still waits
    }
    settle(*resumed, pendingHistory_);
    co_return resumed;
}

void Conversation::settle(const RunResult& result, std::size_t historySize) {
    // A resumed turn's result counts what it spent before it paused too, which was counted then.
    const Spending spent = detail::spentBy(result);
    Spending added = spent;
    added -= std::exchange(paused_, Spending{});
    usage_ += added.usage;
    if (result.cost || added.cost != 0 || added.unpricedCalls != 0) {
        if (!cost_) {
            cost_ = RunCost{0, result.cost ? result.cost->currency : std::string("USD"), 0};
        }
        cost_->amount += added.cost;
        cost_->unpricedCalls += added.unpricedCalls;
    }
    modelCalls_ += added.modelCalls;
    toolCallsMade_ += added.toolCalls;
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
    // this turn's. Only this turn's are new.
    const std::size_t offset =
        (!result.messages.empty() && result.messages.front().role == llm::Role::system) ? 1 : 0;
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

void Conversation::reset() {
    messages_.clear();
    toolCalls_.clear();
    checkpoints_.clear();
    responses_.clear();
    sessionState_ = nlohmann::json::object();
    lastToolError_.reset();
    pending_ = nullptr;
    pendingHistory_ = 0;
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
    checkpoints_.erase(found, checkpoints_.end());
    pending_ = nullptr;
    return {};
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
                {"pausedSpent", pending_.is_null() ? json(nullptr) : detail::toJson(paused_)}};
}

expected<Conversation, AgentError> Conversation::restore(Agent agent, const nlohmann::json& saved) {
    using namespace detail;
    Conversation conversation(std::move(agent));
    try {
        const std::string path = "conversation";
        const auto format = field<std::string>(saved, "format", path);
        if (format != kConversationFormat) {
            throw StateError("conversation.format is '" + format + "', not " + kConversationFormat);
        }
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
    } catch (const StateError& error) {
        return fail(AgentError{AgentErrc::invalid_state,
                               std::string("cannot restore the conversation: ") + error.what()});
    }
    return conversation;
}

}  // namespace reagent::agent
