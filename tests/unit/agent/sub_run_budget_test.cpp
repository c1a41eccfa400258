// Runs started by a run's tool calls (agents and workflows as tools, a handler's own run) draw on its
// budget and report their spending on its result; wall time ends a run where it stands, and a sub-run by
// its caller's deadline; a conversation's paused turn resumes with what its budget had left.

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::RunBudget;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::agent::Workflow;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::Usage;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

// A provider answering each request with `text`, spending `input` input tokens, `times` times.
std::shared_ptr<ScriptedProvider> answering(std::string text, std::int64_t input, int times,
                                            std::string model = {}) {
    auto provider = std::make_shared<ScriptedProvider>();
    for (int i = 0; i < times; ++i) {
        ModelReply reply;
        reply.text = text;
        reply.model = model;
        reply.usage = Usage{input, 0, 0, 0, 0};
        provider->then(ScriptedTurn::reply(std::move(reply)));
    }
    return provider;
}

// A model turn asking for `tool` with `{message}`, spending `input` tokens.
ScriptedTurn asking(const std::string& tool, std::int64_t input, const std::string& id) {
    ModelReply reply;
    reply.toolCalls.push_back({id, tool, json{{"message", "do it"}}});
    reply.usage = Usage{input, 0, 0, 0, 0};
    return ScriptedTurn::reply(std::move(reply));
}

Agent build(reagent::agent::AgentBuilder builder) {
    auto agent = builder.build();
    REQUIRE(agent);
    return std::move(*agent);
}

// A tool that waits `wait` (cancellable), then answers "waited".
reagent::tools::Tool slowTool(std::chrono::milliseconds wait) {
    return reagent::tools::ToolBuilder::create("slow")
        .description("Takes its time")
        .handler(
            [wait](json, reagent::tools::ToolContext context) -> reagent::Task<reagent::tools::ToolResult> {
                boost::asio::steady_timer timer(context.executor, wait);
                co_await timer.async_wait(boost::asio::use_awaitable);
                co_return std::string("waited");
            })
        .build()
        .value();
}

std::shared_ptr<const reagent::llm::PriceTable> euroPrices() {
    return std::make_shared<const reagent::llm::PriceTable>(
        reagent::llm::PriceTable::fromJson(
            json::parse(R"({"currency": "EUR", "models": {"gpt-4.1": {"input": 2, "output": 8}}})"))
            .value());
}

}  // namespace

TEST_CASE("a sub-agent draws on its caller's budget, and the caller stops when its sub-runs used it up",
          "[agent][budget][sub-run]") {
    auto helper = build(Agent::create().withName("helper").withProvider(answering("helped", 6000, 5)));
    auto parentModel = std::make_shared<ScriptedProvider>();
    parentModel->then(asking("helper", 100, "call_1"))
        .then(asking("helper", 100, "call_2"))
        .then(ScriptedTurn::text("never"));
    RunBudget budget;
    budget.maxTotalTokens = 10000;
    auto parent =
        build(Agent::create().withProvider(parentModel).withAgentTool("helper", helper).withBudget(budget));

    const RunResult result = runCoro(parent.run("go"));
    // 100 (parent) + 6,000 (helper) + 100 (parent): the helper's second reply takes the total to 12,200.
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    CHECK_THAT(result.errorMessage,
               Catch::StartsWith("budget: maxTotalTokens of 10000 would be passed: 12200 tokens used"));
    CHECK(result.usage.total() == 200);
    CHECK(result.subRuns.usage.total() == 12000);
    CHECK(result.subRuns.modelCalls == 2);
    CHECK(parentModel->requests().size() == 2);
    REQUIRE(result.toolCalls.size() == 2);
    CHECK(result.toolCalls[0].outcome.has_value());
    REQUIRE_FALSE(result.toolCalls[1].outcome.has_value());
    CHECK_THAT(
        result.toolCalls[1].outcome.error().message,
        Catch::Contains("budget of the calling run: maxTotalTokens of 10000 passed: 12200 tokens used"));
}

TEST_CASE("a sub-agent's request that would pass its caller's budget is not sent",
          "[agent][budget][sub-run]") {
    auto helperModel = answering("helped", 10, 5);
    auto helper = build(Agent::create().withName("helper").withProvider(helperModel));
    auto parentModel = std::make_shared<ScriptedProvider>();
    parentModel->then(asking("helper", 10, "call_1")).then(ScriptedTurn::text("done"));
    RunBudget budget;
    budget.maxModelCalls = 1;
    auto parent =
        build(Agent::create().withProvider(parentModel).withAgentTool("helper", helper).withBudget(budget));

    const RunResult result = runCoro(parent.run("go"));
    CHECK(helperModel->requests().empty());
    REQUIRE(result.toolCalls.size() == 1);
    REQUIRE_FALSE(result.toolCalls[0].outcome.has_value());
    CHECK_THAT(result.toolCalls[0].outcome.error().message,
               Catch::Contains("budget of the calling run: maxModelCalls of 1 reached: 1 model calls made"));
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(result.subRuns.empty());
}

TEST_CASE("sub-runs are reported without a budget, priced with the caller's table when they have none",
          "[agent][budget][sub-run][prices]") {
    auto helper =
        build(Agent::create().withName("helper").withProvider(answering("helped", 1'000'000, 2, "gpt-4.1")));
    auto parentModel = std::make_shared<ScriptedProvider>();
    parentModel->then(asking("helper", 10, "call_1")).then(ScriptedTurn::text("done"));
    auto parent = build(
        Agent::create().withProvider(parentModel).withAgentTool("helper", helper).withPrices(euroPrices()));

    const RunResult result = runCoro(parent.run("go"));
    REQUIRE(result.success());
    CHECK(result.subRuns.usage.inputTokens == 1'000'000);
    CHECK(result.subRuns.cost == Approx(2.0));
    CHECK(result.subRuns.unpricedCalls == 0);
    CHECK(result.subRuns.modelCalls == 1);
    REQUIRE(result.cost);
    CHECK(result.cost->unpricedCalls == 1);  // the parent's own model is not in the table
}

TEST_CASE(
    "a workflow as a tool draws on its caller's budget: agent steps, nested workflows, the router's "
    "classifier",
    "[agent][budget][sub-run][workflow]") {
    auto a = build(Agent::create().withName("a").withProvider(answering("from a", 10, 1)));
    auto b = build(Agent::create().withName("b").withProvider(answering("from b", 10, 1)));
    auto c = build(Agent::create().withName("c").withProvider(answering("from c", 10, 1)));
    auto classifier = build(Agent::create().withName("pick").withProvider(answering("c", 10, 1)));
    auto inner = Workflow::router("inner", Workflow::Route::byAgent(classifier),
                                  {Workflow::Step::fromAgent("b", b), Workflow::Step::fromAgent("c", c)});
    REQUIRE(inner);
    auto outer = Workflow::sequential(
        "outer", {Workflow::Step::fromAgent("a", a), Workflow::Step::fromWorkflow("", *inner)});
    REQUIRE(outer);

    auto parentModel = std::make_shared<ScriptedProvider>();
    parentModel->then(asking("outer", 10, "call_1")).then(ScriptedTurn::text("never"));
    RunBudget budget;
    budget.maxModelCalls = 4;
    auto parent =
        build(Agent::create().withProvider(parentModel).withTool(outer->asTool()).withBudget(budget));

    const RunResult result = runCoro(parent.run("go"));
    REQUIRE(result.toolCalls.size() == 1);
    REQUIRE(result.toolCalls[0].outcome.has_value());
    CHECK(*result.toolCalls[0].outcome == "from c");
    CHECK(result.subRuns.modelCalls == 3);  // a, the classifier, c
    CHECK(result.subRuns.usage.total() == 30);
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(result.errorMessage == "budget: maxModelCalls of 4 reached: 4 model calls made");
}

TEST_CASE("a handler that runs an agent itself passes its ledger on", "[agent][budget][sub-run]") {
    auto helper = build(Agent::create().withName("helper").withProvider(answering("helped", 50, 1)));
    auto tool = reagent::tools::ToolBuilder::create("consult")
                    .description("Consults the helper")
                    .handler([helper](json, reagent::tools::ToolContext context)
                                 -> reagent::Task<reagent::tools::ToolResult> {
                        reagent::agent::RunOptions options;
                        options.parent = context.ledger;
                        auto run = helper.run("help", std::move(options));
                        const RunResult sub = co_await std::move(run);
                        co_return sub.output;
                    })
                    .build();
    REQUIRE(tool);
    auto parentModel = std::make_shared<ScriptedProvider>();
    parentModel->then(asking("consult", 5, "call_1"))
        .then(ScriptedTurn::text("done").usage(Usage{5, 0, 0, 0, 0}));
    auto parent = build(Agent::create().withProvider(parentModel).withTool(std::move(*tool)));
    const RunResult result = runCoro(parent.run("go"));
    REQUIRE(result.success());
    CHECK(result.usage.total() == 10);
    CHECK(result.subRuns.usage.total() == 50);
    CHECK(result.subRuns.modelCalls == 1);
}

TEST_CASE("maxDuration ends a run where it stands", "[agent][budget][duration]") {
    auto model = std::make_shared<ScriptedProvider>();
    model->then(ScriptedTurn::toolCall("slow", json::object())).then(ScriptedTurn::text("never"));
    RunBudget budget;
    budget.maxDuration = 100ms;
    auto agent = build(Agent::create().withProvider(model).withTool(slowTool(10s)).withBudget(budget));
    const auto started = std::chrono::steady_clock::now();
    const RunResult result = runCoro(agent.run("go"));
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(result.errorMessage == "budget: maxDuration of 100 ms passed");
    REQUIRE(result.toolCalls.size() == 1);
    REQUIRE_FALSE(result.toolCalls[0].outcome.has_value());
    CHECK(result.toolCalls[0].outcome.error().code == reagent::tools::ToolErrc::cancelled);
    CHECK(model->requests().size() == 1);

    SECTION("a run that ends in time is not touched") {
        auto quick = std::make_shared<ScriptedProvider>();
        quick->then(ScriptedTurn::text("fast"));
        auto fast = build(Agent::create().withProvider(quick).withBudget(budget));
        const RunResult done = runCoro(fast.run("go"));
        CHECK(done.success());
        CHECK(done.output == "fast");
    }
    SECTION("a zero duration is refused when the agent is built") {
        RunBudget none;
        none.maxDuration = 0ms;
        const auto refused = Agent::create().withProvider(model).withBudget(none).build();
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message, Catch::Contains("maxDuration must be at least 1 ms (got 0 ms)"));
    }
}

TEST_CASE("a sub-agent ends by its caller's deadline", "[agent][budget][duration][sub-run]") {
    auto helperModel = std::make_shared<ScriptedProvider>();
    helperModel->then(ScriptedTurn::toolCall("slow", json::object())).then(ScriptedTurn::text("never"));
    auto helper = build(Agent::create().withName("helper").withProvider(helperModel).withTool(slowTool(10s)));
    RunResult sub;
    auto tool = reagent::tools::ToolBuilder::create("consult")
                    .description("Consults the helper")
                    .handler([helper, &sub](json, reagent::tools::ToolContext context)
                                 -> reagent::Task<reagent::tools::ToolResult> {
                        reagent::agent::RunOptions options;
                        options.parent = context.ledger;
                        auto run = helper.run("help", std::move(options));
                        sub = co_await std::move(run);
                        co_return sub.output;
                    })
                    .timeout(60s)
                    .build();
    REQUIRE(tool);
    auto parentModel = std::make_shared<ScriptedProvider>();
    parentModel->then(asking("consult", 5, "call_1")).then(ScriptedTurn::text("never"));
    RunBudget budget;
    budget.maxDuration = 150ms;
    auto parent =
        build(Agent::create().withProvider(parentModel).withTool(std::move(*tool)).withBudget(budget));
    const auto started = std::chrono::steady_clock::now();
    const RunResult result = runCoro(parent.run("go"));
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(result.errorMessage == "budget: maxDuration of 150 ms passed");
    // The helper ended by the same deadline: on its own timer, or cancelled by its caller's.
    CHECK((sub.terminatedBy == TerminatedBy::budget_exceeded || sub.terminatedBy == TerminatedBy::cancelled));
    if (sub.terminatedBy == TerminatedBy::budget_exceeded) {
        CHECK_THAT(sub.errorMessage, Catch::StartsWith("budget of a calling run: its maxDuration ran out"));
    }
}

TEST_CASE("a run's sub-runs' spending survives a pause and a resume", "[agent][budget][sub-run]") {
    auto helper = build(Agent::create().withName("helper").withProvider(answering("helped", 70, 1)));
    auto lookup =
        reagent::tools::ToolBuilder::create("lookup").description("Looks up").declarationOnly().build();
    REQUIRE(lookup);
    auto parentModel = std::make_shared<ScriptedProvider>();
    ModelReply both;
    both.toolCalls.push_back({"call_1", "helper", json{{"message", "do it"}}});
    both.toolCalls.push_back({"call_2", "lookup", json::object()});
    both.usage = Usage{10, 0, 0, 0, 0};
    parentModel->then(ScriptedTurn::reply(both)).then(ScriptedTurn::text("never"));
    RunBudget budget;
    budget.maxModelCalls = 2;
    auto parent = build(Agent::create()
                            .withProvider(parentModel)
                            .withAgentTool("helper", helper)
                            .withTool(std::move(*lookup))
                            .withBudget(budget));
    const RunResult paused = runCoro(parent.run("go"));
    REQUIRE(paused.terminatedBy == TerminatedBy::external_tool_calls);
    CHECK(paused.subRuns.usage.total() == 70);

    // The parent's call and the helper's were made before the pause: the resumed run may make no more.
    const auto resumed = runCoro(parent.resume(paused.state, {{"call_2", std::string("42")}}));
    REQUIRE(resumed);
    CHECK(resumed->terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(resumed->errorMessage == "budget: maxModelCalls of 2 reached: 2 model calls made");
    CHECK(resumed->subRuns.usage.total() == 70);
    CHECK(parentModel->requests().size() == 1);
}

TEST_CASE("a conversation's paused turn resumes with what its budget had left, counted once",
          "[agent][budget][conversation]") {
    int runs = 0;
    auto echo =
        reagent::tools::ToolBuilder::create("echo")
            .description("Echoes")
            .handler([&runs](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                ++runs;
                co_return std::string("echoed");
            })
            .build();
    auto lookup =
        reagent::tools::ToolBuilder::create("lookup").description("Looks up").declarationOnly().build();
    REQUIRE(echo);
    REQUIRE(lookup);
    auto model = std::make_shared<ScriptedProvider>();
    model->then(ScriptedTurn::toolCall("lookup", json::object()).usage(Usage{100, 0, 0, 0, 0}))
        .then(ScriptedTurn::toolCall("echo", json::object()).usage(Usage{100, 0, 0, 0, 0}))
        .then(ScriptedTurn::text("never"));
    auto agent =
        build(Agent::create().withProvider(model).withTool(std::move(*echo)).withTool(std::move(*lookup)));
    reagent::agent::Conversation conversation(agent);
    RunBudget budget;
    budget.maxModelCalls = 2;
    conversation.setBudget(budget);

    const auto paused = runCoro(conversation.send("go"));
    REQUIRE(paused);
    REQUIRE(paused->terminatedBy == TerminatedBy::external_tool_calls);
    CHECK(conversation.modelCalls() == 1);
    CHECK(conversation.usage().total() == 100);

    // Saved and restored while paused: the paused turn's spending is not counted twice either.
    auto restored = reagent::agent::Conversation::restore(agent, conversation.save());
    REQUIRE(restored);
    restored->setBudget(budget);
    const std::string callId = paused->pendingToolCalls.at(0).id;
    const auto resumed = runCoro(restored->resume({{callId, std::string("42")}}));
    REQUIRE(resumed);
    CHECK(resumed->terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(resumed->errorMessage == "budget: maxModelCalls of 2 reached: 2 model calls made");
    CHECK(model->requests().size() == 2);
    CHECK(restored->modelCalls() == 2);
    CHECK(restored->usage().total() == 200);
}
