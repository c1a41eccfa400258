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

TEST_CASE("a compacted 300-turn conversation saved half-way continues identically",
          "[agent][context][compaction]") {
    auto first = std::make_shared<SimulatedModel>();
    Agent agent = compactingAgent(first);
    Conversation conversation(agent);
    for (int turn = 1; turn <= 150; ++turn) {
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
    for (int turn = 151; turn <= 300; ++turn) {
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

namespace {

// An error as Anthropic's API words a request longer than the window.
ProviderError tooLong() {
    ProviderError error;
    error.code = ProviderErrc::invalid_request;
    error.message = "prompt is too long: 208310 tokens > 200000 maximum";
    error.httpStatus = 400;
    error.providerType = "invalid_request_error";
    return error;
}

// A history of `turns` earlier turns, each with a 4,000-character tool result.
std::vector<Message> longHistory(int turns) {
    std::vector<Message> history;
    for (int turn = 1; turn <= turns; ++turn) {
        const std::string id = "old_" + std::to_string(turn);
        history.push_back(Message::user("question " + std::to_string(turn)));
        history.push_back(Message::assistant("", {{id, "fetch", json::object()}}));
        history.push_back(Message::toolResult(id, "fetch", std::string(4000, 'r')));
        history.push_back(Message::assistant("answer " + std::to_string(turn)));
    }
    return history;
}

std::size_t requestCharacters(const ModelRequest& request) {
    std::size_t characters = 0;
    for (const Message& message : request.messages) {
        characters += message.text.size();
    }
    return characters;
}

Agent agentWith(std::shared_ptr<ScriptedProvider> model, std::optional<CompactionOptions> options) {
    auto builder = Agent::create().withProvider(model).withTool(fetchTool());
    if (options) {
        builder.withCompaction(std::move(*options));
    } else {
        builder.withoutCompaction();
    }
    auto agent = builder.build();
    REQUIRE(agent);
    return std::move(*agent);
}

// A strategy that does what it is told to, right or wrong.
class MisbehavingStrategy final : public reagent::agent::CompactionStrategy {
  public:
    enum class Fault { pinned, split, throws, fails };
    explicit MisbehavingStrategy(Fault fault) : fault_(fault) {}
    std::string name() const override { return "misbehaving"; }
    reagent::Task<reagent::expected<bool, reagent::agent::AgentError>> compact(
        reagent::agent::CompactionContext& context) override {
        switch (fault_) {
            case Fault::pinned:
                context.messages.erase(context.messages.begin());
                co_return true;
            case Fault::split: {
                // Removes a tool result, leaving its call alone.
                const auto result =
                    std::find_if(context.messages.begin(), context.messages.end(),
                                 [](const Message& message) { return message.role == Role::tool; });
                context.messages.erase(result);
                co_return true;
            }
            case Fault::throws:
                context.messages.clear();
                throw std::runtime_error("strategy bug");
            case Fault::fails:
                context.messages.pop_back();
                co_return reagent::unexpected(
                    reagent::agent::AgentError{AgentErrc::internal_error, "cannot"});
        }
        co_return false;
    }

  private:
    Fault fault_;
};

}  // namespace

TEST_CASE("an API's context-length error leads to one compaction and a retry",
          "[agent][context][compaction]") {
    auto model = std::make_shared<ScriptedProvider>();
    CompactionOptions options;
    options.keepTurns = 1;
    SECTION("the retry succeeds") {
        model->then(ScriptedTurn::error(tooLong())).then(ScriptedTurn::text("fits now"));
        Agent agent = agentWith(model, options);
        const RunResult result = runCoro(agent.run(longHistory(6), "and now?"));
        REQUIRE(result.success());
        CHECK(result.output == "fits now");
        REQUIRE(model->requests().size() == 2);
        CHECK(requestCharacters(model->requests()[1]) * 2 < requestCharacters(model->requests()[0]));
        REQUIRE(result.context.compactions.size() == 1);
        const Compaction& compaction = result.context.compactions.front();
        CHECK(compaction.reason == CompactionReason::context_error);
        CHECK(compaction.strategies == std::vector<std::string>{"clear-tool-results"});
        CHECK(compaction.messagesAfter == compaction.messagesBefore);
        CHECK(compaction.tokensAfter * 2 <= compaction.tokensBefore);
        // The cleared results are in working memory, under the keys the history names.
        const auto& cleared = model->requests()[1].messages[2];
        REQUIRE(cleared.role == Role::tool);
        CHECK_THAT(cleared.text, Catch::StartsWith("[Cleared to save context. The full result is in working "
                                                   "memory under _tool_result_1: read it with recall"));
        CHECK(agent.workingMemory().read("_tool_result_1").value() == std::string(4000, 'r'));
    }
    SECTION("a second refusal ends the run with the provider's error") {
        model->then(ScriptedTurn::error(tooLong())).then(ScriptedTurn::error(tooLong()));
        Agent agent = agentWith(model, options);
        const RunResult result = runCoro(agent.run(longHistory(6), "and now?"));
        CHECK(result.terminatedBy == TerminatedBy::provider_error);
        CHECK_THAT(result.errorMessage, Catch::Contains("prompt is too long"));
        CHECK(model->requests().size() == 2);
        CHECK(result.context.compactions.size() == 1);
    }
    SECTION("without compaction the first refusal ends the run") {
        model->then(ScriptedTurn::error(tooLong()));
        Agent agent = agentWith(model, std::nullopt);
        const RunResult result = runCoro(agent.run(longHistory(6), "and now?"));
        CHECK(result.terminatedBy == TerminatedBy::provider_error);
        CHECK(model->requests().size() == 1);
        CHECK(result.context.compactions.empty());
    }
    SECTION("another invalid request is not taken for one") {
        ProviderError other = tooLong();
        other.message = "messages: text content blocks must be non-empty";
        model->then(ScriptedTurn::error(other));
        Agent agent = agentWith(model, options);
        const RunResult result = runCoro(agent.run(longHistory(6), "and now?"));
        CHECK(result.terminatedBy == TerminatedBy::provider_error);
        CHECK(result.context.compactions.empty());
    }
}

TEST_CASE("a strategy that fails or breaks the rules is undone, and the next one runs",
          "[agent][context][compaction]") {
    using Fault = MisbehavingStrategy::Fault;
    const auto fault = GENERATE(Fault::pinned, Fault::split, Fault::throws, Fault::fails);
    auto model = std::make_shared<ScriptedProvider>();
    model->then(ScriptedTurn::error(tooLong())).then(ScriptedTurn::text("done"));
    CompactionOptions options;
    options.keepTurns = 1;
    options.strategies = {std::make_shared<MisbehavingStrategy>(fault), reagent::agent::dropOldestTurns()};
    Agent agent = agentWith(model, options);
    const RunResult result = runCoro(agent.run(longHistory(6), "and now?"));
    REQUIRE(result.success());
    REQUIRE(result.context.compactions.size() == 1);
    const Compaction& compaction = result.context.compactions.front();
    CHECK(compaction.strategies == std::vector<std::string>{"drop-oldest"});
    REQUIRE(compaction.notes.size() == 1);
    CHECK_THAT(compaction.notes.front(),
               Catch::StartsWith("misbehaving: ") && Catch::EndsWith("its change was undone"));
    const std::string why = fault == Fault::pinned   ? "changed the pinned message 0"
                            : fault == Fault::split  ? "without its result"
                            : fault == Fault::throws ? "it threw: strategy bug"
                                                     : "cannot";
    CHECK_THAT(compaction.notes.front(), Catch::Contains(why));
    // What was dropped went in whole turns; the first question and the prompt stayed.
    const auto& sent = model->requests()[1].messages;
    CHECK(sent.front().text == "question 1");
    CHECK(sent.back().text == "and now?");
    CHECK(SimulatedModel::pairing(model->requests()[1]).empty());
}

TEST_CASE("a failed summary is noted and the oldest turns are dropped instead",
          "[agent][context][compaction]") {
    auto model = std::make_shared<ScriptedProvider>();
    ProviderError down;
    down.code = ProviderErrc::server_error;
    down.message = "overloaded";
    model->then(ScriptedTurn::error(tooLong()))
        .then(ScriptedTurn::error(down))
        .then(ScriptedTurn::text("done"));
    CompactionOptions options;
    options.keepTurns = 2;
    options.strategies = {reagent::agent::summarizeTurns(), reagent::agent::dropOldestTurns()};
    Agent agent = agentWith(model, options);
    const RunResult result = runCoro(agent.run(longHistory(6), "and now?"));
    REQUIRE(result.success());
    REQUIRE(result.context.compactions.size() == 1);
    const Compaction& compaction = result.context.compactions.front();
    CHECK(compaction.strategies == std::vector<std::string>{"drop-oldest"});
    REQUIRE(compaction.notes.size() == 1);
    CHECK_THAT(compaction.notes.front(),
               Catch::Contains("summarize: the summary's model call failed: server_error"));
    // The summary's request had no tools and its own prompt.
    REQUIRE(model->requests().size() == 3);
    CHECK(model->requests()[1].tools.empty());
    CHECK_THAT(model->requests()[1].messages.front().text, Catch::StartsWith("You condense"));
}

TEST_CASE("compaction options are checked when the agent is built", "[agent][context][compaction]") {
    auto model = std::make_shared<ScriptedProvider>();
    CompactionOptions options;
    options.threshold = 0;
    options.target = 0.9;
    options.keepTurns = -1;
    options.strategies = {nullptr};
    const auto refused = Agent::create().withProvider(model).withCompaction(options).build();
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_config);
    CHECK_THAT(refused.error().message,
               Catch::Contains("compaction: threshold must be a share of the window") &&
                   Catch::Contains("compaction: target must be") &&
                   Catch::Contains("keepTurns must not be negative") &&
                   Catch::Contains("strategy 1 is null"));
}

TEST_CASE("a loop saved while it waits for its compaction resumes there", "[agent][context][compaction]") {
    reagent::agent::LoopConfig config;
    config.contextWindow = 1000;
    config.compaction = std::make_shared<CompactionOptions>();
    config.options.maxTokens = 100;
    reagent::agent::ReactLoop loop(config, longHistory(2), "next");
    auto action = loop.start();
    const auto* compact = std::get_if<reagent::agent::Compact>(&action);
    REQUIRE(compact != nullptr);
    CHECK(compact->reason == CompactionReason::threshold);
    CHECK(compact->target == 450);  // half the 900 tokens the reply leaves
    const json saved = loop.save();
    CHECK(saved["awaiting"] == "compaction");

    auto restored = reagent::agent::ReactLoop::restore(config, saved);
    REQUIRE(restored);
    auto again = restored->proceed();
    const auto* same = std::get_if<reagent::agent::Compact>(&again);
    REQUIRE(same != nullptr);
    CHECK(same->promptTokens == compact->promptTokens);
    CHECK(same->target == compact->target);

    // The compacted history goes out as the next request; the compaction stays on record.
    std::vector<Message> shorter{Message::user("question 1"), Message::user("next")};
    Compaction done;
    done.strategies = {"mine"};
    done.tokensBefore = compact->promptTokens;
    done.tokensAfter = 10;
    auto next = restored->onCompacted(shorter, done);
    const auto* call = std::get_if<reagent::agent::CallModel>(&next);
    REQUIRE(call != nullptr);
    CHECK(call->request.messages.size() == 2);
    REQUIRE(restored->context().compactions.size() == 1);
    CHECK(restored->context().compactions.front().messagesBefore == 9);
    CHECK(restored->context().compactions.front().messagesAfter == 2);
    CHECK(restored->save()["result"]["compactions"].size() == 1);

    SECTION("a state whose compaction fields are broken is refused") {
        json broken = saved;
        broken["result"].erase("contextState");
        const auto refused = reagent::agent::ReactLoop::restore(config, broken);
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message, Catch::Contains("contextState.compacting is missing"));
    }
}

TEST_CASE("a conversation compacts on demand", "[agent][context][compaction]") {
    auto simulated = std::make_shared<SimulatedModel>();
    Agent agent = compactingAgent(simulated);
    Conversation conversation(agent);
    for (int turn = 1; turn <= 8; ++turn) {
        REQUIRE(runCoro(conversation.send(turnText(turn)))->success());
    }
    const std::size_t before = conversation.messages().size();
    const std::string firstId = conversation.messages().front().id;
    const auto usage = conversation.usage();
    auto compacted = runCoro(conversation.compact());
    REQUIRE(compacted);
    CHECK(compacted->reason == CompactionReason::manual);
    CHECK(compacted->iteration == -1);
    CHECK(compacted->tokensAfter * 2 <= compacted->tokensBefore);
    CHECK(conversation.messages().size() <= before);
    CHECK(conversation.messages().front().id == firstId);  // the pinned message keeps its id
    CHECK(conversation.context().compactions.back() == *compacted);
    if (std::find(compacted->strategies.begin(), compacted->strategies.end(), "summarize") !=
        compacted->strategies.end()) {
        CHECK(conversation.usage().total() > usage.total());  // the summary's call counts
    }
    // The next turn goes on from the compacted history.
    REQUIRE(runCoro(conversation.send(turnText(9)))->success());

    SECTION("an agent without compaction refuses") {
        auto plain =
            Agent::create().withProvider(std::make_shared<ScriptedProvider>()).withoutCompaction().build();
        REQUIRE(plain);
        Conversation other(*plain);
        const auto refused = runCoro(other.compact());
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == AgentErrc::invalid_config);
    }
}

TEST_CASE("a summary's model call keeps to the run's budget and counts in it",
          "[agent][context][compaction]") {
    auto model = std::make_shared<ScriptedProvider>();
    CompactionOptions options;
    options.keepTurns = 2;
    options.strategies = {reagent::agent::summarizeTurns(), reagent::agent::dropOldestTurns()};
    reagent::agent::RunBudget budget;
    // Each section sets the budget and the model's script first.
    const auto runWithBudget = [&] {
        auto agent = Agent::create()
                         .withProvider(model)
                         .withTool(fetchTool())
                         .withCompaction(options)
                         .withBudget(budget)
                         .build();
        REQUIRE(agent);
        return runCoro(agent->run(longHistory(6), "and now?"));
    };
    SECTION("a summary that would pass the budget is not asked for; the oldest turns are dropped") {
        budget.maxModelCalls = 1;  // the refused request used it
        model->then(ScriptedTurn::error(tooLong())).then(ScriptedTurn::text("never"));
        RunResult result = runWithBudget();
        CHECK(model->requests().size() == 1);  // no summary call, and no retry past the budget
        CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
        REQUIRE(result.context.compactions.size() == 1);
        CHECK(result.context.compactions.front().strategies == std::vector<std::string>{"drop-oldest"});
        REQUIRE_FALSE(result.context.compactions.front().notes.empty());
        CHECK_THAT(result.context.compactions.front().notes.front(),
                   Catch::Contains("not sent: budget: maxModelCalls of 1"));
    }
    SECTION("the summary counts as a model call") {
        budget.maxModelCalls = 2;
        model->then(ScriptedTurn::error(tooLong()))
            .then(ScriptedTurn::text("the summary"))
            .then(ScriptedTurn::text("never"));
        RunResult result = runWithBudget();
        CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
        CHECK_THAT(result.errorMessage, Catch::Contains("maxModelCalls of 2"));
        CHECK(model->requests().size() == 2);  // the refused request and the summary
        REQUIRE(result.context.compactions.size() == 1);
        INFO((result.context.compactions.front().notes.empty()
                  ? std::string()
                  : result.context.compactions.front().notes.front()));
        CHECK(result.context.compactions.front().strategies.front() == "summarize");
    }
}

TEST_CASE("the prompt a turn answers stays when a re-ask for a valid answer follows it",
          "[agent][context][compaction]") {
    const std::string question = "second question " + std::string(1500, 'q');
    auto model = std::make_shared<ScriptedProvider>();
    auto asked = std::make_shared<std::vector<ModelRequest>>();
    model->then(ScriptedTurn::respond([asked, question](const ModelRequest& request) {
        asked->push_back(request);
        ModelReply reply;
        const Message& last = request.messages.back();
        if (request.messages.front().text.rfind("You condense", 0) == 0) {
            reply.text = "The user asked a first question.";
        } else if (last.text == question) {
            reply.text = "not an answer " + std::string(2500, 'x');  // invalid: re-asked
        } else {
            reply.text = R"({"answer": "ok"})";
        }
        return reagent::expected<ModelReply, ProviderError>(std::move(reply));
    }));
    model->loop(true);
    CompactionOptions options;
    options.keepTurns = 0;
    auto agent = Agent::create()
                     .withProvider(model)
                     .withOutputSchema(json{{"type", "object"},
                                            {"properties", {{"answer", {{"type", "string"}}}}},
                                            {"required", {"answer"}}})
                     .withContextWindow(1500)
                     .withMaxTokens(100)
                     .withCompaction(options)
                     .build();
    REQUIRE(agent);
    Conversation conversation(*agent);
    REQUIRE(runCoro(conversation.send("first question"))->success());
    const auto second = runCoro(conversation.send(question));
    REQUIRE(second);
    INFO(second->errorMessage);
    REQUIRE(second->success());
    REQUIRE_FALSE(second->context.compactions.empty());
    // Every request of the turn, the one after the compaction included, still holds the question.
    const ModelRequest& last = asked->back();
    const bool kept = std::any_of(last.messages.begin(), last.messages.end(),
                                  [&](const Message& message) { return message.text == question; });
    CHECK(kept);
}

TEST_CASE("a run saved while it waits for a compaction resumes in an agent without compaction",
          "[agent][context][compaction]") {
    reagent::agent::LoopConfig config;
    config.contextWindow = 1000;
    config.compaction = std::make_shared<CompactionOptions>();
    config.options.maxTokens = 100;
    reagent::agent::ReactLoop loop(config, longHistory(2), "next");
    REQUIRE(std::holds_alternative<reagent::agent::Compact>(loop.start()));
    const json saved = loop.save();

    auto model = std::make_shared<ScriptedProvider>();
    model->then(ScriptedTurn::text("answered"));
    auto plain = Agent::create().withProvider(model).withoutCompaction().withContextWindow(100'000).build();
    REQUIRE(plain);
    const auto resumed = runCoro(plain->resumeWith(saved, {}));
    REQUIRE(resumed);
    CHECK(resumed->success());
    CHECK(resumed->output == "answered");
    CHECK(resumed->context.compactions.empty());
}

TEST_CASE("a saved conversation carries the stored results its history names, renamed where they collide",
          "[agent][context][compaction]") {
    auto simulated = std::make_shared<SimulatedModel>();
    Agent agent = compactingAgent(simulated);
    Conversation conversation(agent);
    for (int turn = 1; turn <= 3; ++turn) {
        REQUIRE(runCoro(conversation.send(turnText(turn)))->success());
    }
    REQUIRE(agent.workingMemory().put("private-note", "another conversation's note"));
    const json saved = conversation.save();
    const json& entries = saved["workingMemory"]["entries"];
    REQUIRE(entries.size() == 3);  // the three compressed results the history names; not the note
    for (const json& entry : entries) {
        CHECK(entry["key"].get<std::string>().rfind("_tool_result_", 0) == 0);
    }

    // Another agent whose memory already holds _tool_result_1..3, with other values.
    auto elsewhere = std::make_shared<SimulatedModel>();
    Agent other = compactingAgent(elsewhere);
    Conversation local(other);
    for (int turn = 101; turn <= 103; ++turn) {
        REQUIRE(runCoro(local.send(turnText(turn)))->success());
    }
    auto restored = Conversation::restore(other, saved);
    REQUIRE(restored);
    // The restored history names keys that hold its own results; the agent's own stay as they were.
    std::string named;
    for (const auto& entry : restored->messages()) {
        if (entry.message.role == Role::tool &&
            entry.message.text.find("page of fetch_2") != std::string::npos) {
            named = entry.message.text;
        }
    }
    REQUIRE_FALSE(named.empty());
    const auto key = named.substr(9, named.find(" |") - 9);  // "[STORED: _tool_result_N | fetch]"
    CHECK(key != "_tool_result_2");
    CHECK_THAT(std::string(other.workingMemory().read(key).value()), Catch::StartsWith("page of fetch_2: "));
    CHECK_THAT(std::string(other.workingMemory().read("_tool_result_2").value()),
               Catch::StartsWith("page of fetch_102: "));
}

TEST_CASE("a journaled run's compaction is journaled, and taken from the journal by a later attempt",
          "[agent][context][compaction][journal]") {
    CompactionOptions options;
    options.keepTurns = 2;
    options.strategies = {reagent::agent::summarizeTurns()};
    ModelReply summary;
    summary.text = "Facts so far: none worth keeping.";
    summary.usage = reagent::llm::Usage{900, 30, 0, 0, 0};
    ModelReply answer;
    answer.text = "fits now";
    answer.usage = reagent::llm::Usage{300, 4, 0, 0, 0};
    auto model = std::make_shared<ScriptedProvider>();
    model->then(ScriptedTurn::error(tooLong()))
        .then(ScriptedTurn::reply(summary))
        .then(ScriptedTurn::reply(answer));
    auto journal = std::make_shared<reagent::agent::MemoryRunJournal>("run-c");
    reagent::agent::RunOptions runOptions;
    runOptions.journal = journal;
    const RunResult first = runCoro(agentWith(model, options).run(longHistory(6), "and now?", runOptions));
    REQUIRE(first.success());
    REQUIRE(first.context.compactions.size() == 1);
    auto steps = journal->steps();
    std::vector<std::string> kinds;
    for (const auto& step : steps) {
        kinds.push_back(step.step + " " + step.kind);
    }
    INFO(Catch::Detail::stringify(kinds));
    const auto compacted = std::find_if(steps.begin(), steps.end(),
                                        [](const auto& step) { return step.step == "compaction:0"; });
    REQUIRE(compacted != steps.end());
    CHECK(compacted->kind == "compaction");
    CHECK(compacted->payload["calls"].size() == 1);

    // The process died before the answer was journaled: the next attempt makes no summary call.
    steps.erase(compacted + 1, steps.end());
    auto again = std::make_shared<ScriptedProvider>();
    again->then(ScriptedTurn::reply(answer));
    reagent::agent::RunOptions secondOptions;
    secondOptions.journal = std::make_shared<reagent::agent::MemoryRunJournal>("run-c", steps);
    const RunResult second =
        runCoro(agentWith(again, options).run(longHistory(6), "and now?", secondOptions));
    REQUIRE(second.success());
    CHECK(second.output == "fits now");
    REQUIRE(again->requests().size() == 1);
    const auto& sent = again->requests()[0].messages;
    CHECK(std::any_of(sent.begin(), sent.end(), [](const Message& message) {
        return message.text.find("none worth keeping") != std::string::npos;
    }));
    CHECK(second.context.compactions == first.context.compactions);
    CHECK(second.usage.inputTokens == first.usage.inputTokens);  // the summary's spending counts again
}
