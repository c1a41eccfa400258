// What a run carries besides its conversation: approvals decided later (the run pauses, its state is
// saved, a decision resumes it), the session state tools share (and the last tool error), per-run event
// handlers with a sub-agent's events nested under the parent's call, the artifacts bag merged per
// iteration, and the cause chain of a failed call.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <variant>
#include <vector>

#include "agent_fixtures.hpp"
#include "run_coro.hpp"

using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::AgentEvent;
using reagent::agent::ApprovalDecision;
using reagent::agent::Conversation;
using reagent::agent::ResumeInput;
using reagent::agent::RunOptions;
using reagent::agent::RunResult;
using reagent::agent::SubAgentEvent;
using reagent::agent::TerminatedBy;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::ToolCall;
using reagent::test::noBuiltinTools;
using reagent::test::runCoro;
using reagent::test::toolCall;
using reagent::tools::ToolBuilder;
using reagent::tools::ToolContext;
using reagent::tools::ToolErrc;
using reagent::tools::ToolResult;

namespace {

// A tool that requires approval and counts its runs.
reagent::tools::Tool deployTool(std::shared_ptr<int> runs) {
    auto tool = ToolBuilder::create("deploy")
                    .description("Deploy a service")
                    .param("service", "string", "the service", {})
                    .requiresApproval()
                    .handler([runs](json args, ToolContext) -> Task<ToolResult> {
                        ++*runs;
                        co_return "deployed " + args.value("service", std::string());
                    })
                    .build();
    REQUIRE(tool);
    return *tool;
}

std::shared_ptr<ScriptedProvider> deployScript() {
    auto provider = std::make_shared<ScriptedProvider>();
    std::vector<ToolCall> batch{toolCall("a", "deploy", {{"service", "web"}}),
                                toolCall("b", "deploy", {{"service", "db"}})};
    provider->then(ScriptedTurn::toolCalls(batch))
        .then(ScriptedTurn::respond([](const reagent::llm::ModelRequest& r) {
            // Answers with what the two tool messages said, so that the outcome shows in the output.
            std::string seen;
            for (const auto& message : r.messages) {
                if (message.role == reagent::llm::Role::tool) {
                    seen += (seen.empty() ? "" : " | ") + message.text;
                }
            }
            reagent::llm::ModelReply reply;
            reply.text = seen;
            return reagent::expected<reagent::llm::ModelReply, ProviderError>(reply);
        }));
    return provider;
}

Agent deferredAgent(std::shared_ptr<ScriptedProvider> provider, std::shared_ptr<int> runs) {
    auto agent = Agent::create()
                     .withProvider(std::move(provider))
                     .withTools(noBuiltinTools())
                     .withTool(deployTool(std::move(runs)))
                     .withDeferredApproval()
                     .build();
    REQUIRE(agent);
    return *agent;
}

}  // namespace

TEST_CASE("a call needing approval pauses the run and an approval given later runs it", "[agent][approval]") {
    auto runs = std::make_shared<int>(0);
    auto provider = deployScript();
    const Agent agent = deferredAgent(provider, runs);
    const RunResult paused = runCoro(agent.run("deploy web and db"));
    REQUIRE(paused.terminatedBy == TerminatedBy::approval_required);
    CHECK_FALSE(paused.success());
    CHECK(paused.error()->code == AgentErrc::approval_required);
    REQUIRE(paused.pendingApprovals.size() == 2);
    CHECK(paused.pendingApprovals[0].id == "a");
    CHECK(paused.pendingApprovals[1].arguments == json{{"service", "db"}});
    CHECK(*runs == 0);
    REQUIRE(paused.state.is_object());

    // The decision comes later, from the saved text of the state (as another process would read it).
    const json saved = json::parse(paused.state.dump());
    ResumeInput input;
    input.decisions = {ApprovalDecision{"a", true, {}},
                       ApprovalDecision{"b", false, "the database is frozen"}};
    auto resumed = runCoro(agent.resumeWith(saved, std::move(input)));
    REQUIRE(resumed);
    CHECK(resumed->terminatedBy == TerminatedBy::end_turn);
    CHECK(*runs == 1);
    CHECK(resumed->output.find("deployed web") != std::string::npos);
    CHECK(resumed->output.find("approval_denied") != std::string::npos);
    CHECK(resumed->output.find("the database is frozen") != std::string::npos);
    REQUIRE(resumed->toolCalls.size() == 2);
    CHECK(resumed->toolCalls[0].succeeded());
    CHECK(resumed->toolCalls[1].outcome.error().code == ToolErrc::approval_denied);
    CHECK(resumed->iterations == 2);
    // The tool messages are in call order, as if nothing had stopped.
    const auto& messages = resumed->messages;
    REQUIRE(messages.size() >= 4);
    CHECK(messages[2].toolCallId == "a");
    CHECK(messages[3].toolCallId == "b");
}

TEST_CASE("a resume with a missing or unknown decision is refused and leaves the run waiting",
          "[agent][approval]") {
    auto runs = std::make_shared<int>(0);
    const Agent agent = deferredAgent(deployScript(), runs);
    const RunResult paused = runCoro(agent.run("deploy web and db"));
    REQUIRE(paused.terminatedBy == TerminatedBy::approval_required);

    ResumeInput partial;
    partial.decisions = {ApprovalDecision{"a", true, {}}};
    auto refused = runCoro(agent.resumeWith(paused.state, std::move(partial)));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_state);
    CHECK(refused.error().message.find("b (deploy)") != std::string::npos);

    ResumeInput unknown;
    unknown.decisions = {ApprovalDecision{"a", true, {}}, ApprovalDecision{"b", true, {}},
                         ApprovalDecision{"zz", true, {}}};
    auto refusedAgain = runCoro(agent.resumeWith(paused.state, std::move(unknown)));
    REQUIRE_FALSE(refusedAgain);
    CHECK(refusedAgain.error().message.find("'zz'") != std::string::npos);
    CHECK(*runs == 0);

    ResumeInput both;
    both.decisions = {ApprovalDecision{"b", true, {}}, ApprovalDecision{"a", true, {}}};
    auto resumed = runCoro(agent.resumeWith(paused.state, std::move(both)));
    REQUIRE(resumed);
    CHECK(resumed->success());
    CHECK(*runs == 2);
}

TEST_CASE("a run saved while its approved calls run resumes them again", "[agent][approval]") {
    // The loop itself: pause, resume with an approval, save in the middle of the approved batch,
    // restore, and finish.
    auto runs = std::make_shared<int>(0);
    const Agent agent = deferredAgent(deployScript(), runs);
    const RunResult paused = runCoro(agent.run("deploy web and db"));
    REQUIRE(paused.state.is_object());
    reagent::agent::LoopConfig config;
    config.tools.push_back({"deploy", "Deploy a service", {{"type", "object"}}});
    auto loop = reagent::agent::ReactLoop::restore(config, paused.state);
    REQUIRE(loop);
    auto next = loop->resume({}, {ApprovalDecision{"a", false, {}}, ApprovalDecision{"b", true, {}}});
    REQUIRE(next);
    auto* run = std::get_if<reagent::agent::RunTools>(&*next);
    REQUIRE(run != nullptr);
    REQUIRE(run->calls.size() == 1);
    CHECK(run->calls[0].id == "b");
    CHECK(run->calls[0].preApproved);
    auto again = reagent::agent::ReactLoop::restore(config, json::parse(loop->save().dump()));
    REQUIRE(again);
    auto repeated = again->proceed();
    auto* rerun = std::get_if<reagent::agent::RunTools>(&repeated);
    REQUIRE(rerun != nullptr);
    REQUIRE(rerun->calls.size() == 1);
    CHECK(rerun->calls[0].preApproved);
    reagent::tools::ToolCallRecord record;
    record.id = "b";
    record.name = "deploy";
    record.outcome = std::string("deployed db");
    auto after = again->onToolResults({record});
    REQUIRE(std::holds_alternative<reagent::agent::CallModel>(after));
    const auto& messages = again->messages();
    REQUIRE(messages.size() >= 2);
    CHECK(messages[messages.size() - 2].toolCallId == "a");
    CHECK(messages[messages.size() - 2].isError);
    CHECK(messages.back().text == "deployed db");
}

TEST_CASE("a conversation saved while a turn waits for approval finishes it after restore",
          "[agent][approval]") {
    auto runs = std::make_shared<int>(0);
    const Agent agent = deferredAgent(deployScript(), runs);
    Conversation chat(agent);
    auto paused = runCoro(chat.send("deploy web and db"));
    REQUIRE(paused);
    REQUIRE(paused->terminatedBy == TerminatedBy::approval_required);
    CHECK(chat.messages().empty());

    auto restored = Conversation::restore(agent, json::parse(chat.save().dump()));
    REQUIRE(restored);
    auto refused = runCoro(restored->send("something else"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_state);
    ResumeInput input;
    input.decisions = {ApprovalDecision{"a", true, {}}, ApprovalDecision{"b", true, {}}};
    auto finished = runCoro(restored->resumeWith(std::move(input)));
    REQUIRE(finished);
    CHECK(finished->success());
    CHECK(*runs == 2);
    CHECK(restored->messages().size() == 5);  // the user's, the calls, two results, the answer
    CHECK(restored->responses().size() == 1);
}

TEST_CASE("an approval handler and deferred approval together are refused by build", "[agent][approval]") {
    auto built =
        Agent::create()
            .withProvider(std::make_shared<ScriptedProvider>())
            .withApprovalHandler([](reagent::tools::ToolCallRequest,
                                    reagent::tools::ToolDefinition) -> Task<bool> { co_return true; })
            .withDeferredApproval()
            .build();
    REQUIRE_FALSE(built);
    CHECK(built.error().code == AgentErrc::invalid_config);
    CHECK(built.error().message.find("withDeferredApproval") != std::string::npos);
}

TEST_CASE("tools share a session state that a conversation keeps from turn to turn", "[agent][session]") {
    auto counter = ToolBuilder::create("count")
                       .description("Count a visit")
                       .handler([](json, ToolContext context) -> Task<ToolResult> {
                           if (context.session == nullptr) {
                               co_return reagent::fail(reagent::tools::ToolError::failure("no session"));
                           }
                           json& session = *context.session;
                           session["visits"] = session.value("visits", 0) + 1;
                           co_return "visit " + session["visits"].dump();
                       })
                       .build();
    auto broken = ToolBuilder::create("broken")
                      .description("Always fails")
                      .param("why", "string", "a reason", {})
                      .handler([](json args, ToolContext) -> Task<ToolResult> {
                          co_return reagent::fail(reagent::tools::ToolError::failure(
                              "broke: " + args.value("why", std::string())));
                      })
                      .build();
    REQUIRE(counter);
    REQUIRE(broken);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("count", json::object()))
        .then(ScriptedTurn::text("one"))
        .then(ScriptedTurn::toolCall("broken", {{"why", "disk"}}))
        .then(ScriptedTurn::toolCall("count", json::object()))
        .then(ScriptedTurn::text("two"));
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools(noBuiltinTools())
                     .withTool(*counter)
                     .withTool(*broken)
                     .build();
    REQUIRE(agent);

    SECTION("a single run starts from the options' state and returns it") {
        RunOptions options;
        options.sessionState = {{"visits", 41}, {"user", "ada"}};
        const RunResult result = runCoro(agent->run("count", std::move(options)));
        CHECK(result.sessionState == json{{"visits", 42}, {"user", "ada"}});
        CHECK_FALSE(result.lastToolError);
    }
    SECTION("a conversation carries it and the last tool error across turns and saves") {
        Conversation chat(*agent);
        chat.sessionState()["user"] = "ada";
        auto first = runCoro(chat.send("count"));
        REQUIRE(first);
        CHECK(chat.sessionState()["visits"] == 1);
        auto second = runCoro(chat.send("count again"));
        REQUIRE(second);
        CHECK(chat.sessionState()["visits"] == 2);
        CHECK(chat.sessionState()["user"] == "ada");
        REQUIRE(second->lastToolError);
        CHECK(second->lastToolError->tool == "broken");
        CHECK(second->lastToolError->arguments == json{{"why", "disk"}});
        CHECK(second->lastToolError->error.message == "broke: disk");
        const json last = chat.sessionState()["lastToolError"];
        CHECK(last["toolId"] == "broken");
        CHECK(last["error"] == "broke: disk");
        CHECK(last["args"] == json{{"why", "disk"}});
        REQUIRE(chat.lastToolError());
        CHECK(chat.responses() == std::vector<std::string>{"one", "two"});

        auto restored = Conversation::restore(*agent, json::parse(chat.save().dump()));
        REQUIRE(restored);
        CHECK(restored->sessionState() == chat.sessionState());
        CHECK(restored->responses() == chat.responses());
        chat.reset();
        CHECK(chat.sessionState() == json::object());
        CHECK(chat.responses().empty());
    }
}

TEST_CASE("a conversation whose session state is not an object refuses to send", "[agent][session]") {
    auto agent = Agent::create().withProvider(std::make_shared<ScriptedProvider>()).build();
    REQUIRE(agent);
    Conversation chat(*agent);
    chat.sessionState() = json::array();
    auto refused = runCoro(chat.send("hi"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_state);
    CHECK(refused.error().message.find("object") != std::string::npos);
}

TEST_CASE("each run's handler sees its own events and a sub-agent's nested under the call",
          "[agent][events]") {
    auto echo = ToolBuilder::create("echo")
                    .description("Echo")
                    .param("text", "string", "text", {})
                    .handler([](json args, ToolContext context) -> Task<ToolResult> {
                        context.reportProgress(reagent::tools::ToolProgress{1, 2, "half"});
                        co_return args.value("text", std::string());
                    })
                    .build();
    REQUIRE(echo);
    auto subProvider = std::make_shared<ScriptedProvider>();
    subProvider->then(ScriptedTurn::toolCall("echo", {{"text", "inner"}}))
        .then(ScriptedTurn::text("sub done"));
    auto sub = Agent::create()
                   .withName("helper")
                   .withProvider(subProvider)
                   .withTools(noBuiltinTools())
                   .withTool(*echo)
                   .build();
    REQUIRE(sub);
    auto parentProvider = std::make_shared<ScriptedProvider>();
    parentProvider->then(ScriptedTurn::toolCall("helper", {{"message", "do it"}}, "p1"))
        .then(ScriptedTurn::text("all done"));
    auto parent = Agent::create()
                      .withProvider(parentProvider)
                      .withTools(noBuiltinTools())
                      .withAgentTool("helper", *sub)
                      .build();
    REQUIRE(parent);

    int agentLevel = 0;
    parent->subscribe([&](const AgentEvent&) { ++agentLevel; });
    std::vector<AgentEvent> seen;
    RunOptions options;
    options.onEvent = [&](const AgentEvent& event) { seen.push_back(event); };
    const RunResult result = runCoro(parent->run("delegate", std::move(options)));
    REQUIRE(result.success());
    CHECK(result.output == "all done");
    CHECK(agentLevel == static_cast<int>(seen.size()));

    std::vector<std::string> nested;
    for (const AgentEvent& event : seen) {
        if (const auto* sub = std::get_if<SubAgentEvent>(&event)) {
            CHECK(sub->callId == "p1");
            CHECK(sub->tool == "helper");
            const AgentEvent& inner = sub->inner->event;
            if (std::holds_alternative<reagent::tools::ToolCalling>(inner)) {
                nested.push_back("calling " + std::get<reagent::tools::ToolCalling>(inner).tool);
            } else if (const auto* progress = std::get_if<reagent::tools::ToolProgressed>(&inner)) {
                nested.push_back("progress " + progress->progress.message);
            } else if (const auto* finished = std::get_if<reagent::agent::RunFinished>(&inner)) {
                nested.push_back(std::string("finished ") + (finished->success() ? "ok" : "failed"));
            }
        }
    }
    CHECK(nested == std::vector<std::string>{"calling echo", "progress half", "finished ok"});
    REQUIRE_FALSE(seen.empty());
    CHECK(std::holds_alternative<reagent::agent::RunStarted>(seen.front()));
    CHECK(std::holds_alternative<reagent::agent::RunFinished>(seen.back()));

    // A later run without a handler does not reach this one's.
    const std::size_t before = seen.size();
    parentProvider->then(ScriptedTurn::text("quiet"));
    (void)runCoro(parent->run("again"));
    CHECK(seen.size() == before);
}

TEST_CASE("artifacts merge per iteration and across the run", "[agent][artifacts]") {
    const auto make = [](std::string name, json bag) {
        auto tool = ToolBuilder::create(name)
                        .description("Adds artifacts")
                        .handler([bag](json, ToolContext context) -> Task<ToolResult> {
                            for (auto it = bag.begin(); it != bag.end(); ++it) {
                                (*context.artifacts)[it.key()] = it.value();
                            }
                            co_return std::string("ok");
                        })
                        .build();
        REQUIRE(tool);
        return *tool;
    };
    auto provider = std::make_shared<ScriptedProvider>();
    std::vector<ToolCall> batch{toolCall("1", "first", json::object()),
                                toolCall("2", "second", json::object())};
    provider->then(ScriptedTurn::toolCalls(batch))
        .then(ScriptedTurn::toolCall("third", json::object()))
        .then(ScriptedTurn::text("done"));
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools(noBuiltinTools())
                     .withTool(make("first", {{"blocks", {1}}, {"meta", {{"a", 1}}}, {"title", "x"}}))
                     .withTool(make("second", {{"blocks", {2}}, {"meta", {{"b", 2}}}}))
                     .withTool(make("third", {{"blocks", {3}}, {"title", "y"}}))
                     .build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("go"));
    REQUIRE(result.success());
    REQUIRE(result.iterationArtifacts.size() == 3);
    CHECK(result.iterationArtifacts[0] ==
          json{{"blocks", {1, 2}}, {"meta", {{"a", 1}, {"b", 2}}}, {"title", "x"}});
    CHECK(result.iterationArtifacts[1] == json{{"blocks", {3}}, {"title", "y"}});
    CHECK(result.iterationArtifacts[2] == json::object());
    CHECK(result.artifacts == json{{"blocks", {1, 2, 3}}, {"meta", {{"a", 1}, {"b", 2}}}, {"title", "y"}});
    CHECK(result.toolCalls[0].artifacts == json{{"blocks", {1}}, {"meta", {{"a", 1}}}, {"title", "x"}});
}

TEST_CASE("every failed call carries its tool and trip with the original error as its cause",
          "[agent][errors]") {
    auto failingProvider = std::make_shared<ScriptedProvider>();
    ProviderError down;
    down.code = ProviderErrc::server_error;
    down.message = "upstream down";
    failingProvider->then(ScriptedTurn::error(down));
    auto sub = Agent::create().withName("helper").withProvider(failingProvider).build();
    REQUIRE(sub);
    auto thrower = ToolBuilder::create("thrower")
                       .description("Throws")
                       .param("n", "integer", "a number", {})
                       .handler([](json, ToolContext) -> Task<ToolResult> {
                           throw std::runtime_error("boom");
                           co_return std::string();
                       })
                       .build();
    REQUIRE(thrower);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("helper", {{"message", "try"}}))
        .then(ScriptedTurn::toolCall("thrower", {{"n", "not a number"}}))
        .then(ScriptedTurn::toolCall("thrower", {{"n", 3}}))
        .then(ScriptedTurn::text("gave up"));
    auto parent = Agent::create()
                      .withProvider(provider)
                      .withTools(noBuiltinTools())
                      .withTool(*thrower)
                      .withAgentTool("helper", *sub)
                      .build();
    REQUIRE(parent);
    const RunResult result = runCoro(parent->run("go"));
    REQUIRE(result.toolCalls.size() == 3);

    const auto& delegated = result.toolCalls[0].outcome.error();
    CHECK(delegated.tool == "helper");
    CHECK(delegated.tripIndex == 0);
    REQUIRE(delegated.cause);
    CHECK(delegated.cause->domain == "agent");
    CHECK(delegated.cause->code == "provider_failed");
    CHECK(delegated.cause->message.find("upstream down") != std::string::npos);
    CHECK(delegated.rootCause() == delegated.cause.get());

    const auto& invalid = result.toolCalls[1].outcome.error();
    CHECK(invalid.code == ToolErrc::invalid_arguments);
    CHECK(invalid.tripIndex == 1);
    REQUIRE(invalid.cause);
    CHECK(invalid.cause->domain == "schema");

    const auto& thrown = result.toolCalls[2].outcome.error();
    CHECK(thrown.code == ToolErrc::exception);
    CHECK(thrown.tool == "thrower");
    CHECK(thrown.tripIndex == 2);
    REQUIRE(thrown.rootCause() != nullptr);
    CHECK(thrown.rootCause()->domain == "exception");
    CHECK(thrown.rootCause()->message == "boom");
    CHECK(thrown.causes().size() == 1);
}

TEST_CASE("a cause chain survives a saved run state", "[agent][errors]") {
    reagent::agent::LoopConfig config;
    config.tools.push_back({"x", "X", {{"type", "object"}}});
    config.tools.push_back({"ext", "Ext", {{"type", "object"}}});
    reagent::agent::ReactLoop loop(config, "go");
    (void)loop.start();
    reagent::llm::ModelReply reply;
    reply.toolCalls = {toolCall("1", "x", json::object()), toolCall("2", "ext", json::object())};
    (void)loop.onModelReply(reply);

    reagent::tools::ErrorCause root{"provider", "server_error", "upstream down"};
    reagent::tools::ErrorCause middle{"agent", "provider_failed", "sub-agent failed"};
    middle.cause = std::make_shared<const reagent::tools::ErrorCause>(root);
    auto failure = reagent::tools::ToolError::failure("x failed", middle);
    failure.tool = "x";
    failure.tripIndex = 0;
    reagent::tools::ToolCallRecord failed;
    failed.id = "1";
    failed.name = "x";
    failed.outcome = reagent::unexpected(failure);
    reagent::tools::ToolCallRecord external;
    external.id = "2";
    external.name = "ext";
    external.outcome =
        reagent::unexpected(reagent::tools::ToolError{ToolErrc::not_executable, "caller runs it"});
    auto paused = loop.onToolResults({failed, external});
    REQUIRE(std::holds_alternative<reagent::agent::Finish>(paused));

    auto restored = reagent::agent::ReactLoop::restore(config, json::parse(loop.save().dump()));
    REQUIRE(restored);
    auto next = restored->resume({reagent::agent::ExternalResult{"2", std::string("done")}});
    REQUIRE(next);
    const auto& error = restored->toolCalls().at(0).outcome.error();
    CHECK(error.tool == "x");
    CHECK(error.tripIndex == 0);
    REQUIRE(error.causes().size() == 2);
    CHECK(error.causes()[0]->describe() == "agent/provider_failed: sub-agent failed");
    CHECK(error.rootCause()->describe() == "provider/server_error: upstream down");
}
