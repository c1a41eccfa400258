// Compaction: a conversation ten times longer than the window never sends an oversized request; tool calls
// stay with their results, summaries carry the facts on, cleared results are recalled, a saved
// conversation continues identically; an API's context-length error leads to one compaction and a retry.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::Compaction;
using reagent::agent::CompactionOptions;
using reagent::agent::CompactionReason;
using reagent::agent::Conversation;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::Message;
using reagent::llm::ModelReply;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::Role;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

namespace {

constexpr std::int64_t kCompactionWindow = 8000;

// A model that counts each request as an API would (4 characters a token, tools included), refuses one
// longer than its window with Anthropic's words, and plays a user's agent: it calls `fetch` for each user
// turn, answers after the result, calls `recall` when asked to, and summarizes when asked to.
struct SimulatedModel {
    std::int64_t window = kCompactionWindow;
    std::int64_t largest = 0;
    int refused = 0;
    int summaries = 0;
    int answered = 0;
    std::vector<std::string> broken;  // requests whose tool calls and results do not pair up

    static std::int64_t count(const ModelRequest& request) {
        std::size_t characters = 0;
        for (const Message& message : request.messages) {
            characters += message.text.size();
            for (const auto& call : message.toolCalls) {
                characters += call.name.size() + call.arguments.dump().size();
            }
        }
        for (const auto& tool : request.tools) {
            characters += tool.name.size() + tool.description.size() + tool.inputSchema.dump().size();
        }
        return static_cast<std::int64_t>(characters / 4) + 1;
    }

    static std::string pairing(const ModelRequest& request) {
        std::set<std::string> open;
        for (const Message& message : request.messages) {
            if (message.role == Role::tool) {
                if (open.erase(message.toolCallId) == 0) {
                    return "result without its call: " + message.toolCallId;
                }
            } else if (!open.empty()) {
                return "call without its result: " + *open.begin();
            }
            if (message.role == Role::assistant) {
                for (const auto& call : message.toolCalls) {
                    open.insert(call.id);
                }
            }
        }
        return open.empty() ? std::string() : "call without its result: " + *open.begin();
    }

    reagent::expected<ModelReply, ProviderError> answer(const ModelRequest& request) {
        const std::int64_t tokens = count(request);
        largest = std::max(largest, tokens);
        if (tokens > window) {
            ++refused;
            ProviderError error;
            error.code = ProviderErrc::invalid_request;
            error.message = "prompt is too long: " + std::to_string(tokens) + " tokens > " +
                            std::to_string(window) + " maximum";
            error.httpStatus = 400;
            error.providerType = "invalid_request_error";
            return reagent::unexpected(std::move(error));
        }
        ModelReply reply;
        reply.usage.inputTokens = tokens;
        reply.usage.outputTokens = 5;
        const Message& first = request.messages.front();
        if (first.role == Role::system && first.text.rfind("You condense", 0) == 0) {
            ++summaries;
            // Every fact the transcript names (an earlier summary's included), once.
            const std::string& transcript = request.messages.back().text;
            std::set<int> facts;
            const std::regex fact("fact-([0-9]+)");
            for (auto it = std::sregex_iterator(transcript.begin(), transcript.end(), fact);
                 it != std::sregex_iterator(); ++it) {
                facts.insert(std::stoi((*it)[1]));
            }
            reply.text = "Facts so far:";
            for (const int number : facts) {
                reply.text += " fact-" + std::to_string(number);
            }
            return reply;
        }
        if (const std::string problem = pairing(request); !problem.empty()) {
            broken.push_back(problem);
        }
        const Message& last = request.messages.back();
        if (last.role == Role::user) {
            const auto asked = last.text.find("recall ");
            if (asked != std::string::npos) {
                reply.toolCalls.push_back(
                    {"", "recall",
                     json{{"action", "read"}, {"key", last.text.substr(asked + 7)}, {"full", true}}});
            } else {
                // Ids named after the turn, so that a restored conversation's calls are the same.
                const std::string turn = last.text.substr(5, last.text.find(':') - 5);
                reply.toolCalls.push_back({"fetch_" + turn, "fetch", json::object()});
            }
            return reply;
        }
        ++answered;
        reply.text = "noted: " + last.text.substr(0, 40);
        return reply;
    }
};

// A tool whose every result (3,000 characters) names the call it answers.
reagent::tools::Tool fetchTool() {
    return reagent::tools::ToolBuilder::create("fetch")
        .description("Fetches the next page of data")
        .handler([](json, reagent::tools::ToolContext context) -> reagent::Task<reagent::tools::ToolResult> {
            std::string page = "page of " + context.callId + ": ";
            page.resize(3000, 'd');
            co_return page;
        })
        .build()
        .value();
}

Agent compactingAgent(std::shared_ptr<SimulatedModel> simulated,
                      reagent::agent::CompactionOptions options = {}) {
    auto model = std::make_shared<ScriptedProvider>();
    model->recordRequests(false);
    model->then(ScriptedTurn::respond(
        [simulated](const ModelRequest& request) { return simulated->answer(request); }));
    model->loop(true);
    auto agent = Agent::create()
                     .withProvider(model)
                     .withSystemPrompt("You keep track of facts.")
                     .withTool(fetchTool())
                     .withContextWindow(kCompactionWindow)
                     .withMaxTokens(500)
                     .withCompaction(std::move(options))
                     .build();
    REQUIRE(agent);
    return std::move(*agent);
}

std::string turnText(int turn) {
    std::string text = "turn " + std::to_string(turn) + ": remember fact-" + std::to_string(turn) + ". ";
    text.resize(300, '.');
    return text;
}

// The messages of a conversation as the model reads them (for comparing two conversations).
std::vector<std::string> transcriptOf(const Conversation& conversation) {
    std::vector<std::string> lines;
    for (const auto& entry : conversation.messages()) {
        std::string line = std::to_string(static_cast<int>(entry.message.role)) + "|" + entry.message.text;
        for (const auto& call : entry.message.toolCalls) {
            line += "|" + call.id + ":" + call.name;
        }
        lines.push_back(std::move(line) + "|" + entry.message.toolCallId);
    }
    return lines;
}

}  // namespace

TEST_CASE("a 300-turn conversation ten times the window stays inside it", "[agent][context][compaction]") {
    auto simulated = std::make_shared<SimulatedModel>();
    Agent agent = compactingAgent(simulated);
    Conversation conversation(agent);
    std::vector<Compaction> compactions;
    std::int64_t rawCharacters = 0;
    for (int turn = 1; turn <= 299; ++turn) {
        auto sent = runCoro(conversation.send(turnText(turn), [&](const reagent::agent::AgentEvent& event) {
            if (const auto* compacted = std::get_if<reagent::agent::ContextCompacted>(&event)) {
                compactions.push_back(compacted->compaction);
            }
        }));
        REQUIRE(sent);
        REQUIRE(sent->success());
        rawCharacters += 300 + 3000 + 60;
    }
    // The raw history is ten times the window; no request passed it, none was refused.
    CHECK(rawCharacters / 4 > 10 * kCompactionWindow);
    CHECK(simulated->largest <= kCompactionWindow);
    CHECK(simulated->refused == 0);
    CHECK(simulated->broken.empty());
    CHECK(simulated->answered == 299);
    REQUIRE(compactions.size() >= 5);
    CHECK(simulated->summaries >= 1);
    for (const Compaction& compaction : compactions) {
        CHECK(compaction.reason == CompactionReason::threshold);
        CHECK(compaction.tokensAfter < compaction.tokensBefore);
        CHECK(compaction.notes.empty());
    }
    CHECK(conversation.context().compactions == compactions);

    // The pinned first message stays; one summary carries the facts of the turns it replaced on.
    const auto& history = conversation.messages();
    REQUIRE(history.size() > 2);
    CHECK(history.front().message.text == turnText(1));
    const auto summary = std::find_if(history.begin(), history.end(), [](const auto& entry) {
        return entry.message.text.rfind("[Summary of the earlier conversation]", 0) == 0;
    });
    REQUIRE(summary != history.end());
    CHECK_THAT(summary->message.text, Catch::Contains("fact-2 ") && Catch::Contains("fact-100 "));
    CHECK(summary - history.begin() == 1);

    // A result cleared from the history long ago is still read back through recall.
    auto recalled = runCoro(conversation.send("please recall _tool_result_3"));
    REQUIRE(recalled);
    REQUIRE(recalled->success());
    CHECK_THAT(recalled->output, Catch::StartsWith("noted: page of fetch_3: ddd"));
}

TEST_CASE("a compacted conversation saved half-way continues identically", "[agent][context][compaction]") {
    auto first = std::make_shared<SimulatedModel>();
    Agent agent = compactingAgent(first);
    Conversation conversation(agent);
    for (int turn = 1; turn <= 60; ++turn) {
        auto sent = runCoro(conversation.send(turnText(turn)));
        REQUIRE(sent);
        REQUIRE(sent->success());
    }
    REQUIRE_FALSE(conversation.context().compactions.empty());
    const json saved = conversation.save();

    auto second = std::make_shared<SimulatedModel>();
    Agent elsewhere = compactingAgent(second);
    auto restored = Conversation::restore(elsewhere, saved);
    REQUIRE(restored);
    CHECK(restored->context().compactions == conversation.context().compactions);
    for (int turn = 61; turn <= 120; ++turn) {
        auto here = runCoro(conversation.send(turnText(turn)));
        auto there = runCoro(restored->send(turnText(turn)));
        REQUIRE(here);
        REQUIRE(there);
        REQUIRE(here->output == there->output);
    }
    CHECK(transcriptOf(*restored) == transcriptOf(conversation));
    CHECK(restored->context().compactions == conversation.context().compactions);
    CHECK(first->largest <= kCompactionWindow);
    CHECK(second->largest <= kCompactionWindow);
}
