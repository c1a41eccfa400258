// A loop saved as JSON at every step and restored (as another process would) finishes exactly as the
// uninterrupted loop; runs paused for declaration-only calls resume with their results; bad states and
// bad results are refused with invalid_state, running nothing.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <variant>
#include <vector>

#include "agent_fixtures.hpp"
#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::CallModel;
using reagent::agent::ExternalResult;
using reagent::agent::Fail;
using reagent::agent::Finish;
using reagent::agent::LoopAction;
using reagent::agent::LoopConfig;
using reagent::agent::ReactLoop;
using reagent::agent::RunResult;
using reagent::agent::RunTools;
using reagent::agent::TerminatedBy;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::ToolCall;
using reagent::test::toolCall;
using reagent::tools::ToolCallRecord;
using reagent::tools::ToolErrc;
using reagent::tools::ToolError;

namespace {

LoopConfig loopConfig() {
    LoopConfig loop;
    loop.systemPrompt = "be exact";
    loop.options.maxIterations = 6;
    loop.tools.push_back({"lookup", "Look a word up", {{"type", "object"}}});
    loop.tools.push_back({"final-answer", "Answer", {{"type", "object"}}});
    return loop;
}

ModelReply reply(std::string text, std::vector<ToolCall> calls, reagent::llm::Usage usage) {
    ModelReply made;
    made.text = std::move(text);
    made.toolCalls = std::move(calls);
    made.usage = usage;
    return made;
}

ToolCallRecord record(const std::string& id, const std::string& name, reagent::tools::ToolResult outcome,
                      int trip) {
    ToolCallRecord made;
    made.id = id;
    made.name = name;
    made.tripIndex = trip;
    made.input = json{{"word", id}};
    made.outcome = std::move(outcome);
    made.artifacts = json{{"source", name}};
    return made;
}

// One input the driver feeds the loop: a model reply or a batch's records.
using Input = std::variant<ModelReply, std::vector<ToolCallRecord>>;

std::vector<Input> script() {
    std::vector<Input> inputs;
    inputs.emplace_back(
        reply("let me look",
              {toolCall("a", "lookup", {{"word", "a"}}), toolCall("b", "lookup", {{"word", "b"}})}, {10, 2}));
    inputs.emplace_back(std::vector<ToolCallRecord>{
        record("a", "lookup", std::string("alpha"), 0),
        record("b", "lookup", reagent::fail(ToolError{ToolErrc::timeout, "slow"}), 0)});
    inputs.emplace_back(reply("", {toolCall("c", "lookup", {{"word", "c"}})}, {20, 3}));
    inputs.emplace_back(std::vector<ToolCallRecord>{record("c", "lookup", std::string("gamma"), 1)});
    inputs.emplace_back(reply(
        "", {toolCall("f", "final-answer", {{"output", "alpha gamma"}, {"confidence", 0.5}})}, {30, 4}));
    inputs.emplace_back(
        std::vector<ToolCallRecord>{record("f", "final-answer", std::string("final answer recorded"), 2)});
    return inputs;
}

LoopAction feed(ReactLoop& loop, const Input& input) {
    if (const auto* model = std::get_if<ModelReply>(&input)) {
        return loop.onModelReply(*model);
    }
    return loop.onToolResults(std::get<std::vector<ToolCallRecord>>(input));
}

// What a result is, as comparable JSON (times included: they travel through the state unchanged).
json summary(const RunResult& result) {
    json calls = json::array();
    for (const auto& made : result.toolCalls) {
        calls.push_back({made.id, made.name, made.tripIndex, made.input, made.artifacts,
                         made.succeeded() ? json(*made.outcome) : json(made.outcome.error().describe())});
    }
    json messages = json::array();
    for (const auto& message : result.messages) {
        messages.push_back({reagent::llm::toString(message.role), message.text, message.toolCallId,
                            message.isError, message.toolCalls.size()});
    }
    return json{{"output", result.output},
                {"terminatedBy", toString(result.terminatedBy)},
                {"iterations", result.iterations},
                {"usage", {result.usage.inputTokens, result.usage.outputTokens}},
                {"calls", calls},
                {"messages", messages},
                {"final", result.finalAnswer ? result.finalAnswer->output : ""}};
}

RunResult resultOf(LoopAction action) {
    if (auto* finish = std::get_if<Finish>(&action)) {
        return finish->result;
    }
    return std::get<Fail>(action).result;
}

bool sameAction(const LoopAction& left, const LoopAction& right) {
    if (left.index() != right.index()) {
        return false;
    }
    if (const auto* model = std::get_if<CallModel>(&left)) {
        const auto& other = std::get<CallModel>(right);
        return model->iteration == other.iteration && model->request.messages == other.request.messages;
    }
    if (const auto* tools = std::get_if<RunTools>(&left)) {
        const auto& other = std::get<RunTools>(right);
        if (tools->tripIndex != other.tripIndex || tools->calls.size() != other.calls.size()) {
            return false;
        }
        for (std::size_t i = 0; i < tools->calls.size(); ++i) {
            if (tools->calls[i].id != other.calls[i].id ||
                tools->calls[i].arguments != other.calls[i].arguments) {
                return false;
            }
        }
    }
    return true;
}

reagent::Task<reagent::tools::ToolResult> lookupHandler(json args) {
    co_return "meaning of " + args["word"].get<std::string>();
}

}  // namespace

TEST_CASE("a loop saved and restored at every step finishes as the uninterrupted loop", "[agent][state]") {
    const auto inputs = script();
    ReactLoop straight(loopConfig(), "define a and c");
    LoopAction action = straight.start();
    for (const Input& input : inputs) {
        action = feed(straight, input);
    }
    const json expected = summary(resultOf(action));
    REQUIRE(expected["terminatedBy"] == "final_answer");

    for (std::size_t stop = 0; stop <= inputs.size(); ++stop) {
        INFO("saved after " << stop << " inputs");
        ReactLoop first(loopConfig(), "define a and c");
        LoopAction before = first.start();
        for (std::size_t i = 0; i < stop; ++i) {
            before = feed(first, inputs[i]);
        }
        if (first.done()) {
            continue;  // the last input ended the run: nothing to resume
        }
        // Through text, as a file or another process would carry it.
        const std::string saved = first.save().dump();
        auto restored = ReactLoop::restore(loopConfig(), json::parse(saved));
        REQUIRE(restored);
        LoopAction again = restored->proceed();
        CHECK(sameAction(before, again));
        for (std::size_t i = stop; i < inputs.size(); ++i) {
            again = feed(*restored, inputs[i]);
        }
        CHECK(summary(resultOf(again)) == expected);
    }
}

TEST_CASE("states that save did not make are refused naming the field", "[agent][state]") {
    ReactLoop loop(loopConfig(), "x");
    (void)loop.start();
    const json good = loop.save();

    const auto refuse = [](const json& state, const std::string& part) {
        auto restored = ReactLoop::restore(loopConfig(), state);
        REQUIRE_FALSE(restored);
        CHECK(restored.error().code == AgentErrc::invalid_state);
        CHECK_THAT(restored.error().message, Catch::Contains(part));
    };
    refuse(json::array(), "state must be an object");
    refuse(json::object(), "state.format is missing");
    json other = good;
    other["format"] = "reagent.run/99";
    refuse(other, "reagent.run/99");
    json awaiting = good;
    awaiting["awaiting"] = "dreaming";
    refuse(awaiting, "state.awaiting 'dreaming'");
    json role = good;
    role["messages"][0]["role"] = "narrator";
    refuse(role, "state.messages[0].role 'narrator'");
    json noMessages = good;
    noMessages["messages"] = json::array();
    refuse(noMessages, "state.messages is empty");
    json badCode = good;
    badCode["result"]["toolCalls"] = json::array(
        {{{"id", "x"}, {"tripIndex", 0}, {"name", "t"}, {"error", {{"code", "oops"}, {"message", "m"}}}}});
    refuse(badCode, "state.result.toolCalls[0].error.code 'oops'");
    json wrongType = good;
    wrongType["iterations"] = "three";
    refuse(wrongType, "state.iterations has the wrong type");
}

TEST_CASE("a run paused for a declaration-only call resumes as if the call had run", "[agent][state]") {
    // The same conversation twice: once with an executable tool, once with a declaration-only one
    // whose result is supplied after the pause, by a second agent (as another process would).
    const auto script = [](const std::shared_ptr<ScriptedProvider>& provider) {
        std::vector<ToolCall> both{toolCall("1", "lookup", {{"word", "x"}}),
                                   toolCall("2", "note", {{"text", "y"}})};
        provider->then(ScriptedTurn::toolCalls(both).usage({5, 1}))
            .then(ScriptedTurn::toolCall("final-answer", {{"output", "done"}})
                      .expectLastMessageContains("noted"));
    };
    const auto lookup =
        reagent::tools::ToolBuilder::create("lookup")
            .description("Look a word up")
            .param("word", "string", "the word", {})
            .handler([](json args, reagent::tools::ToolContext) { return lookupHandler(std::move(args)); })
            .build();
    REQUIRE(lookup);
    const auto noteRuns =
        reagent::tools::ToolBuilder::create("note")
            .description("Note a text")
            .param("text", "string", "the text", {})
            .handler([](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                co_return std::string("noted");
            })
            .build();
    const auto noteExternal = reagent::tools::ToolBuilder::create("note")
                                  .description("Note a text")
                                  .param("text", "string", "the text", {})
                                  .declarationOnly()
                                  .build();
    REQUIRE(noteRuns);
    REQUIRE(noteExternal);
    reagent::agent::ToolsConfig none;

    auto straightProvider = std::make_shared<ScriptedProvider>();
    script(straightProvider);
    auto straight = Agent::create()
                        .withProvider(straightProvider)
                        .withTools(none)
                        .withTool(*lookup)
                        .withTool(*noteRuns)
                        .withReasoning()
                        .build();
    REQUIRE(straight);
    const RunResult expected = reagent::test::runCoro(straight->run("look x up and note y"));
    REQUIRE(expected.terminatedBy == TerminatedBy::final_answer);

    auto pausedProvider = std::make_shared<ScriptedProvider>();
    script(pausedProvider);
    const auto build = [&] {
        return Agent::create()
            .withProvider(pausedProvider)
            .withTools(none)
            .withTool(*lookup)
            .withTool(*noteExternal)
            .withReasoning()
            .build();
    };
    auto first = build();
    REQUIRE(first);
    const RunResult paused = reagent::test::runCoro(first->run("look x up and note y"));
    REQUIRE(paused.terminatedBy == TerminatedBy::external_tool_calls);
    REQUIRE(paused.pendingToolCalls.size() == 1);
    CHECK(paused.pendingToolCalls[0].id == "2");
    REQUIRE(paused.state.is_object());
    const std::string stored = paused.state.dump();

    auto second = build();
    REQUIRE(second);

    SECTION("resumed with the result it finishes as the uninterrupted run") {
        std::vector<ExternalResult> results{ExternalResult{"2", std::string("noted")}};
        const auto resumed = reagent::test::runCoro(second->resume(json::parse(stored), results));
        REQUIRE(resumed);
        CHECK(summary(*resumed) == summary(expected));
        CHECK(resumed->output == "done");
    }
    SECTION("a missing or foreign result is refused and nothing runs") {
        const auto before = pausedProvider->requests().size();
        const auto missing = reagent::test::runCoro(second->resume(json::parse(stored), {}));
        REQUIRE_FALSE(missing);
        CHECK(missing.error().code == AgentErrc::invalid_state);
        CHECK_THAT(missing.error().message, Catch::Contains("2 (note)"));
        std::vector<ExternalResult> foreign{ExternalResult{"2", std::string("noted")},
                                            ExternalResult{"9", std::string("?")}};
        const auto extra = reagent::test::runCoro(second->resume(json::parse(stored), foreign));
        REQUIRE_FALSE(extra);
        CHECK_THAT(extra.error().message, Catch::Contains("'9'"));
        CHECK(pausedProvider->requests().size() == before);
    }
    SECTION("a finished run cannot be resumed") {
        std::vector<ExternalResult> results{ExternalResult{"2", std::string("noted")}};
        auto done = reagent::test::runCoro(second->resume(json::parse(stored), results));
        REQUIRE(done);
        CHECK(done->state.is_null());
        const auto again = reagent::test::runCoro(second->resume(json{{"format", "reagent.run/1"}}, {}));
        REQUIRE_FALSE(again);
        CHECK(again.error().code == AgentErrc::invalid_state);
    }
    SECTION("an error result is fed back to the model as the call's error") {
        std::vector<ExternalResult> results{
            ExternalResult{"2", reagent::unexpected(ToolError{ToolErrc::failed, "disk full"})}};
        const auto resumed = reagent::test::runCoro(second->resume(json::parse(stored), results));
        REQUIRE(resumed);
        // (The script then expected "noted" and stops the run: what matters is the error fed back.)
        REQUIRE(resumed->toolCalls.size() >= 2);
        CHECK_FALSE(resumed->toolCalls[1].succeeded());
        CHECK(resumed->messages.back().isError);
        CHECK_THAT(resumed->messages.back().text, Catch::Contains("disk full"));
        CHECK(resumed->toolCalls[1].outcome.error().message == "disk full");
    }
}
