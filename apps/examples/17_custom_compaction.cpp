// 17 — A long conversation kept inside the context window, with a compaction strategy of your own.
//
// Before each request the agent counts the prompt; past 80 % of the window's room it compacts the history
// with its strategies, in order, until the prompt is at half the room. The built-ins clear old tool results
// to working memory, summarize older turns with the model, and drop the oldest turns. This one keeps every
// question and answer but drops the tool exchanges of old turns (the reply that called a tool and the
// results): a conversation's gist without the work behind it.

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

class DropToolExchanges final : public agent::CompactionStrategy {
  public:
    std::string name() const override { return "drop-tool-exchanges"; }

    Task<expected<bool, agent::AgentError>> compact(agent::CompactionContext& context) override {
        auto& messages = context.messages;
        std::int64_t tokens = context.tokens();
        bool changed = false;
        // Oldest first, between the pinned messages and the turns kept verbatim; a turn is a reply with the
        // results of its calls, so removing [at, turnEnd(at)) never separates a call from its result.
        for (std::size_t at = context.pinned; at < context.recent && tokens > context.target;) {
            const std::size_t end = context.turnEnd(at);
            if (messages[at].role != llm::Role::assistant || messages[at].toolCalls.empty() ||
                end > context.recent) {
                at = end;
                continue;
            }
            for (std::size_t i = at; i < end; ++i) {
                tokens -= context.tokensOf(messages[i]);
            }
            messages.erase(messages.begin() + static_cast<std::ptrdiff_t>(at),
                           messages.begin() + static_cast<std::ptrdiff_t>(end));
            context.recent -= end - at;
            changed = true;
        }
        co_return changed;
    }
};

// A scripted model: looks each question up, then answers it.
std::shared_ptr<llm::ScriptedProvider> lookingUpModel() {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
        const llm::Message& last = request.messages.back();
        llm::ModelReply reply;
        if (last.role == llm::Role::user) {
            reply.toolCalls.push_back({"", "lookup", json{{"topic", last.text}}});
        } else {
            reply.text = "Here is what I found about that.";
        }
        return reagent::expected<llm::ModelReply, llm::ProviderError>(std::move(reply));
    }));
    provider->loop(true);
    return provider;
}

Task<tools::ToolResult> lookup(json input, tools::ToolContext) {
    std::string found = "Notes on " + input.value("topic", std::string()) + ": ";
    found.resize(700, '.');
    co_return found;
}

int main() {
    auto tool = tools::ToolBuilder::create("lookup")
                    .description("Looks a topic up")
                    .param("topic", "string", "What to look up", {.required = true})
                    .handler(lookup)
                    .build();
    examples::check(tool.has_value(), "the tool builds");

    agent::CompactionOptions compaction;
    compaction.keepTurns = 2;
    compaction.strategies = {std::make_shared<DropToolExchanges>(), agent::dropOldestTurns()};
    int compactions = 0;
    auto agent = agent::Agent::create()
                     .withProvider(lookingUpModel())
                     .withTool(std::move(*tool))
                     .withContextWindow(3000)  // a small window, to compact within a few turns
                     .withMaxTokens(500)
                     .withCompaction(compaction)
                     .withEventHandler([&](const agent::AgentEvent& event) {
                         if (const auto* compacted = std::get_if<agent::ContextCompacted>(&event)) {
                             const agent::Compaction& done = compacted->compaction;
                             std::cout
                                 << "compacted (" << agent::toString(done.reason)
                                 << "): " << done.tokensBefore << " -> " << done.tokensAfter << " tokens by "
                                 << (done.strategies.empty() ? "nothing" : done.strategies.front()) << "\n";
                             ++compactions;
                         }
                     })
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    agent::Conversation conversation(*agent);
    for (int turn = 1; turn <= 12; ++turn) {
        auto sent = examples::runTask(conversation.send("topic number " + std::to_string(turn)));
        examples::check(sent && sent->success(), "each turn is answered");
    }
    const auto& history = conversation.messages();
    const auto questions = std::count_if(
        history.begin(), history.end(),
        [](const agent::ConversationMessage& entry) { return entry.message.role == llm::Role::user; });
    std::cout << compactions << " compactions; " << history.size() << " messages kept, " << questions
              << " of them questions; last request " << conversation.context().promptTokens << " tokens of "
              << *conversation.context().window << "\n";
    examples::check(compactions >= 1, "the conversation was compacted");
    examples::check(questions == 12, "every question stayed");
    examples::check(conversation.context().promptTokens <= 3000, "the last request fit the window");
    examples::check(conversation.context().compactions.front().strategies.front() == "drop-tool-exchanges",
                    "the custom strategy did the work");
    return 0;
}
