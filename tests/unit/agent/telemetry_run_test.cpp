// An agent given telemetry traces each run in the GenAI conventions: one `invoke_agent` span, a `chat`
// span per model call and an `execute_tool` span per tool call, nested and in one trace; the model calls,
// tools and sub-agents carry the trace on; content only when asked; nothing at all without telemetry.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::SpanContext;
using reagent::agent::Agent;
using reagent::agent::RunOptions;
using reagent::agent::TerminatedBy;
using reagent::llm::ModelReply;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::ToolCall;
using reagent::llm::Usage;
using reagent::telemetry::AttributeValue;
using reagent::telemetry::InMemorySpanSink;
using reagent::telemetry::SpanData;
using reagent::telemetry::SpanKind;
using reagent::telemetry::StatusCode;
using reagent::telemetry::Telemetry;
using reagent::test::runCoro;

namespace {

struct Traced {
    std::shared_ptr<InMemorySpanSink> sink = std::make_shared<InMemorySpanSink>();
    std::shared_ptr<Telemetry> telemetry;

    explicit Traced(reagent::telemetry::InstrumentationOptions options = {},
                    reagent::telemetry::SamplerConfig sampler = {}) {
        telemetry = std::make_shared<Telemetry>(sampler, sink, options, reagent::telemetry::IdGenerator(7));
    }
};

const AttributeValue* attribute(const SpanData& span, const std::string& key) {
    for (const auto& attribute : span.attributes) {
        if (attribute.key == key) {
            return &attribute.value;
        }
    }
    return nullptr;
}

std::string text(const SpanData& span, const std::string& key) {
    const auto* value = attribute(span, key);
    return value != nullptr && std::holds_alternative<std::string>(*value) ? std::get<std::string>(*value)
                                                                           : std::string("<none>");
}

std::int64_t number(const SpanData& span, const std::string& key) {
    const auto* value = attribute(span, key);
    return value != nullptr && std::holds_alternative<std::int64_t>(*value) ? std::get<std::int64_t>(*value)
                                                                            : -1;
}

std::vector<SpanData> named(const std::vector<SpanData>& spans, const std::string& prefix) {
    std::vector<SpanData> out;
    std::copy_if(spans.begin(), spans.end(), std::back_inserter(out),
                 [&](const SpanData& span) { return span.name.rfind(prefix, 0) == 0; });
    return out;
}

// Every string in every attribute and event of `spans`, for what must not appear.
std::string everyText(const std::vector<SpanData>& spans) {
    std::string all;
    for (const SpanData& span : spans) {
        all += span.name + '\n' + span.statusMessage + '\n';
        for (const auto& attribute : span.attributes) {
            if (const auto* s = std::get_if<std::string>(&attribute.value)) {
                all += *s + '\n';
            }
        }
        for (const auto& event : span.events) {
            for (const auto& attribute : event.attributes) {
                if (const auto* s = std::get_if<std::string>(&attribute.value)) {
                    all += *s + '\n';
                }
            }
        }
    }
    return all;
}

// Records the trace each call ran in.
struct SeenTraces {
    std::vector<SpanContext> contexts;
    int untraced = 0;
};

reagent::tools::Tool lookupTool(std::shared_ptr<SeenTraces> seen) {
    return reagent::tools::ToolBuilder::create("lookup")
        .description("Looks a word up")
        .param("word", "string", "The word", {.required = true})
        .handler([seen](json args,
                        reagent::tools::ToolContext context) -> reagent::Task<reagent::tools::ToolResult> {
            if (context.trace != nullptr) {
                seen->contexts.push_back(*context.trace);
            } else {
                ++seen->untraced;
            }
            if (args["word"] == "broken") {
                co_return reagent::fail(reagent::tools::ToolError{
                    reagent::tools::ToolErrc::failed, "the dictionary of private-word is missing"});
            }
            co_return "meaning of " + args["word"].get<std::string>();
        })
        .build()
        .value();
}

ScriptedTurn threeLookups(const std::string& last = "c") {
    ModelReply reply;
    reply.toolCalls = {ToolCall{"call-1", "lookup", json{{"word", "a"}}},
                       ToolCall{"call-2", "lookup", json{{"word", "b"}}},
                       ToolCall{"call-3", "lookup", json{{"word", last}}}};
    reply.usage = Usage{100, 20, 60, 10, 5};
    reply.model = "model-v1";
    reply.id = "resp-1";
    return ScriptedTurn::reply(std::move(reply));
}

ScriptedTurn answer(const std::string& text) {
    ModelReply reply;
    reply.text = text;
    reply.usage = Usage{150, 30, 0, 0, 0};
    reply.model = "model-v1";
    reply.id = "resp-2";
    return ScriptedTurn::reply(std::move(reply));
}

Agent tracedAgent(const Traced& traced, std::shared_ptr<ScriptedProvider> provider,
                  std::shared_ptr<SeenTraces> seen, std::string systemPrompt = "Be brief.") {
    auto agent = Agent::create()
                     .withName("researcher")
                     .withProvider(std::move(provider))
                     .withSystemPrompt(std::move(systemPrompt))
                     .withTools({lookupTool(std::move(seen))})
                     .withTelemetry(traced.telemetry)
                     .build();
    REQUIRE(agent);
    return std::move(*agent);
}

}  // namespace

TEST_CASE("a traced run is one invoke_agent span over a chat span per model call and a span per tool call",
          "[agent][telemetry]") {
    Traced traced;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(threeLookups()).then(answer("done"));
    auto seen = std::make_shared<SeenTraces>();
    const Agent agent = tracedAgent(traced, provider, seen);

    const auto result = runCoro(agent.run("define three words"));
    REQUIRE(result.terminatedBy == TerminatedBy::end_turn);

    const auto spans = traced.sink->spans();
    REQUIRE(spans.size() == 6);
    const auto runs = named(spans, "invoke_agent");
    const auto chats = named(spans, "chat");
    const auto tools = named(spans, "execute_tool ");
    REQUIRE(runs.size() == 1);
    REQUIRE(chats.size() == 2);
    REQUIRE(tools.size() == 3);

    const SpanData& run = runs[0];
    CHECK(run.name == "invoke_agent researcher");
    CHECK(run.kind == SpanKind::internal);
    CHECK_FALSE(run.parentSpanId.valid());
    CHECK(text(run, "gen_ai.operation.name") == "invoke_agent");
    CHECK(text(run, "gen_ai.agent.name") == "researcher");
    CHECK(text(run, "gen_ai.system") == "scripted");  // v1.36.0, the default
    CHECK(attribute(run, "gen_ai.provider.name") == nullptr);
    CHECK(number(run, "gen_ai.usage.input_tokens") == 250);
    CHECK(number(run, "gen_ai.usage.output_tokens") == 50);
    CHECK(run.status == StatusCode::unset);

    for (const SpanData& span : spans) {
        CHECK(span.context.traceId == run.context.traceId);
        CHECK(span.startTimeUnixNano <= span.endTimeUnixNano);
        if (span.name != run.name) {
            CHECK(span.parentSpanId == run.context.spanId);
            CHECK(span.startTimeUnixNano >= run.startTimeUnixNano);
            CHECK(span.endTimeUnixNano <= run.endTimeUnixNano);
        }
    }

    const SpanData& first = chats[0];
    CHECK(first.name == "chat");  // the scripted provider names no model
    CHECK(first.kind == SpanKind::client);
    CHECK(text(first, "gen_ai.operation.name") == "chat");
    CHECK(text(first, "gen_ai.response.model") == "model-v1");
    CHECK(text(first, "gen_ai.response.id") == "resp-1");
    CHECK(text(first, "gen_ai.output.type") == "text");
    CHECK(number(first, "gen_ai.usage.input_tokens") == 100);
    CHECK(number(first, "gen_ai.usage.output_tokens") == 20);
    CHECK(attribute(first, "gen_ai.usage.cache_read.input_tokens") == nullptr);  // not in v1.36.0
    CHECK(std::get<std::vector<std::string>>(*attribute(first, "gen_ai.response.finish_reasons")) ==
          std::vector<std::string>{"tool_use"});
    CHECK(first.endTimeUnixNano <= chats[1].startTimeUnixNano);

    // Each request carried its own span on.
    REQUIRE(provider->requests().size() == 2);
    CHECK(provider->requests()[0].trace == first.context);
    CHECK(provider->requests()[1].trace == chats[1].context);

    // Each call ran in its own span, between the two model calls.
    std::vector<std::string> ids;
    for (const SpanData& tool : tools) {
        CHECK(tool.name == "execute_tool lookup");
        CHECK(text(tool, "gen_ai.operation.name") == "execute_tool");
        CHECK(text(tool, "gen_ai.tool.name") == "lookup");
        CHECK(text(tool, "gen_ai.tool.type") == "function");
        ids.push_back(text(tool, "gen_ai.tool.call.id"));
        CHECK(tool.startTimeUnixNano >= first.endTimeUnixNano);
        CHECK(tool.endTimeUnixNano <= chats[1].startTimeUnixNano);
        CHECK(std::find(seen->contexts.begin(), seen->contexts.end(), tool.context) != seen->contexts.end());
    }
    std::sort(ids.begin(), ids.end());
    CHECK(ids == std::vector<std::string>{"call-1", "call-2", "call-3"});
    CHECK(seen->untraced == 0);
}

TEST_CASE("with the latest conventions a span names its provider and the cache and reasoning counts",
          "[agent][telemetry]") {
    Traced traced({reagent::telemetry::GenAiConventions::latest, false});
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(threeLookups()).then(answer("done"));
    const Agent agent = tracedAgent(traced, provider, std::make_shared<SeenTraces>());
    REQUIRE(runCoro(agent.run("define")).success());

    const auto chats = named(traced.sink->spans(), "chat");
    REQUIRE(chats.size() == 2);
    CHECK(text(chats[0], "gen_ai.provider.name") == "scripted");
    CHECK(attribute(chats[0], "gen_ai.system") == nullptr);
    CHECK(number(chats[0], "gen_ai.usage.cache_read.input_tokens") == 60);
    CHECK(number(chats[0], "gen_ai.usage.cache_creation.input_tokens") == 10);
    CHECK(number(chats[0], "gen_ai.usage.reasoning.output_tokens") == 5);
    CHECK(attribute(chats[1], "gen_ai.usage.cache_read.input_tokens") == nullptr);  // none spent
}

TEST_CASE("content reaches the spans only when it is asked for", "[agent][telemetry]") {
    auto run = [](bool content) {
        Traced traced({reagent::telemetry::GenAiConventions::latest, content});
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(threeLookups("broken")).then(answer("the private-answer"));
        const Agent agent =
            tracedAgent(traced, provider, std::make_shared<SeenTraces>(), "private-instructions");
        REQUIRE(runCoro(agent.run("the private-prompt")).success());
        return traced.sink->spans();
    };

    const std::string without = everyText(run(false));
    for (const char* secret :
         {"private-prompt", "private-answer", "private-instructions", "private-word", "meaning of"}) {
        CHECK(without.find(secret) == std::string::npos);
    }

    const auto spans = run(true);
    const auto chats = named(spans, "chat");
    REQUIRE(chats.size() == 2);
    const json input = json::parse(text(chats[0], "gen_ai.input.messages"));
    CHECK(input ==
          json::parse(R"([{"role":"user","parts":[{"type":"text","content":"the private-prompt"}]}])"));
    CHECK(json::parse(text(chats[0], "gen_ai.system_instructions"))[0]["content"] == "private-instructions");
    const json output = json::parse(text(chats[1], "gen_ai.output.messages"));
    CHECK(output[0]["parts"][0]["content"] == "the private-answer");
    const json second = json::parse(text(chats[1], "gen_ai.input.messages"));
    CHECK(second.size() == 5);  // the prompt, the calls, three results
    CHECK(second[1]["parts"][0]["type"] == "tool_call");
    const auto tools = named(spans, "execute_tool");
    bool sawResult = false;
    for (const SpanData& tool : tools) {
        CHECK(attribute(tool, "gen_ai.tool.call.arguments") != nullptr);
        sawResult = sawResult || text(tool, "gen_ai.tool.call.result") == "meaning of a";
    }
    CHECK(sawResult);
    CHECK(everyText(spans).find("the dictionary of private-word is missing") != std::string::npos);
}

TEST_CASE("a failed tool call and a failed model call mark their spans and the run's", "[agent][telemetry]") {
    Traced traced;
    auto provider = std::make_shared<ScriptedProvider>();
    ProviderError error;
    error.code = ProviderErrc::rate_limited;
    error.message = "slow down";
    provider->then(threeLookups("broken")).then(ScriptedTurn::error(error));
    const Agent agent = tracedAgent(traced, provider, std::make_shared<SeenTraces>());
    const auto result = runCoro(agent.run("define"));
    REQUIRE(result.terminatedBy == TerminatedBy::provider_error);

    const auto spans = traced.sink->spans();
    const auto tools = named(spans, "execute_tool");
    REQUIRE(tools.size() == 3);
    const auto failed = std::count_if(tools.begin(), tools.end(), [](const SpanData& span) {
        return span.status == StatusCode::error && text(span, "error.type") == "failed" &&
               span.statusMessage == "failed";  // the tool's own words are content
    });
    CHECK(failed == 1);

    const auto chats = named(spans, "chat");
    REQUIRE(chats.size() == 2);
    CHECK(chats[1].status == StatusCode::error);
    CHECK(text(chats[1], "error.type") == "rate_limited");
    CHECK(chats[1].statusMessage.find("slow down") != std::string::npos);

    const auto runs = named(spans, "invoke_agent");
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].status == StatusCode::error);
    CHECK(text(runs[0], "error.type") == "provider_error");
}

TEST_CASE("a sub-agent's run nests under the tool call that started it", "[agent][telemetry]") {
    Traced traced;
    auto childProvider = std::make_shared<ScriptedProvider>();
    childProvider->then(answer("child says hi"));
    auto child = Agent::create()
                     .withName("helper")
                     .withProvider(childProvider)
                     .withTelemetry(traced.telemetry)
                     .build();
    REQUIRE(child);

    auto parentProvider = std::make_shared<ScriptedProvider>();
    parentProvider->then(ScriptedTurn::toolCall("helper", json{{"message", "say hi"}}, "call-h"))
        .then(answer("done"));
    auto parent = Agent::create()
                      .withName("lead")
                      .withProvider(parentProvider)
                      .withAgentTool("helper", *child)
                      .withTelemetry(traced.telemetry)
                      .build();
    REQUIRE(parent);
    REQUIRE(runCoro(parent->run("delegate")).success());

    const auto spans = traced.sink->spans();
    const auto runs = named(spans, "invoke_agent");
    REQUIRE(runs.size() == 2);
    const auto lead = std::find_if(runs.begin(), runs.end(),
                                   [](const SpanData& s) { return s.name == "invoke_agent lead"; });
    const auto helper = std::find_if(runs.begin(), runs.end(),
                                     [](const SpanData& s) { return s.name == "invoke_agent helper"; });
    REQUIRE(lead != runs.end());
    REQUIRE(helper != runs.end());
    const auto calls = named(spans, "execute_tool helper");
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].parentSpanId == lead->context.spanId);
    CHECK(helper->parentSpanId == calls[0].context.spanId);
    CHECK(helper->context.traceId == lead->context.traceId);
    const auto childChats = std::count_if(spans.begin(), spans.end(), [&](const SpanData& s) {
        return s.name == "chat" && s.parentSpanId == helper->context.spanId;
    });
    CHECK(childChats == 1);
}

TEST_CASE("a run continues the trace it is given, and an unsampled one passes the decision on",
          "[agent][telemetry]") {
    SECTION("a remote parent") {
        Traced traced;
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(answer("hi"));
        const Agent agent = tracedAgent(traced, provider, std::make_shared<SeenTraces>());
        const auto remote = reagent::telemetry::parseTraceparent(
                                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=x")
                                .value();
        RunOptions options;
        options.traceParent = remote;
        options.conversationId = "conv-9";
        REQUIRE(runCoro(agent.run("hi", std::move(options))).success());
        const auto runs = named(traced.sink->spans(), "invoke_agent");
        REQUIRE(runs.size() == 1);
        CHECK(runs[0].context.traceId == remote.traceId);
        CHECK(runs[0].parentSpanId == remote.spanId);
        CHECK(runs[0].context.traceState == "vendor=x");
        CHECK(text(runs[0], "gen_ai.conversation.id") == "conv-9");
        CHECK(provider->requests().at(0).trace.traceId == remote.traceId);
        CHECK(provider->requests().at(0).trace.traceState == "vendor=x");
    }
    SECTION("sampled out") {
        Traced traced({}, {reagent::telemetry::SamplerKind::always_off, 1.0});
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(threeLookups()).then(answer("done"));
        auto seen = std::make_shared<SeenTraces>();
        const Agent agent = tracedAgent(traced, provider, seen);
        REQUIRE(runCoro(agent.run("define")).success());
        CHECK(traced.sink->spans().empty());
        const SpanContext& sent = provider->requests().at(0).trace;
        CHECK(sent.valid());
        CHECK_FALSE(sent.sampled());
        REQUIRE(seen->contexts.size() == 3);
        CHECK(seen->contexts[0].traceId == sent.traceId);
    }
    SECTION("no telemetry: nothing is traced or passed on") {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(threeLookups()).then(answer("done"));
        auto seen = std::make_shared<SeenTraces>();
        auto agent = Agent::create().withProvider(provider).withTools({lookupTool(seen)}).build();
        REQUIRE(agent);
        REQUIRE(runCoro(agent->run("define")).success());
        CHECK_FALSE(provider->requests().at(0).trace.valid());
        CHECK(seen->untraced == 3);
    }
}

TEST_CASE("a run that runs out of time during a model call ends that call's span cancelled",
          "[agent][telemetry]") {
    Traced traced;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(answer("late").delay(std::chrono::milliseconds(5000)));
    reagent::agent::RunBudget budget;
    budget.maxDuration = std::chrono::milliseconds(50);
    auto agent =
        Agent::create().withProvider(provider).withBudget(budget).withTelemetry(traced.telemetry).build();
    REQUIRE(agent);
    const auto result = runCoro(agent->run("hi"));
    REQUIRE(result.terminatedBy == TerminatedBy::budget_exceeded);
    const auto spans = traced.sink->spans();
    const auto chats = named(spans, "chat");
    REQUIRE(chats.size() == 1);
    CHECK(chats[0].status == StatusCode::error);
    CHECK(text(chats[0], "error.type") ==
          "cancelled");  // as the provider reports the call it was told to stop
    const auto runs = named(spans, "invoke_agent");
    REQUIRE(runs.size() == 1);
    CHECK(text(runs[0], "error.type") == "budget_exceeded");
    CHECK(chats[0].endTimeUnixNano <= runs[0].endTimeUnixNano);
}

namespace {

using reagent::telemetry::Attribute;
using reagent::telemetry::HistogramPoint;
using reagent::telemetry::MetricData;

const MetricData* metricNamed(const std::vector<MetricData>& metrics, const std::string& name) {
    const auto it = std::find_if(metrics.begin(), metrics.end(),
                                 [&](const MetricData& metric) { return metric.name == name; });
    return it == metrics.end() ? nullptr : &*it;
}

// The point whose attributes include every one of `wanted`; null when none, or more than one, does.
const HistogramPoint* pointWith(const MetricData& metric, const std::vector<Attribute>& wanted) {
    const HistogramPoint* found = nullptr;
    for (const HistogramPoint& point : metric.points) {
        const bool all = std::all_of(wanted.begin(), wanted.end(), [&](const Attribute& attribute) {
            return std::find(point.attributes.begin(), point.attributes.end(), attribute) !=
                   point.attributes.end();
        });
        if (all) {
            if (found != nullptr) {
                return nullptr;
            }
            found = &point;
        }
    }
    return found;
}

}  // namespace

TEST_CASE("a run records its token usage and the durations of its model calls, tool calls and itself",
          "[agent][telemetry][metrics]") {
    Traced traced;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(threeLookups("broken")).then(answer("done"));
    const Agent agent = tracedAgent(traced, provider, std::make_shared<SeenTraces>());
    REQUIRE(runCoro(agent.run("define three words")).terminatedBy == TerminatedBy::end_turn);

    const auto metrics = traced.telemetry->collectMetrics();
    const MetricData* tokens = metricNamed(metrics, "gen_ai.client.token.usage");
    REQUIRE(tokens != nullptr);
    CHECK(tokens->unit == "{token}");
    const std::vector<Attribute> chat = {{"gen_ai.operation.name", std::string("chat")},
                                         {"gen_ai.system", std::string("scripted")},
                                         {"gen_ai.response.model", std::string("model-v1")}};
    auto with = [](std::vector<Attribute> base, Attribute more) {
        base.push_back(std::move(more));
        return base;
    };
    const HistogramPoint* input = pointWith(*tokens, with(chat, {"gen_ai.token.type", std::string("input")}));
    const HistogramPoint* output =
        pointWith(*tokens, with(chat, {"gen_ai.token.type", std::string("output")}));
    REQUIRE(input != nullptr);
    REQUIRE(output != nullptr);
    CHECK(input->count == 2);
    CHECK(input->sum == 250);
    CHECK(input->min == 100);
    CHECK(input->max == 150);
    // The advised buckets: 100 and 150 both fall in (64, 256].
    REQUIRE(input->bucketCounts.size() == input->explicitBounds.size() + 1);
    CHECK(input->explicitBounds.front() == 1);
    CHECK(input->bucketCounts[4] == 2);
    CHECK(output->sum == 50);

    const MetricData* durations = metricNamed(metrics, "gen_ai.client.operation.duration");
    REQUIRE(durations != nullptr);
    CHECK(durations->unit == "s");
    const HistogramPoint* chats = pointWith(*durations, chat);
    REQUIRE(chats != nullptr);
    CHECK(chats->count == 2);
    const HistogramPoint* fine =
        pointWith(*durations, {{"gen_ai.operation.name", std::string("execute_tool")},
                               {"gen_ai.tool.name", std::string("lookup")}});
    // The failed call is a point of its own, with its error.
    CHECK(fine == nullptr);
    const HistogramPoint* failed = pointWith(
        *durations,
        {{"gen_ai.operation.name", std::string("execute_tool")}, {"error.type", std::string("failed")}});
    REQUIRE(failed != nullptr);
    CHECK(failed->count == 1);
    std::uint64_t toolCalls = 0;
    for (const HistogramPoint& point : durations->points) {
        if (std::find(point.attributes.begin(), point.attributes.end(),
                      Attribute{"gen_ai.operation.name", std::string("execute_tool")}) !=
            point.attributes.end()) {
            toolCalls += point.count;
        }
    }
    CHECK(toolCalls == 3);
    const HistogramPoint* run =
        pointWith(*durations, {{"gen_ai.operation.name", std::string("invoke_agent")}});
    REQUIRE(run != nullptr);
    CHECK(run->count == 1);
    CHECK(run->sum >= chats->sum);
}

TEST_CASE("metrics are recorded for unsampled runs, and a failed model call counts with its error",
          "[agent][telemetry][metrics]") {
    Traced traced({}, reagent::telemetry::SamplerConfig{reagent::telemetry::SamplerKind::always_off, 0.0});
    auto provider = std::make_shared<ScriptedProvider>();
    ProviderError error;
    error.code = ProviderErrc::rate_limited;
    error.message = "slow down";
    provider->then(ScriptedTurn::error(error));
    const Agent agent = tracedAgent(traced, provider, std::make_shared<SeenTraces>());
    REQUIRE(runCoro(agent.run("define")).terminatedBy == TerminatedBy::provider_error);
    CHECK(traced.sink->spans().empty());

    const auto metrics = traced.telemetry->collectMetrics();
    const MetricData* durations = metricNamed(metrics, "gen_ai.client.operation.duration");
    REQUIRE(durations != nullptr);
    const HistogramPoint* chat = pointWith(*durations, {{"gen_ai.operation.name", std::string("chat")},
                                                        {"error.type", std::string("rate_limited")}});
    REQUIRE(chat != nullptr);
    CHECK(chat->count == 1);
    const HistogramPoint* run = pointWith(*durations, {{"gen_ai.operation.name", std::string("invoke_agent")},
                                                       {"error.type", std::string("provider_error")}});
    REQUIRE(run != nullptr);
    CHECK(metricNamed(metrics, "gen_ai.client.token.usage") == nullptr);  // no reply, no tokens

    Traced off({.metrics = false});
    auto quiet = std::make_shared<ScriptedProvider>();
    quiet->then(answer("done"));
    const Agent plain = tracedAgent(off, quiet, std::make_shared<SeenTraces>());
    REQUIRE(runCoro(plain.run("hi")).terminatedBy == TerminatedBy::end_turn);
    CHECK(off.telemetry->instruments() == nullptr);
    CHECK(off.telemetry->collectMetrics().empty());
}

namespace {

std::vector<std::string> eventNames(const SpanData& span) {
    std::vector<std::string> names;
    for (const auto& event : span.events) {
        names.push_back(event.name);
    }
    return names;
}

}  // namespace

TEST_CASE("approvals are events of the tool call's span: asked, then granted or denied when the run resumes",
          "[agent][telemetry][approval]") {
    Traced traced;
    auto provider = std::make_shared<ScriptedProvider>();
    provider
        ->then(ScriptedTurn::toolCalls({ToolCall{"a", "deploy", json{{"service", "web"}}},
                                        ToolCall{"b", "deploy", json{{"service", "db"}}}}))
        .then(answer("done"));
    auto deploy =
        reagent::tools::ToolBuilder::create("deploy")
            .description("Deploy a service")
            .param("service", "string", "the service", {})
            .requiresApproval()
            .handler([](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                co_return std::string("deployed");
            })
            .build();
    REQUIRE(deploy);
    auto built = Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(*deploy))
                     .withDeferredApproval()
                     .withTelemetry(traced.telemetry)
                     .build();
    REQUIRE(built);
    const Agent agent = std::move(*built);
    const auto paused = runCoro(agent.run("deploy"));
    REQUIRE(paused.terminatedBy == TerminatedBy::approval_required);
    auto spans = traced.sink->take();
    const auto asked = named(spans, "execute_tool deploy");
    REQUIRE(asked.size() == 2);
    for (const SpanData& span : asked) {
        CHECK(eventNames(span) == std::vector<std::string>{"reagent.approval.requested"});
        CHECK(span.status == StatusCode::unset);  // waiting for a person is not a failure
        CHECK(text(span, "reagent.tool.outcome") == "approval_pending");
    }
    CHECK(named(spans, "invoke_agent")[0].status == StatusCode::unset);

    reagent::agent::ResumeInput input;
    input.decisions = {reagent::agent::ApprovalDecision{"a", true, {}},
                       reagent::agent::ApprovalDecision{"b", false, "frozen"}};
    const SpanContext pausedRun = named(spans, "invoke_agent")[0].context;
    input.traceParent = pausedRun;
    auto resumed = runCoro(agent.resumeWith(paused.state, std::move(input)));
    REQUIRE(resumed);
    REQUIRE(resumed->terminatedBy == TerminatedBy::end_turn);
    spans = traced.sink->take();
    // The approved call ran, its span showing the grant; the refused one never runs: the run shows it.
    const auto decided = named(spans, "execute_tool deploy");
    REQUIRE(decided.size() == 1);
    CHECK(eventNames(decided[0]) == std::vector<std::string>{"reagent.approval.granted"});
    const auto resumedRun = named(spans, "invoke_agent");
    REQUIRE(resumedRun.size() == 1);
    REQUIRE(resumedRun[0].events.size() == 1);
    CHECK(resumedRun[0].events[0].name == "reagent.approval.denied");
    CHECK(resumedRun[0].events[0].attributes ==
          std::vector<reagent::telemetry::Attribute>{
              {"gen_ai.tool.call.id", std::string("b")}});  // no reason: content
    CHECK(resumedRun[0].parentSpanId == pausedRun.spanId);
}

TEST_CASE("a conversation's turns carry its id, which it keeps when saved and restored",
          "[agent][telemetry][conversation]") {
    Traced traced;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(answer("one")).then(answer("two"));
    const Agent agent = tracedAgent(traced, provider, std::make_shared<SeenTraces>());
    reagent::agent::Conversation conversation(agent);
    CHECK(conversation.id().size() == 32);
    CHECK(reagent::agent::Conversation(agent).id() != conversation.id());
    REQUIRE(runCoro(conversation.send("first")));
    auto restored = reagent::agent::Conversation::restore(agent, conversation.save());
    REQUIRE(restored);
    CHECK(restored->id() == conversation.id());
    REQUIRE(runCoro(restored->send("second")));
    const auto spans = traced.sink->spans();
    REQUIRE(named(spans, "invoke_agent").size() == 2);
    for (const SpanData& span : spans) {
        CHECK(text(span, "gen_ai.conversation.id") ==
              (span.name.rfind("execute_tool", 0) == 0 ? "<none>" : conversation.id()));
    }
    CHECK(reagent::agent::Conversation(agent, "support-ticket-7").id() == "support-ticket-7");
}

TEST_CASE("a traced workflow is an invoke_workflow span over its steps' runs, nested in its caller's",
          "[agent][telemetry][workflow]") {
    using reagent::agent::Workflow;
    Traced traced;
    auto step = [&traced](const std::string& name, ScriptedTurn turn) {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(std::move(turn));
        auto agent =
            Agent::create().withName(name).withProvider(provider).withTelemetry(traced.telemetry).build();
        REQUIRE(agent);
        return Workflow::Step::fromAgent(name, std::move(*agent));
    };
    auto workflow =
        Workflow::sequential("pipeline", {step("drafter", answer("draft")), step("editor", answer("final"))});
    REQUIRE(workflow);
    const Workflow traced_workflow = workflow->withTelemetry(traced.telemetry);

    const auto caller =
        reagent::telemetry::parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .value();
    const auto output = runCoro(traced_workflow.run("write", nullptr, caller));
    REQUIRE(output);
    CHECK(*output == "final");
    auto spans = traced.sink->take();
    const auto flows = named(spans, "invoke_workflow");
    REQUIRE(flows.size() == 1);
    const SpanData& flow = flows[0];
    CHECK(flow.name == "invoke_workflow pipeline");
    CHECK(text(flow, "gen_ai.operation.name") == "invoke_workflow");
    CHECK(text(flow, "gen_ai.workflow.name") == "pipeline");
    CHECK(text(flow, "reagent.workflow.kind") == "sequential");
    CHECK(flow.parentSpanId == caller.spanId);
    CHECK(flow.context.traceId == caller.traceId);
    const auto runs = named(spans, "invoke_agent");
    REQUIRE(runs.size() == 2);
    for (const SpanData& run : runs) {
        CHECK(run.parentSpanId == flow.context.spanId);
    }

    // A failing step fails the workflow's span with the error's code; without telemetry the workflow has no
    // span, and its agents' runs nest in the caller's directly.
    ProviderError error;
    error.code = ProviderErrc::server_error;
    error.message = "down";
    auto failing = Workflow::sequential("broken", {step("drafter", ScriptedTurn::error(error))});
    REQUIRE(failing);
    REQUIRE_FALSE(runCoro(failing->withTelemetry(traced.telemetry).run("x")));
    spans = traced.sink->take();
    const auto broken = named(spans, "invoke_workflow");
    REQUIRE(broken.size() == 1);
    CHECK(broken[0].status == StatusCode::error);
    CHECK(text(broken[0], "error.type") == "failed");
    auto plain = Workflow::sequential("plain", {step("drafter", answer("draft"))});
    REQUIRE(plain);
    REQUIRE(runCoro(plain->run("x", nullptr, caller)));
    spans = traced.sink->take();
    REQUIRE(spans.size() == 2);  // the run and its model call
    CHECK(named(spans, "invoke_agent")[0].parentSpanId == caller.spanId);
}
