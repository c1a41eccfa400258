// Conversations: turns see the ones before, failed turns leave no trace, a paused turn resumes, the
// history saves and restores, ids and timestamps are set.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::Conversation;
using reagent::agent::ExternalResult;
using reagent::agent::TerminatedBy;
using reagent::llm::Role;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

namespace {

reagent::llm::ProviderError down() {
    reagent::llm::ProviderError error;
    error.code = reagent::llm::ProviderErrc::server_error;
    error.message = "down";
    return error;
}

Agent chatAgent(const std::shared_ptr<ScriptedProvider>& provider) {
    auto made = Agent::create().withProvider(provider).withSystemPrompt("be brief").build();
    REQUIRE(made);
    return *made;
}

}  // namespace

TEST_CASE("a conversation's turns see the turns before them", "[agent][conversation]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("Hello Ada").usage({10, 2}))
        .then(ScriptedTurn::text("Your name is Ada").expectLastMessageContains("my name"))
        .then(ScriptedTurn::error(down()))
        .then(ScriptedTurn::text("Still Ada"));
    Conversation chat(chatAgent(provider));

    auto first = runCoro(chat.send("I am Ada"));
    REQUIRE(first);
    CHECK(first->output == "Hello Ada");
    auto second = runCoro(chat.send("what is my name?"));
    REQUIRE(second);
    CHECK(second->output == "Your name is Ada");
    // The second request carried the system prompt, the first turn, then the new prompt.
    const auto& sent = provider->requests()[1].messages;
    REQUIRE(sent.size() == 4);
    CHECK(sent[0].role == Role::system);
    CHECK(sent[1].text == "I am Ada");
    CHECK(sent[2].text == "Hello Ada");
    CHECK(sent[3].text == "what is my name?");

    REQUIRE(chat.messages().size() == 4);
    CHECK(chat.messages()[0].id == "m1");
    CHECK(chat.messages()[3].id == "m4");
    CHECK(chat.messages()[0].createdAt.time_since_epoch().count() > 0);
    CHECK(chat.usage().inputTokens == 10);

    // A failed turn leaves the history as it was; the next turn goes on from there.
    auto failed = runCoro(chat.send("and my age?"));
    REQUIRE(failed);
    CHECK(failed->terminatedBy == TerminatedBy::provider_error);
    CHECK(chat.messages().size() == 4);
    auto third = runCoro(chat.send("who am I?"));
    REQUIRE(third);
    CHECK(provider->requests()[3].messages.size() == 6);
    CHECK(chat.messages().size() == 6);
    CHECK(chat.messages()[5].id == "m6");

    SECTION("saved and restored, it continues with the same history and ids") {
        const std::string saved = chat.save().dump();
        provider->then(ScriptedTurn::text("yes").expectLastMessageContains("again"));
        auto restored = Conversation::restore(chatAgent(provider), json::parse(saved));
        REQUIRE(restored);
        REQUIRE(restored->messages().size() == 6);
        CHECK(restored->messages()[1].message.text == "Hello Ada");
        auto next = runCoro(restored->send("again?"));
        REQUIRE(next);
        CHECK(provider->requests()[4].messages.size() == 8);
        CHECK(restored->messages().back().id == "m8");
    }
    SECTION("reset forgets the history") {
        chat.reset();
        CHECK(chat.messages().empty());
        provider->then(ScriptedTurn::text("hi"));
        REQUIRE(runCoro(chat.send("hello")));
        CHECK(provider->requests()[4].messages.size() == 2);
    }
    SECTION("bad saved histories are refused") {
        auto wrong = Conversation::restore(chatAgent(provider), json{{"format", "x"}});
        REQUIRE_FALSE(wrong);
        CHECK(wrong.error().code == AgentErrc::invalid_state);
        json broken = chat.save();
        broken["messages"][0].erase("id");
        auto missing = Conversation::restore(chatAgent(provider), broken);
        REQUIRE_FALSE(missing);
        CHECK_THAT(missing.error().message, Catch::Contains("conversation.messages[0].id is missing"));
        CHECK_FALSE(chat.truncateAt("nope"));
    }
}

TEST_CASE("a conversation turn paused for a declaration-only call resumes into the history",
          "[agent][conversation]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("ask_user", {{"question", "which city?"}}))
        .then(ScriptedTurn::text("Booked in Paris").expectLastMessageContains("Paris"));
    auto ask = reagent::tools::ToolBuilder::create("ask_user")
                   .description("Ask the user")
                   .param("question", "string", "the question", {})
                   .declarationOnly()
                   .build();
    REQUIRE(ask);
    reagent::agent::ToolsConfig tools;
    tools.tools.push_back(*ask);
    auto agent = Agent::create().withProvider(provider).withTools(tools).build();
    REQUIRE(agent);
    Conversation chat(*agent);

    auto paused = runCoro(chat.send("book a hotel"));
    REQUIRE(paused);
    REQUIRE(paused->terminatedBy == TerminatedBy::external_tool_calls);
    CHECK(chat.messages().empty());
    auto blocked = runCoro(chat.send("hurry"));
    REQUIRE_FALSE(blocked);
    CHECK(blocked.error().code == AgentErrc::invalid_state);

    std::vector<ExternalResult> answers{ExternalResult{paused->pendingToolCalls[0].id, std::string("Paris")}};
    auto done = runCoro(chat.resume(answers));
    REQUIRE(done);
    CHECK(done->output == "Booked in Paris");
    // user, assistant (the call), tool (Paris), assistant.
    REQUIRE(chat.messages().size() == 4);
    CHECK(chat.messages()[2].message.role == Role::tool);
    CHECK_FALSE(runCoro(chat.resume(answers)));
}

TEST_CASE("a local sub-agent as a tool answers the parent and reports its failure", "[agent][multi]") {
    auto subProvider = std::make_shared<ScriptedProvider>();
    subProvider->then(ScriptedTurn::text("Paris").expectLastMessageContains("capital of France"))
        .then(ScriptedTurn::error(down()));
    auto researcher = Agent::create().withProvider(subProvider).withName("researcher").build();
    REQUIRE(researcher);
    const auto tool = researcher->asTool();
    CHECK(tool.definition.name == "researcher");
    CHECK(tool.definition.inputSchema["required"] == json{"message"});

    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("research", {{"message", "What is the capital of France?"}}))
        .then(ScriptedTurn::toolCall("research", {{"message", "and of Peru?"}})
                  .expectLastMessageContains("Paris"))
        .then(ScriptedTurn::text("Paris, and Peru is unknown")
                  .expectLastMessageContains("agent 'research' did not finish its task: provider_failed"));
    reagent::agent::ToolsConfig none;
    auto parent =
        Agent::create().withProvider(provider).withTools(none).withAgentTool("research", *researcher).build();
    REQUIRE(parent);
    const auto result = runCoro(parent->run("capitals"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    REQUIRE(result.toolCalls.size() == 2);
    CHECK(*result.toolCalls[0].outcome == "Paris");
    REQUIRE_FALSE(result.toolCalls[1].succeeded());
    CHECK(result.toolCalls[1].outcome.error().details["terminatedBy"] == "provider_error");
    CHECK(subProvider->requests().size() == 2);
}
