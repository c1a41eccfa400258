#include "reagent/agent/react_loop.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

using reagent::agent::AgentErrc;
using reagent::agent::CallModel;
using reagent::agent::Fail;
using reagent::agent::Finish;
using reagent::agent::kFinalAnswerTool;
using reagent::agent::LoopAction;
using reagent::agent::LoopConfig;
using reagent::agent::ReactLoop;
using reagent::agent::RunResult;
using reagent::agent::RunTools;
using reagent::agent::TerminatedBy;
using reagent::llm::ModelReply;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::Role;
using reagent::llm::ToolCall;
using reagent::llm::Usage;
using reagent::tools::ToolCallRecord;
using reagent::tools::ToolErrc;
using reagent::tools::ToolError;
using reagent::tools::ToolMode;

namespace {

LoopConfig config(int maxIterations = 5) {
    LoopConfig loop;
    loop.systemPrompt = "be careful";
    loop.options.maxIterations = maxIterations;
    loop.tools.push_back({"search", "Search the web", {{"type", "object"}}});
    loop.options.temperature = 0.2;
    loop.options.maxTokens = 512;
    return loop;
}

ModelReply text(std::string body, Usage usage = {}) {
    ModelReply reply;
    reply.text = std::move(body);
    reply.usage = usage;
    return reply;
}

ModelReply calls(std::vector<ToolCall> toolCalls, std::string body = {}, Usage usage = {}) {
    ModelReply reply;
    reply.text = std::move(body);
    reply.toolCalls = std::move(toolCalls);
    reply.usage = usage;
    return reply;
}

ToolCallRecord ok(std::string id, std::string name, std::string output, ToolMode mode = ToolMode::feedback,
                  nlohmann::json input = nlohmann::json::object()) {
    ToolCallRecord record;
    record.id = std::move(id);
    record.name = std::move(name);
    record.outcome = std::move(output);
    record.mode = mode;
    record.input = std::move(input);
    return record;
}

ToolCallRecord failed(std::string id, std::string name, ToolErrc code, std::string message,
                      ToolMode mode = ToolMode::feedback) {
    ToolCallRecord record;
    record.id = std::move(id);
    record.name = std::move(name);
    record.outcome = reagent::fail(ToolError{code, std::move(message)});
    record.mode = mode;
    return record;
}

template <class T>
T expectAction(LoopAction action) {
    REQUIRE(std::holds_alternative<T>(action));
    return std::get<T>(std::move(action));
}

// Drives a loop through its first model call, which asks for `toolCalls`.
RunTools firstBatch(ReactLoop& loop, std::vector<ToolCall> toolCalls) {
    (void)expectAction<CallModel>(loop.start());
    return expectAction<RunTools>(loop.onModelReply(calls(std::move(toolCalls))));
}

}  // namespace

TEST_CASE("start asks the model with the system prompt, the prompt and the tools", "[agent][loop]") {
    ReactLoop loop(config(), "What is 2+2?");
    const auto call = expectAction<CallModel>(loop.start());
    CHECK(call.iteration == 0);
    REQUIRE(call.request.messages.size() == 2);
    CHECK(call.request.messages[0].role == Role::system);
    CHECK(call.request.messages[0].text == "be careful");
    CHECK(call.request.messages[1].role == Role::user);
    CHECK(call.request.messages[1].text == "What is 2+2?");
    REQUIRE(call.request.tools.size() == 1);
    CHECK(call.request.tools[0].name == "search");
    CHECK(call.request.temperature == 0.2);
    CHECK(call.request.maxTokens == 512);
    CHECK(loop.iterations() == 1);

    SECTION("no system message when the prompt is empty") {
        LoopConfig bare;
        ReactLoop plain(bare, "hi");
        const auto first = expectAction<CallModel>(plain.start());
        REQUIRE(first.request.messages.size() == 1);
        CHECK(first.request.messages[0].role == Role::user);
        CHECK_FALSE(first.request.temperature);
        CHECK(first.request.tools.empty());
    }
}

TEST_CASE("a reply without tool calls finishes with its text", "[agent][loop]") {
    ReactLoop loop(config(), "hi");
    (void)loop.start();
    const RunResult result = expectAction<Finish>(loop.onModelReply(text("hello there", {10, 4}))).result;
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::end_turn);
    CHECK(result.output == "hello there");
    CHECK(result.iterations == 1);
    CHECK(result.usage == Usage{10, 4});
    CHECK_FALSE(result.error());
    REQUIRE(result.messages.size() == 3);
    CHECK(result.messages[2].role == Role::assistant);
    CHECK(result.messages[2].text == "hello there");
    CHECK(loop.done());
}

TEST_CASE("tool calls run, their results feed the next model call", "[agent][loop]") {
    ReactLoop loop(config(), "weather?");
    (void)loop.start();
    const auto run = expectAction<RunTools>(loop.onModelReply(
        calls({{"c1", "search", {{"q", "paris"}}}, {"c2", "lookup", {{"id", 7}}}}, "let me look", {5, 2})));
    CHECK(run.tripIndex == 0);
    REQUIRE(run.calls.size() == 2);
    CHECK(run.calls[0].id == "c1");
    CHECK(run.calls[0].name == "search");
    CHECK(run.calls[0].arguments == nlohmann::json{{"q", "paris"}});
    CHECK(run.calls[1].id == "c2");

    const auto next = expectAction<CallModel>(
        loop.onToolResults({ok("c1", "search", "sunny"),
                            failed("c2", "lookup", ToolErrc::invalid_arguments, "at /id: expected string")}));
    CHECK(next.iteration == 1);
    const auto& messages = next.request.messages;
    REQUIRE(messages.size() == 5);
    CHECK(messages[2].role == Role::assistant);
    CHECK(messages[2].text == "let me look");
    REQUIRE(messages[2].toolCalls.size() == 2);
    CHECK(messages[3].role == Role::tool);
    CHECK(messages[3].toolCallId == "c1");
    CHECK(messages[3].toolName == "search");
    CHECK(messages[3].text == "sunny");
    CHECK_FALSE(messages[3].isError);
    CHECK(messages[4].toolCallId == "c2");
    CHECK(messages[4].text == "invalid_arguments: at /id: expected string");
    CHECK(messages[4].isError);

    // The second turn's calls carry trip index 1.
    const auto second = expectAction<RunTools>(loop.onModelReply(calls({{"c3", "search", {}}}, "", {7, 3})));
    CHECK(second.tripIndex == 1);
    (void)expectAction<CallModel>(loop.onToolResults({ok("c3", "search", "rain")}));
    const RunResult result = expectAction<Finish>(loop.onModelReply(text("sunny, then rain", {9, 4}))).result;
    CHECK(result.success());
    CHECK(result.iterations == 3);
    CHECK(result.usage == Usage{21, 9});
    REQUIRE(result.toolCalls.size() == 3);
    CHECK(result.toolCalls[0].id == "c1");
    CHECK(result.toolCalls[1].id == "c2");
    CHECK(result.toolCalls[2].id == "c3");
    CHECK(result.messages.size() == 8);
}

TEST_CASE("a successful final-answer call finishes with its deliverable", "[agent][loop]") {
    ReactLoop loop(config(), "report");
    (void)firstBatch(loop, {{"f1", kFinalAnswerTool, {}}});
    const nlohmann::json input = {
        {"output", "# Report"}, {"format", "markdown"}, {"summary", "wrote it"}, {"confidence", 0.8}};
    const RunResult result =
        expectAction<Finish>(loop.onToolResults({ok("f1", kFinalAnswerTool, "final answer recorded",
                                                    ToolMode::feedback, input)}))
            .result;
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::final_answer);
    CHECK(result.output == "# Report");
    REQUIRE(result.finalAnswer);
    CHECK(result.finalAnswer->output == "# Report");
    CHECK(result.finalAnswer->format == "markdown");
    CHECK(result.finalAnswer->summary == "wrote it");
    CHECK(result.finalAnswer->confidence == Approx(0.8));
    CHECK(result.toolCalls.size() == 1);

    SECTION("format defaults to text and confidence stays unset") {
        ReactLoop other(config(), "x");
        (void)firstBatch(other, {{"f1", kFinalAnswerTool, {}}});
        const RunResult plain =
            expectAction<Finish>(other.onToolResults({ok("f1", kFinalAnswerTool, "final answer recorded",
                                                         ToolMode::feedback, {{"output", "42"}})}))
                .result;
        REQUIRE(plain.finalAnswer);
        CHECK(plain.finalAnswer->format == "text");
        CHECK_FALSE(plain.finalAnswer->confidence);
        CHECK(plain.output == "42");
    }
}

TEST_CASE("calls after final-answer in the same reply are recorded as not run", "[agent][loop]") {
    LoopConfig withAnswer = config();
    withAnswer.tools.push_back({kFinalAnswerTool, "Deliver the answer", {{"type", "object"}}});
    ReactLoop loop(withAnswer, "x");
    // The calls before final-answer run (the answer may report them); those after it never do.
    const RunTools batch = firstBatch(
        loop, {{"s1", "search", {}}, {"f1", kFinalAnswerTool, {}}, {"s2", "search", {{"q", "late"}}}});
    REQUIRE(batch.calls.size() == 2);
    CHECK(batch.calls[0].id == "s1");
    CHECK(batch.calls[1].id == "f1");

    SECTION("a successful answer ends the run; every call has its record and its tool message") {
        const RunResult result =
            expectAction<Finish>(loop.onToolResults({ok("s1", "search", "found"),
                                                     ok("f1", kFinalAnswerTool, "final answer recorded",
                                                        ToolMode::feedback, {{"output", "42"}})}))
                .result;
        CHECK(result.output == "42");
        REQUIRE(result.toolCalls.size() == 3);
        CHECK(result.toolCalls[2].id == "s2");
        CHECK(result.toolCalls[2].input == nlohmann::json{{"q", "late"}});
        REQUIRE_FALSE(result.toolCalls[2].succeeded());
        CHECK(result.toolCalls[2].outcome.error().code == ToolErrc::not_run);
        CHECK(result.messages.back().toolCallId == "s2");
        CHECK(result.messages.back().isError);
    }
    SECTION("a refused answer goes on, and the model reads why the later call did not run") {
        const auto next = expectAction<CallModel>(loop.onToolResults(
            {ok("s1", "search", "found"),
             failed("f1", kFinalAnswerTool, ToolErrc::invalid_arguments, "at /output: required")}));
        CHECK(next.request.messages.back().toolCallId == "s2");
        CHECK_THAT(next.request.messages.back().text,
                   Catch::StartsWith("not_run: not run: this call came after "
                                     "final-answer"));
    }
}

TEST_CASE("a failed final-answer call is fed back and the loop goes on", "[agent][loop]") {
    ReactLoop loop(config(), "x");
    (void)firstBatch(loop, {{"f1", kFinalAnswerTool, {}}});
    const auto next = expectAction<CallModel>(loop.onToolResults({failed(
        "f1", kFinalAnswerTool, ToolErrc::invalid_arguments, "at /output: required property missing")}));
    CHECK(next.request.messages.back().isError);
    CHECK_THAT(next.request.messages.back().text, Catch::Contains("required property missing"));
}

TEST_CASE("a batch of only silent calls finishes after dispatch", "[agent][loop]") {
    ReactLoop loop(config(), "save my preferences");
    (void)loop.start();
    (void)expectAction<RunTools>(
        loop.onModelReply(calls({{"s1", "update_state", {}}, {"s2", "ping", {}}}, "saving now")));
    const RunResult result =
        expectAction<Finish>(
            loop.onToolResults({ok("s1", "update_state", "{\"ok\":true}", ToolMode::silent),
                                failed("s2", "ping", ToolErrc::failed, "down", ToolMode::silent)}))
            .result;
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::silent_tools);
    CHECK(result.output == "saving now");
    CHECK(result.toolCalls.size() == 2);
    // Providers want a result per call: the silent ones get a placeholder, never their output.
    REQUIRE(result.messages.size() == 5);
    CHECK(result.messages[3].text == "ok (silent tool; result not shown)");
    CHECK(result.messages[4].text == "ok (silent tool; result not shown)");
    CHECK_FALSE(result.messages[4].isError);
}

TEST_CASE("silent and feedback calls together keep the loop going", "[agent][loop]") {
    ReactLoop loop(config(), "x");
    (void)firstBatch(loop, {{"s1", "update_state", {}}, {"c1", "search", {}}});
    const auto next = expectAction<CallModel>(loop.onToolResults(
        {ok("s1", "update_state", "secret", ToolMode::silent), ok("c1", "search", "found")}));
    const auto& messages = next.request.messages;
    REQUIRE(messages.size() == 5);
    CHECK(messages[3].text == "ok (silent tool; result not shown)");
    CHECK(messages[4].text == "found");
}

TEST_CASE("the iteration limit fails the run with the last assistant text", "[agent][loop]") {
    ReactLoop loop(config(2), "x");
    (void)firstBatch(loop, {{"c1", "search", {}}});
    (void)expectAction<CallModel>(loop.onToolResults({ok("c1", "search", "r1")}));
    (void)expectAction<RunTools>(loop.onModelReply(calls({{"c2", "search", {}}}, "still looking")));
    const RunResult result = expectAction<Fail>(loop.onToolResults({ok("c2", "search", "r2")})).result;
    CHECK_FALSE(result.success());
    CHECK(result.terminatedBy == TerminatedBy::max_iterations);
    CHECK(result.iterations == 2);
    CHECK(result.output == "still looking");
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::max_iterations);
    CHECK(result.error()->message ==
          "reached the limit of 2 iterations without a final answer; raise it with withMaxIterations");
    CHECK(result.toolCalls.size() == 2);

    SECTION("a limit below 1 counts as 1") {
        ReactLoop tight(config(0), "x");
        (void)firstBatch(tight, {{"c1", "search", {}}});
        const RunResult once = expectAction<Fail>(tight.onToolResults({ok("c1", "search", "r")})).result;
        CHECK(once.terminatedBy == TerminatedBy::max_iterations);
        CHECK(once.iterations == 1);
    }
    SECTION("a reply without calls on the last iteration still ends the turn") {
        ReactLoop last(config(1), "x");
        (void)last.start();
        CHECK(expectAction<Finish>(last.onModelReply(text("done"))).result.success());
    }
}

TEST_CASE("a provider error fails the run and keeps what was done", "[agent][loop]") {
    ReactLoop loop(config(), "x");
    (void)firstBatch(loop, {{"c1", "search", {}}});
    (void)expectAction<CallModel>(loop.onToolResults({ok("c1", "search", "r1")}));
    const ProviderError error{ProviderErrc::server_error, "overloaded", 529, "overloaded_error", {}};
    const RunResult result = expectAction<Fail>(loop.onModelReply(reagent::fail(error))).result;
    CHECK_FALSE(result.success());
    CHECK(result.terminatedBy == TerminatedBy::provider_error);
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::provider_failed);
    CHECK(result.error()->message == error.describe());
    CHECK(result.iterations == 2);
    CHECK(result.toolCalls.size() == 1);

    SECTION("a provider reporting cancellation ends the run as cancelled") {
        ReactLoop other(config(), "x");
        (void)other.start();
        const RunResult cancelled =
            expectAction<Fail>(
                other.onModelReply(reagent::fail(ProviderError{ProviderErrc::cancelled, "stop", {}, {}, {}})))
                .result;
        CHECK(cancelled.terminatedBy == TerminatedBy::cancelled);
        CHECK(cancelled.error()->code == AgentErrc::cancelled);
    }
}

TEST_CASE("a declaration-only call stops the run for the caller", "[agent][loop]") {
    ReactLoop loop(config(), "x");
    (void)loop.start();
    (void)expectAction<RunTools>(loop.onModelReply(
        calls({{"c1", "search", {}}, {"e1", "open_door", {{"door", "front"}}}}, "opening")));
    ToolCallRecord external = failed("e1", "open_door", ToolErrc::not_executable, "the caller executes it");
    external.input = {{"door", "front"}};
    const RunResult result =
        expectAction<Finish>(loop.onToolResults({ok("c1", "search", "r"), external})).result;
    CHECK_FALSE(result.success());
    CHECK(result.terminatedBy == TerminatedBy::external_tool_calls);
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::external_tool_call);
    CHECK_THAT(result.error()->message, Catch::Contains("open_door"));
    REQUIRE(result.pendingToolCalls.size() == 1);
    CHECK(result.pendingToolCalls[0].id == "e1");
    CHECK(result.pendingToolCalls[0].name == "open_door");
    CHECK(result.pendingToolCalls[0].arguments == nlohmann::json{{"door", "front"}});
    CHECK(result.output == "opening");
    CHECK(result.toolCalls.size() == 2);
    // The executed call's result is in the conversation; the external one is left for the caller.
    REQUIRE(result.messages.size() == 4);
    CHECK(result.messages[3].toolCallId == "c1");
}

TEST_CASE("cancellation ends the run in any state but the last", "[agent][loop][cancel]") {
    SECTION("while waiting for the model") {
        ReactLoop loop(config(), "x");
        (void)loop.start();
        const RunResult result = expectAction<Fail>(loop.onCancelled()).result;
        CHECK(result.terminatedBy == TerminatedBy::cancelled);
        CHECK_FALSE(result.success());
        REQUIRE(result.error());
        CHECK(result.error()->code == AgentErrc::cancelled);
        CHECK_THAT(result.error()->message, Catch::Contains("waiting for the model"));
        CHECK(result.iterations == 1);
    }
    SECTION("while tools run: the records in flight are kept") {
        ReactLoop loop(config(), "x");
        (void)firstBatch(loop, {{"c1", "sleep", {}}});
        const RunResult result =
            expectAction<Fail>(loop.onCancelled({failed("c1", "sleep", ToolErrc::cancelled, "cancelled")}))
                .result;
        CHECK(result.terminatedBy == TerminatedBy::cancelled);
        REQUIRE(result.toolCalls.size() == 1);
        CHECK(result.toolCalls[0].outcome.error().code == ToolErrc::cancelled);
        CHECK(result.messages.back().toolCallId == "c1");
    }
    SECTION("before start") {
        ReactLoop loop(config(), "x");
        const RunResult result = expectAction<Fail>(loop.onCancelled()).result;
        CHECK(result.terminatedBy == TerminatedBy::cancelled);
        CHECK(result.iterations == 0);
    }
}

TEST_CASE("an internal error keeps what was done", "[agent][loop]") {
    ReactLoop loop(config(), "x");
    (void)loop.start();
    const RunResult result = expectAction<Fail>(loop.onInternalError("provider threw: boom")).result;
    CHECK(result.terminatedBy == TerminatedBy::internal_error);
    CHECK(result.error()->code == AgentErrc::internal_error);
    CHECK(result.error()->message == "provider threw: boom");
    CHECK(result.messages.size() == 2);
}

TEST_CASE("calling the loop out of order is a logic error", "[agent][loop]") {
    ReactLoop loop(config(), "x");
    CHECK_THROWS_AS(loop.onModelReply(text("early")), std::logic_error);
    CHECK_THROWS_AS(loop.onToolResults({}), std::logic_error);
    (void)loop.start();
    CHECK_THROWS_AS(loop.start(), std::logic_error);
    CHECK_THROWS_AS(loop.onToolResults({}), std::logic_error);
    (void)expectAction<RunTools>(loop.onModelReply(calls({{"c1", "search", {}}})));
    CHECK_THROWS_AS(loop.onModelReply(text("twice")), std::logic_error);
    CHECK_THROWS_WITH(loop.onToolResults({}), Catch::Contains("got 0 records for a batch of 1"));
    (void)expectAction<CallModel>(loop.onToolResults({ok("c1", "search", "r")}));
    (void)expectAction<Finish>(loop.onModelReply(text("done")));
    CHECK_THROWS_WITH(loop.onModelReply(text("after")), Catch::Contains("after the run ended"));
    CHECK_THROWS_AS(loop.onCancelled(), std::logic_error);
    CHECK_THROWS_AS(loop.onInternalError("x"), std::logic_error);
}

TEST_CASE("a run's outcome is stored once: success and error derive from terminatedBy", "[agent][result]") {
    using reagent::agent::errorCode;
    using reagent::agent::isSuccess;
    for (auto reason : {TerminatedBy::final_answer, TerminatedBy::end_turn, TerminatedBy::silent_tools}) {
        CHECK(isSuccess(reason));
        CHECK_FALSE(errorCode(reason));
    }
    CHECK(errorCode(TerminatedBy::max_iterations) == AgentErrc::max_iterations);
    CHECK(errorCode(TerminatedBy::external_tool_calls) == AgentErrc::external_tool_call);
    CHECK(errorCode(TerminatedBy::provider_error) == AgentErrc::provider_failed);
    CHECK(errorCode(TerminatedBy::cancelled) == AgentErrc::cancelled);
    CHECK(errorCode(TerminatedBy::internal_error) == AgentErrc::internal_error);

    RunResult result;
    CHECK_FALSE(result.success());  // a result no run filled in is not a success
    result.terminatedBy = TerminatedBy::end_turn;
    result.errorMessage = "stale";
    CHECK(result.success());
    CHECK_FALSE(result.error());  // a success has no error, whatever the message says
    result.terminatedBy = TerminatedBy::max_iterations;
    CHECK_FALSE(result.success());
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::max_iterations);
    CHECK(result.error()->message == "stale");
}

TEST_CASE("loops sharing one configuration take what differs from their LoopRun", "[agent][loop]") {
    auto shared = std::make_shared<const LoopConfig>(config(0));

    SECTION("the shared configuration is neither copied into nor changed by a loop") {
        ReactLoop first(shared, {}, {}, reagent::llm::Message::user("a"));
        ReactLoop second(shared, {}, {}, reagent::llm::Message::user("b"));
        CHECK(first.maxIterations() == 1);  // below 1 counts as 1, as with a configuration of its own
        CHECK(shared->options.maxIterations == 0);
        REQUIRE(first.messages().size() == 2);
        CHECK(first.messages()[0].text == "be careful");
        CHECK(second.messages()[0].text == "be careful");
        CHECK(shared->systemPrompt == "be careful");
        CHECK(second.messages()[1].text == "b");
    }
    SECTION("a run's budget replaces the configuration's for that run only") {
        reagent::agent::LoopRun tight;
        tight.budget = reagent::agent::RunBudget{};
        tight.budget->maxToolCalls = 0;
        ReactLoop limited(shared, tight, {}, reagent::llm::Message::user("a"));
        (void)expectAction<CallModel>(limited.start());
        const RunResult stopped =
            expectAction<Fail>(limited.onModelReply(calls({{"c1", "search", {}}}))).result;
        CHECK(stopped.terminatedBy == TerminatedBy::budget_exceeded);

        ReactLoop free(shared, {}, {}, reagent::llm::Message::user("a"));
        (void)firstBatch(free, {{"c1", "search", {}}});
    }
    SECTION("a run's counted prompt anchors its first count") {
        reagent::agent::LoopRun counted;
        counted.countedMessages = 1;
        counted.countedTokens = 1234;
        LoopConfig windowed = config();
        windowed.contextWindow = 100'000;  // the prompt is counted against it
        ReactLoop loop(std::make_shared<const LoopConfig>(std::move(windowed)), counted,
                       {reagent::llm::Message::user("earlier")}, reagent::llm::Message::user("now"));
        (void)expectAction<CallModel>(loop.start());
        CHECK(loop.context().promptTokens > 1234);
    }
    SECTION("a state saved by one loop restores onto the shared configuration") {
        ReactLoop first(shared, {}, {}, reagent::llm::Message::user("a"));
        (void)firstBatch(first, {{"c1", "search", {}}});
        auto restored = ReactLoop::restore(shared, {}, first.save());
        REQUIRE(restored);
        CHECK(restored->messages().size() == first.messages().size());
        CHECK(restored->maxIterations() == 1);
    }
}
