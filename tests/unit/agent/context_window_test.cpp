// The context window: the published windows by model id, the prompt counted from the API's own count of
// the last request plus an estimate of what was added, and a request that would not fit never sent.

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <tuple>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::Usage;
using reagent::test::runCoro;

namespace {

// A tool answering 400 characters.
reagent::tools::Tool wordyTool() {
    return reagent::tools::ToolBuilder::create("wordy")
        .description("Answers at length")
        .handler([](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
            co_return std::string(400, 'w');
        })
        .build()
        .value();
}

// A model turn asking for `tool`, the API having counted `input` prompt tokens.
ScriptedTurn askingFor(const std::string& tool, std::int64_t input) {
    ModelReply reply;
    reply.toolCalls.push_back({"call_1", tool, json::object()});
    reply.usage = Usage{input, 10, 0, 0, 0};
    return ScriptedTurn::reply(std::move(reply));
}

Agent agentOf(reagent::agent::AgentBuilder builder) {
    auto agent = builder.build();
    REQUIRE(agent);
    return std::move(*agent);
}

}  // namespace

TEST_CASE("the published windows are found by the ids the APIs use", "[agent][context]") {
    using reagent::llm::publishedContextWindow;
    CHECK(publishedContextWindow("claude-sonnet-4-5") == 200'000);
    CHECK(publishedContextWindow("claude-sonnet-4-5-20250929") == 200'000);
    CHECK(publishedContextWindow("gpt-4.1-2025-04-14") == 1'047'576);
    CHECK(publishedContextWindow("models/gemini-2.5-pro") == 1'048'576);
    CHECK(publishedContextWindow("gpt-4o") == 128'000);
    CHECK_FALSE(publishedContextWindow("llama3.1:8b"));  // Ollama's window is the server's num_ctx
    CHECK_FALSE(publishedContextWindow("gpt-4o-mini-tts"));
    CHECK_FALSE(publishedContextWindow(""));
}

TEST_CASE("a window too small for the system prompt fails with context_overflow without calling the API",
          "[agent][context]") {
    auto model = std::make_shared<ScriptedProvider>();
    model->then(ScriptedTurn::text("never"));
    auto agent = build(
        Agent::create().withProvider(model).withSystemPrompt(std::string(4000, 's')).withContextWindow(100));
    const RunResult result = runCoro(agent.run("hi"));
    CHECK(result.terminatedBy == TerminatedBy::context_overflow);
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::context_overflow);
    CHECK_THAT(result.errorMessage, Catch::StartsWith("context: the next request takes about "));
    CHECK_THAT(result.errorMessage,
               Catch::Contains("past the context window of 100 tokens; it was not sent"));
    CHECK(model->requests().empty());
    CHECK(result.context.window == 100);
    CHECK(result.context.promptTokens > 1000);
    CHECK(result.iterations == 0);

    SECTION("the reply's reserve counts too") {
        auto roomy = agentOf(Agent::create().withProvider(model).withContextWindow(2000).withMaxTokens(4096));
        const RunResult reserved = runCoro(roomy.run("hi"));
        CHECK(reserved.terminatedBy == TerminatedBy::context_overflow);
        CHECK_THAT(reserved.errorMessage,
                   Catch::Contains("and its reply up to 4096, past the context window of 2000"));
    }
    SECTION("a window below 1 is refused when the agent is built") {
        const auto refused = Agent::create().withProvider(model).withContextWindow(0).build();
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message,
                   Catch::Contains("the context window must be at least 1 token (got 0)"));
    }
}

TEST_CASE("the next request is counted from the API's count of the last one, plus what was added",
          "[agent][context]") {
    auto model = std::make_shared<ScriptedProvider>();
    SECTION("the API counted 5,990 of a 6,000 window: the tool's 400 characters do not fit") {
        model->then(askingFor("wordy", 5990)).then(ScriptedTurn::text("never"));
        auto agent =
            agentOf(Agent::create().withProvider(model).withTool(wordyTool()).withContextWindow(6000));
        const RunResult result = runCoro(agent.run("go"));
        CHECK(result.terminatedBy == TerminatedBy::context_overflow);
        CHECK(model->requests().size() == 1);
        // 5,990 counted, then the reply's call and the 400-character result at 4 characters a token.
        CHECK(result.context.promptTokens >= 6090);
        CHECK(result.context.promptTokens < 6110);
        REQUIRE(result.toolCalls.size() == 1);  // the call ran; its result is in the history
    }
    SECTION("the same exchange fits a window the estimate would not pass") {
        model->then(askingFor("wordy", 150)).then(ScriptedTurn::text("done").usage(Usage{260, 5, 0, 0, 0}));
        auto agent =
            agentOf(Agent::create().withProvider(model).withTool(wordyTool()).withContextWindow(6000));
        const RunResult result = runCoro(agent.run("go"));
        REQUIRE(result.success());
        CHECK(result.context.promptTokens == 260);  // the API's count of the last request
        CHECK(result.context.window == 6000);
    }
    SECTION("a paused run's saved state keeps the count") {
        auto lookup =
            reagent::tools::ToolBuilder::create("lookup").description("Looks up").declarationOnly().build();
        REQUIRE(lookup);
        model->then(askingFor("lookup", 5990)).then(ScriptedTurn::text("never"));
        auto agent =
            agentOf(Agent::create().withProvider(model).withTool(std::move(*lookup)).withContextWindow(6000));
        const RunResult paused = runCoro(agent.run("go"));
        REQUIRE(paused.terminatedBy == TerminatedBy::external_tool_calls);
        const auto resumed = runCoro(agent.resume(paused.state, {{"call_1", std::string(400, 'r')}}));
        REQUIRE(resumed);
        CHECK(resumed->terminatedBy == TerminatedBy::context_overflow);
        CHECK(model->requests().size() == 1);
    }
}

TEST_CASE("context-status reports the window and the last request's size", "[agent][context]") {
    auto model = std::make_shared<ScriptedProvider>();
    model->then(askingFor("context-status", 321)).then(ScriptedTurn::text("done"));
    auto agent = agentOf(Agent::create().withProvider(model).withReasoning().withContextWindow(50'000));
    const RunResult result = runCoro(agent.run("how full?"));
    REQUIRE(result.success());
    REQUIRE(result.toolCalls.size() == 1);
    REQUIRE(result.toolCalls[0].outcome.has_value());
    const json status = json::parse(*result.toolCalls[0].outcome);
    CHECK(status["context"]["window"] == 50'000);
    CHECK(status["context"]["promptTokens"] == 321);
}

namespace {

// A provider that names its model and refuses every call: the run's context then holds the estimate of
// the first request, before any API count anchored it.
class EstimatedOnly final : public reagent::llm::Provider {
  public:
    explicit EstimatedOnly(std::string model) : model_(std::move(model)) {}
    std::string_view name() const noexcept override { return "estimated"; }
    std::string_view model() const noexcept override { return model_; }
    reagent::Task<reagent::expected<ModelReply, reagent::llm::ProviderError>> complete(
        reagent::llm::ModelRequest) override {
        reagent::llm::ProviderError error;
        error.code = reagent::llm::ProviderErrc::server_error;
        error.message = "not sent";
        co_return reagent::unexpected(std::move(error));
    }

  private:
    std::string model_;
};

json fixtureJson(const std::string& path) {
    std::ifstream in(std::string(REAGENT_FIXTURES_DIR) + "/providers/" + path);
    REQUIRE(in);
    return json::parse(in);
}

// The two tools every fixture's tool replies call (tests/fixtures/providers/README.md).
std::vector<reagent::tools::Tool> fixtureToolDeclarations() {
    std::vector<reagent::tools::Tool> out;
    for (const auto& [name, description, param, about] :
         {std::tuple{"get_weather", "Current weather of a place", "location", "City and country"},
          std::tuple{"get_time", "Current time in a time zone", "timezone", "IANA time zone"}}) {
        out.push_back(
            reagent::tools::ToolBuilder::create(name)
                .description(description)
                .param(param, "string", about, {.required = true})
                .handler([](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                    co_return std::string("ok");
                })
                .build()
                .value());
    }
    return out;
}

}  // namespace

TEST_CASE("the estimate before the first count, against the counts the fixtures' APIs report",
          "[agent][context][estimate]") {
    struct Case {
        const char* provider;
        const char* model;
        const char* usage;  // the reported prompt count's path in the reply
    };
    const auto [provider, model, usage] =
        GENERATE(Case{"anthropic", "claude-sonnet-4-5", "/usage/input_tokens"},
                 Case{"openai", "gpt-4.1", "/usage/prompt_tokens"},
                 Case{"gemini", "gemini-2.5-flash", "/usageMetadata/promptTokenCount"},
                 Case{"ollama", "qwen3", "/prompt_eval_count"});
    const bool tools = GENERATE(false, true);
    INFO(provider << (tools ? " with the two tools" : " text"));
    const std::int64_t reported =
        fixtureJson(std::string(provider) + (tools ? "/tool_call.json" : "/text.json"))
            .at(json::json_pointer(usage))
            .get<std::int64_t>();
    auto builder =
        Agent::create().withProvider(std::make_shared<EstimatedOnly>(model)).withContextWindow(1'000'000);
    if (tools) {
        reagent::agent::ToolsConfig settings;
        settings.recall = false;  // the fixtures' requests offered the two tools alone
        builder.withTools(settings).withTools(fixtureToolDeclarations());
    }
    auto agent = agentOf(std::move(builder));
    const RunResult result = runCoro(
        agent.run(tools ? "What is the weather in Paris, France?" : "What is the capital of France?"));
    const double ratio = static_cast<double>(result.context.promptTokens) / static_cast<double>(reported);
    INFO("estimated " << result.context.promptTokens << ", reported " << reported << ", ratio " << ratio);
    // What docs/conversations.md reports: with tools within -55 %..+40 %; a bare question is a few tokens off
    // (the APIs' framing of messages and chat templates, which the estimate leaves out).
    if (tools) {
        CHECK(ratio > 0.45);
        CHECK(ratio < 1.4);
    } else {
        CHECK(std::abs(result.context.promptTokens - reported) <= 20);
    }
}

TEST_CASE("a conversation's next turn is counted from the API's count of the last one",
          "[agent][context][conversation]") {
    auto model = std::make_shared<ScriptedProvider>();
    reagent::llm::ProviderError down;
    down.code = reagent::llm::ProviderErrc::server_error;
    down.message = "down";
    model->then(ScriptedTurn::text("first answer").usage(Usage{5000, 5, 0, 0, 0}))
        .then(ScriptedTurn::error(down));
    auto agent =
        agentOf(Agent::create().withProvider(model).withSystemPrompt("Be brief.").withContextWindow(100'000));
    reagent::agent::Conversation conversation(agent);
    const auto first = runCoro(conversation.send("first question"));
    REQUIRE(first);
    REQUIRE(first->success());
    CHECK(first->context.countedMessages == 2);  // the system prompt and the question
    CHECK(first->context.countedTokens == 5000);
    CHECK(conversation.context().countedTokens == 5000);

    SECTION("the next turn starts from 5,000 plus the answer and the new question") {
        const auto second = runCoro(conversation.send("second question"));
        REQUIRE(second);
        CHECK(second->terminatedBy == TerminatedBy::provider_error);  // counted before it was sent
        CHECK(second->context.promptTokens >= 5000 + 5);
        CHECK(second->context.promptTokens < 5000 + 20);
    }
    SECTION("a restored conversation counts on from the same count") {
        auto restored = reagent::agent::Conversation::restore(agent, conversation.save());
        REQUIRE(restored);
        CHECK(restored->context().countedTokens == 5000);
        const auto second = runCoro(restored->send("second question"));
        REQUIRE(second);
        CHECK(second->context.promptTokens >= 5000 + 5);
    }
    SECTION("a truncated history is estimated afresh") {
        conversation.reset();
        const auto second = runCoro(conversation.send("second question"));
        REQUIRE(second);
        CHECK(second->context.promptTokens < 100);
    }
}
