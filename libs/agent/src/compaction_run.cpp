#include "compaction_run.hpp"

#include <algorithm>
#include <exception>
#include <set>
#include <string>
#include <utility>

#include "compaction_text.hpp"
#include "prompt_count.hpp"

namespace reagent::agent::detail {

namespace {

Task<expected<llm::ModelReply, llm::ProviderError>> askModel(
    std::shared_ptr<Agent::State> state, std::function<void(const llm::Usage&)> charge,
    std::function<std::optional<std::string>(const llm::ModelRequest&)> admit, llm::ModelRequest request) {
    if (admit) {
        if (auto refused = admit(request)) {
            llm::ProviderError error;
            error.code = llm::ProviderErrc::configuration;
            error.providerType = "budget";
            error.message = "not sent: " + std::move(*refused);
            co_return fail(std::move(error));
        }
    }
    auto reply = co_await state->config.provider->complete(std::move(request));
    charge(reply ? reply->usage : reply.error().usage);
    co_return reply;
}

// Where the last `turns` turns start (never inside the pinned messages).
std::size_t recentStart(const CompactionContext& context, int turns) {
    std::size_t start = context.messages.size();
    for (int i = 0; i < turns && start > context.pinned; ++i) {
        start = context.turnStart(start - 1);
    }
    return std::max(start, context.pinned);
}

// Why a strategy's history breaks the rules; empty when it keeps them. `prompt` is the run's prompt's text,
// when it has one outside the pinned messages.
std::string brokenRule(const std::vector<llm::Message>& before, std::size_t pinned,
                       const std::optional<std::string>& prompt, const std::vector<llm::Message>& after) {
    if (prompt && lastUserMessageWith(after, pinned, *prompt) == CompactionContext::kNoPrompt) {
        return "it removed or changed the prompt the run answers";
    }
    if (after.size() < pinned) {
        return "it removed pinned messages";
    }
    for (std::size_t i = 0; i < pinned; ++i) {
        if (after[i].role != before[i].role || after[i].text != before[i].text) {
            return "it changed the pinned message " + std::to_string(i);
        }
    }
    // Every tool result follows the reply that called it; every call of a reply before the last has its
    // result.
    std::set<std::string> open;
    for (const llm::Message& message : after) {
        if (message.role == llm::Role::tool) {
            if (open.erase(message.toolCallId) == 0) {
                return "it left the result of call '" + message.toolCallId + "' without its call";
            }
            continue;
        }
        if (!open.empty()) {
            return "it left call '" + *open.begin() + "' without its result";
        }
        if (message.role == llm::Role::assistant) {
            for (const llm::ToolCall& call : message.toolCalls) {
                open.insert(call.id);
            }
        }
    }
    return {};
}

}  // namespace

Task<CompactionOutcome> compactHistory(std::shared_ptr<Agent::State> state,
                                       std::vector<llm::Message> messages, CompactionPlan plan,
                                       std::function<void(const llm::Usage&)> charge) {
    if (!state->compaction) {
        // (The loop asks only with compaction on; a driver that asks anyway gets the history back as it was.)
        CompactionOutcome same;
        same.record.reason = plan.reason;
        same.record.tokensBefore = same.record.tokensAfter = plan.promptTokens;
        same.record.messagesBefore = same.record.messagesAfter = messages.size();
        same.record.notes.push_back("the agent compacts nothing (withoutCompaction)");
        same.messages = std::move(messages);
        co_return same;
    }
    const CompactionOptions& options = *state->compaction;
    CompactionContext context;
    context.messages = std::move(messages);
    context.target = plan.target;
    context.window = plan.window;
    context.reason = plan.reason;
    context.memory = &state->workingMemory;
    CompactionOutcome outcome;
    Compaction& record = outcome.record;
    auto calls = std::make_shared<int>(0);  // shared: a strategy may keep `model` longer than it should
    if (state->config.provider) {
        // Each call made counts in the record (the run's model calls) and is charged.
        auto counted = [charge, calls](const llm::Usage& usage) {
            ++*calls;
            charge(usage);
        };
        context.model = [state, counted, admit = plan.admit](llm::ModelRequest request) {
            return askModel(state, counted, admit, std::move(request));
        };
        context.charactersPerToken = charactersPerToken(state->config.provider->model());
    }
    context.toolCharacters = state->offeredToolCharacters();
    // The estimate scaled to the API's count of the same prompt.
    if (const std::int64_t raw = context.tokens(); raw > 0 && plan.promptTokens > 0) {
        context.scale =
            std::clamp(static_cast<double>(plan.promptTokens) / static_cast<double>(raw), 0.25, 4.0);
        context.uncounted = plan.promptTokens - context.tokens();
    }
    record.reason = plan.reason;
    record.tokensBefore = plan.promptTokens > 0 ? plan.promptTokens : context.tokens();
    record.messagesBefore = context.messages.size();
    if (context.target < 0) {  // half the history, within the target share of the window
        context.target = record.tokensBefore / 2;
        if (plan.window) {
            context.target =
                std::min(context.target,
                         static_cast<std::int64_t>(options.target * static_cast<double>(*plan.window)));
        }
    }
    // Set afresh for each strategy: one may have changed them.
    const std::size_t pinned = pinnedEnd(context.messages);
    const std::int64_t target = context.target;
    // The run's prompt (not pinned, as a conversation's later turns are): never removed, followed by its
    // text.
    std::optional<std::string> prompt;
    if (plan.prompt != CompactionContext::kNoPrompt && plan.prompt >= pinned &&
        plan.prompt < context.messages.size()) {
        prompt = context.messages[plan.prompt].text;
    }
    for (const auto& strategy : options.strategies) {
        context.pinned = pinned;
        context.target = target;
        if (context.tokens() <= context.target) {
            break;
        }
        context.recent = recentStart(context, options.keepTurns);
        context.prompt =
            prompt ? lastUserMessageWith(context.messages, pinned, *prompt) : CompactionContext::kNoPrompt;
        std::vector<llm::Message> before = context.messages;
        std::string name = strategy->name();
        std::string problem;
        try {
            auto compacting = strategy->compact(context);
            auto changed = co_await std::move(compacting);
            if (!changed) {
                problem = changed.error().message;
            } else if (*changed || context.messages != before) {  // checked whatever it says it did
                problem = brokenRule(before, pinned, prompt, context.messages);
                if (problem.empty()) {
                    record.strategies.push_back(name);
                }
            }
        } catch (const std::exception& error) {
            problem = std::string("it threw: ") + error.what();
        }
        if (!problem.empty()) {
            record.notes.push_back(name + ": " + problem + "; its change was undone");
            context.messages = std::move(before);
        }
    }
    record.modelCalls = *calls;
    record.tokensAfter = context.tokens();
    record.messagesAfter = context.messages.size();
    outcome.prompt =
        prompt ? lastUserMessageWith(context.messages, pinned, *prompt) : CompactionContext::kNoPrompt;
    outcome.messages = std::move(context.messages);
    co_return outcome;
}

}  // namespace reagent::agent::detail
