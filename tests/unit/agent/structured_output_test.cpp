// Structured output through the public API: an output schema, the bounded re-ask, runAs<T>, and a
// ScriptedProvider playing a model that answers well, badly, or never well.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::AgentEvent;
using reagent::agent::OutputRejected;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::Role;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

namespace structured_test {

// A model that streams its scripted answer to the subscriber in pieces of `piece` bytes, as an HTTP
// provider does, and records what it was asked.
class StreamingModel final : public reagent::llm::Provider {
  public:
    StreamingModel(std::string answer, std::size_t piece) : answer_(std::move(answer)), piece_(piece) {}
    std::string_view name() const noexcept override { return "streaming"; }
    reagent::Task<reagent::expected<reagent::llm::ModelReply, reagent::llm::ProviderError>> complete(
        reagent::llm::ModelRequest request) override {
        requests.push_back(request);
        if (request.onDelta) {
            for (std::size_t at = 0; at < answer_.size(); at += piece_) {
                reagent::llm::StreamDelta delta;
                delta.kind = reagent::llm::StreamDelta::Kind::text;
                delta.text = answer_.substr(at, piece_);
                request.onDelta(delta);
            }
        }
        reagent::llm::ModelReply reply;
        reply.text = answer_;
        co_return reply;
    }
    std::vector<reagent::llm::ModelRequest> requests;

  private:
    std::string answer_;
    std::size_t piece_;
};

// With reasoning: a model that first streams a call of another tool, then `final-answer` with `arguments`
// (its JSON text), in pieces of `piece` bytes, as an HTTP provider does.
class StreamingFinalAnswer final : public reagent::llm::Provider {
  public:
    StreamingFinalAnswer(std::string arguments, std::size_t piece)
        : arguments_(std::move(arguments)), piece_(piece) {}
    std::string_view name() const noexcept override { return "streaming-final-answer"; }
    reagent::Task<reagent::expected<reagent::llm::ModelReply, reagent::llm::ProviderError>> complete(
        reagent::llm::ModelRequest request) override {
        using Kind = reagent::llm::StreamDelta::Kind;
        auto send = [&](Kind kind, std::size_t index, std::string name, std::string text) {
            reagent::llm::StreamDelta delta;
            delta.kind = kind;
            delta.toolIndex = index;
            delta.toolCallId = "call_" + std::to_string(index);
            delta.toolName = std::move(name);
            delta.text = std::move(text);
            request.onDelta(delta);
        };
        if (request.onDelta) {
            send(Kind::tool_call_start, 0, "note-taker", "");
            send(Kind::tool_call_arguments, 0, "", R"({"output": "{\"city\": \"Nowhere\"}"})");
            send(Kind::tool_call_start, 1, "final-answer", "");
            for (std::size_t at = 0; at < arguments_.size(); at += piece_) {
                send(Kind::tool_call_arguments, 1, "", arguments_.substr(at, piece_));
            }
        }
        reagent::llm::ModelReply reply;
        reply.toolCalls.push_back({"call_1", "final-answer", json::parse(arguments_)});
        co_return reply;
    }

  private:
    std::string arguments_;
    std::size_t piece_;
};

enum class Sky { clear, cloudy, rain };
BOOST_DESCRIBE_ENUM(Sky, clear, cloudy, rain)

struct Forecast {
    std::string city;
    double celsius = 0;
    Sky sky = Sky::clear;
    std::optional<std::string> note;
    static void annotate(reagent::tools::Annotations<Forecast>& a) {
        a.describe("A weather forecast").member(&Forecast::celsius, "Degrees Celsius", {{"minimum", -90}});
    }
};
BOOST_DESCRIBE_STRUCT(Forecast, (), (city, celsius, sky, note))

const char* const kGood = R"({"city":"Lyon","celsius":21.5,"sky":"cloudy"})";

reagent::agent::AgentBuilder forecaster(std::shared_ptr<ScriptedProvider> provider) {
    auto builder = Agent::create();
    builder.withProvider(std::move(provider)).withOutput<Forecast>();
    return builder;
}

}  // namespace structured_test

using namespace structured_test;

TEST_CASE("structured output: a valid answer is the run's structured output", "[agent][output]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text(std::string("```json\n") + kGood + "\n```"));
    auto agent = forecaster(provider).build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("Weather in Lyon?"));
    REQUIRE(result.success());
    CHECK(result.structuredOutput == json::parse(kGood));
    CHECK(result.outputRetries == 0);
    CHECK(result.iterations == 1);
    // The schema is in the system prompt, and every request carries it for providers that constrain the
    // reply (one shared OutputFormat, named after the struct's title when it has one).
    const auto& request = provider->requests().at(0);
    REQUIRE(request.messages.at(0).role == Role::system);
    CHECK(request.messages.at(0).text.find("\"celsius\"") != std::string::npos);
    REQUIRE(request.output);
    CHECK(request.output->schema == reagent::tools::schemaOf<Forecast>().value());
}

TEST_CASE("structured output: an invalid answer goes back once with the violations", "[agent][output]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text(R"({"city":"Lyon","celsius":"warm","sky":"cloudy"})").usage({10, 5}))
        .then(ScriptedTurn::text(kGood).expectLastMessageContains("/celsius").usage({20, 5}));
    std::vector<OutputRejected> rejected;
    auto builder = forecaster(provider);
    builder.withEventHandler([&](const AgentEvent& event) {
        if (const auto* r = std::get_if<OutputRejected>(&event)) {
            rejected.push_back(*r);
        }
    });
    auto agent = builder.build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("Weather in Lyon?"));
    REQUIRE(result.success());
    CHECK(result.outputRetries == 1);
    CHECK(result.iterations == 2);
    CHECK(result.usage == reagent::llm::Usage{30, 10});
    CHECK(result.structuredOutput["celsius"] == 21.5);
    REQUIRE(rejected.size() == 1);
    CHECK(rejected[0].attempt == 1);
    CHECK(rejected[0].iteration == 1);
    REQUIRE_FALSE(rejected[0].problems.empty());
    CHECK(rejected[0].problems[0].find("at /celsius") == 0);
    // The re-ask is a user message after the rejected answer.
    const auto& second = provider->requests().at(1).messages;
    CHECK(second.back().role == Role::user);
    CHECK(second.back().text.find("does not match the required JSON Schema") != std::string::npos);
}

TEST_CASE("structured output: an answer that never matches fails at the bound", "[agent][output]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("It will be sunny.")).loop(true);
    auto builder = forecaster(provider);
    SECTION("the default bound: two re-asks, three calls") {
        auto agent = builder.build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("Weather?"));
        CHECK(result.terminatedBy == TerminatedBy::output_invalid);
        CHECK(result.error()->code == AgentErrc::output_invalid);
        CHECK(result.errorMessage.find("after 2 re-ask(s): the answer is not JSON") != std::string::npos);
        CHECK(result.iterations == 3);
        CHECK(result.outputRetries == 2);
        CHECK(provider->requests().size() == 3);
        CHECK(result.output == "It will be sunny.");
        CHECK(result.structuredOutput.is_null());
    }
    SECTION("no re-ask") {
        auto agent = builder.withMaxOutputRetries(0).build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("Weather?"));
        CHECK(result.terminatedBy == TerminatedBy::output_invalid);
        CHECK(result.iterations == 1);
    }
    SECTION("the iteration limit comes first") {
        auto agent = builder.withMaxIterations(2).withMaxOutputRetries(5).build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("Weather?"));
        CHECK(result.terminatedBy == TerminatedBy::output_invalid);
        CHECK(result.iterations == 2);
        CHECK(result.errorMessage.find("iteration limit (2)") != std::string::npos);
    }
}

TEST_CASE("structured output: runAs returns the type, tools keep working", "[agent][output]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("station", json{{"city", "Lyon"}}))
        .then(ScriptedTurn::toolCall("final-answer", json{{"output", kGood}})
                  .expectLastMessageContains("21.5"));
    reagent::tools::ParamOptions required;  // spelled out: g++ -Wextra flags {.required = true}
    required.required = true;
    auto station =
        reagent::tools::ToolBuilder::create("station")
            .description("Reads a station")
            .param("city", "string", "City", required)
            .handler([](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                co_return std::string("21.5 C, cloudy");
            })
            .build();
    auto agent = forecaster(provider).withTool(std::move(station)).withReasoning().build();
    REQUIRE(agent);
    const auto forecast = runCoro(agent->runAs<Forecast>("Weather in Lyon?"));
    REQUIRE(forecast);
    CHECK(forecast->city == "Lyon");
    CHECK(forecast->celsius == 21.5);
    CHECK(forecast->sky == Sky::cloudy);
    CHECK_FALSE(forecast->note);
    // With reasoning, the guide speaks of final-answer's output.
    CHECK(provider->requests().at(0).messages.at(0).text.find("The `output` of your final answer") !=
          std::string::npos);
}

TEST_CASE("structured output: runAs reports a failed run, a missing schema and a foreign schema",
          "[agent][output]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("not json")).loop(true);
    auto failing = forecaster(provider).withMaxOutputRetries(0).build();
    REQUIRE(failing);
    const auto failed = runCoro(failing->runAs<Forecast>("Weather?"));
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code == AgentErrc::output_invalid);

    auto plain = std::make_shared<ScriptedProvider>();
    plain->then(ScriptedTurn::text(kGood));
    auto noSchema = Agent::create().withProvider(plain).build();
    REQUIRE(noSchema);
    const auto missing = runCoro(noSchema->runAs<Forecast>("Weather?"));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == AgentErrc::invalid_config);

    auto loose = std::make_shared<ScriptedProvider>();
    loose->then(ScriptedTurn::text(R"({"city":"Lyon"})"));
    auto foreign = Agent::create().withProvider(loose).withOutputSchema(json{{"type", "object"}}).build();
    REQUIRE(foreign);
    const auto undecodable = runCoro(foreign->runAs<Forecast>("Weather?"));
    REQUIRE_FALSE(undecodable);
    CHECK(undecodable.error().code == AgentErrc::output_invalid);
    CHECK(undecodable.error().message.find("the required member 'celsius' is missing") != std::string::npos);
}

TEST_CASE("structured output: a bad schema or bound is a build error", "[agent][output]") {
    auto provider = std::make_shared<ScriptedProvider>();
    const auto badSchema = Agent::create()
                               .withProvider(provider)
                               .withOutputSchema(json{{"type", "object"}, {"minProperties", "x"}})
                               .build();
    REQUIRE_FALSE(badSchema);
    CHECK(badSchema.error().code == AgentErrc::invalid_config);
    CHECK(badSchema.error().message.find("output schema: ") != std::string::npos);
    const auto loop = Agent::create().withProvider(provider).withOutputSchema(json{{"$ref", "#"}}).build();
    REQUIRE_FALSE(loop);  // a $ref loop would never end
    const auto negative =
        Agent::create().withProvider(provider).withOutput<Forecast>().withMaxOutputRetries(-1).build();
    REQUIRE_FALSE(negative);
    CHECK(negative.error().message.find("maxOutputRetries must not be negative") != std::string::npos);
}

TEST_CASE("structured output: a saved run keeps its re-asks and its answer", "[agent][output]") {
    reagent::agent::LoopConfig config;
    config.output = *reagent::tools::SchemaValidator::compile(*reagent::tools::schemaOf<Forecast>());
    reagent::agent::ReactLoop loop(config, "Weather?");
    auto action = loop.start();
    REQUIRE(std::holds_alternative<reagent::agent::CallModel>(action));
    reagent::llm::ModelReply bad;
    bad.text = R"({"city":"Lyon"})";
    action = loop.onModelReply(bad);
    REQUIRE(std::holds_alternative<reagent::agent::CallModel>(action));
    CHECK(std::get<reagent::agent::CallModel>(action).rejectedOutput.at(0).find("celsius") !=
          std::string::npos);
    auto restored = reagent::agent::ReactLoop::restore(config, loop.save());
    REQUIRE(restored);
    CHECK(restored->outputRetries() == 1);
    reagent::llm::ModelReply good;
    good.text = kGood;
    action = restored->onModelReply(good);
    REQUIRE(std::holds_alternative<reagent::agent::Finish>(action));
    const RunResult& result = std::get<reagent::agent::Finish>(action).result;
    CHECK(result.outputRetries == 1);
    CHECK(result.structuredOutput["sky"] == "cloudy");
    const auto again = reagent::agent::ReactLoop::restore(config, restored->save());
    REQUIRE(again);
}

TEST_CASE("structured output: the answer's value grows in PartialOutput events as it streams",
          "[agent][output]") {
    using reagent::agent::PartialOutput;
    using reagent::agent::TextDelta;
    const std::string answer =
        std::string("```json\n") +
        R"({"city": "Saint-\u00c9tienne", "celsius": -3.25, "sky": "rain", "note": "wind \"gusts\""})" +
        "\n```";
    const std::size_t piece = GENERATE(1, 2, 7, 1000);
    CAPTURE(piece);
    auto model = std::make_shared<StreamingModel>(answer, piece);
    std::vector<json> partials;
    std::string streamed;
    auto agent = Agent::create()
                     .withProvider(model)
                     .withOutput<Forecast>()
                     .withEventHandler([&](const AgentEvent& event) {
                         if (const auto* partial = std::get_if<PartialOutput>(&event)) {
                             CHECK(partial->iteration == 0);
                             partials.push_back(partial->value);
                         } else if (const auto* text = std::get_if<TextDelta>(&event)) {
                             streamed += text->text;
                         }
                     })
                     .build();
    REQUIRE(agent);
    const auto forecast = runCoro(agent->runAs<Forecast>("Weather in Saint-Etienne?"));
    REQUIRE(forecast);
    CHECK(forecast->city == "Saint-\u00c9tienne");
    CHECK(streamed == answer);

    REQUIRE_FALSE(partials.empty());
    // Each value is an object, each different from the one before, and the last is the whole answer.
    for (std::size_t i = 0; i < partials.size(); ++i) {
        CAPTURE(i, partials[i].dump());
        CHECK(partials[i].is_object());
        if (i > 0) {
            CHECK(partials[i] != partials[i - 1]);
        }
        // Never a key without its value, never a number cut short of what it became.
        if (partials[i].contains("celsius")) {
            const double celsius = partials[i]["celsius"].get<double>();
            CHECK((celsius == -3.25 || celsius == -3 || celsius == -3.2));
        }
        if (partials[i].contains("city")) {
            const std::string city = partials[i]["city"].get<std::string>();
            CHECK(std::string("Saint-\u00c9tienne").rfind(city, 0) == 0);  // a prefix, whole characters
        }
    }
    CHECK(partials.back() == json::parse(answer.substr(8, answer.size() - 12)));
    if (piece == 1) {
        // Streamed byte by byte, the city is seen growing.
        CHECK(std::any_of(partials.begin(), partials.end(),
                          [](const json& value) { return value.contains("city") && value["city"] == "Sa"; }));
    }
}

TEST_CASE("structured output: a streamed answer that stops being JSON keeps its last value",
          "[agent][output]") {
    using reagent::agent::PartialOutput;
    auto model = std::make_shared<StreamingModel>(R"({"city": "Lyon", "celsius": 2 oops, "sky": "rain"})", 3);
    std::vector<json> partials;
    auto agent = Agent::create()
                     .withProvider(model)
                     .withOutput<Forecast>()
                     .withMaxOutputRetries(0)
                     .withEventHandler([&](const AgentEvent& event) {
                         if (const auto* partial = std::get_if<PartialOutput>(&event)) {
                             partials.push_back(partial->value);
                         }
                     })
                     .build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("Weather?"));
    CHECK(result.terminatedBy == TerminatedBy::output_invalid);
    REQUIRE_FALSE(partials.empty());
    CHECK(partials.back() == json{{"city", "Lyon"}, {"celsius", 2}});
}

TEST_CASE("structured output: no PartialOutput without an output schema", "[agent][output]") {
    using reagent::agent::PartialOutput;
    auto model = std::make_shared<StreamingModel>(kGood, 4);
    int partials = 0;
    auto agent = Agent::create()
                     .withProvider(model)
                     .withEventHandler([&](const AgentEvent& event) {
                         partials += std::holds_alternative<PartialOutput>(event) ? 1 : 0;
                     })
                     .build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("Weather?"));
    CHECK(result.success());
    CHECK(partials == 0);
    CHECK_FALSE(model->requests.at(0).output);
}

TEST_CASE("structured output: with reasoning, the final-answer call's output grows in PartialOutput events",
          "[agent][output]") {
    using reagent::agent::PartialOutput;
    const json value = {
        {"city", "Saint-\u00c9tienne"}, {"celsius", -3.25}, {"sky", "rain"}, {"note", "\"gusts\""}};
    // `output` is a string holding the JSON, as the tool's schema asks.
    const std::size_t piece = GENERATE(1, 5, 1000);
    CAPTURE(piece);
    const json arguments = {{"output", value.dump()}, {"summary", "Looked it up."}};
    auto model = std::make_shared<StreamingFinalAnswer>(arguments.dump(), piece);
    std::vector<json> partials;
    auto agent = Agent::create()
                     .withProvider(model)
                     .withReasoning()
                     .withOutput<Forecast>()
                     .withEventHandler([&](const AgentEvent& event) {
                         if (const auto* partial = std::get_if<PartialOutput>(&event)) {
                             partials.push_back(partial->value);
                         }
                     })
                     .build();
    REQUIRE(agent);
    const auto forecast = runCoro(agent->runAs<Forecast>("Weather in Saint-Etienne?"));
    REQUIRE(forecast);
    CHECK(forecast->city == "Saint-\u00c9tienne");
    REQUIRE_FALSE(partials.empty());
    for (std::size_t i = 0; i < partials.size(); ++i) {
        CAPTURE(i, partials[i].dump());
        CHECK(partials[i].is_object());
        CHECK_FALSE(partials[i].contains("output"));        // the answer, not the tool's arguments
        CHECK(partials[i].value("city", "") != "Nowhere");  // not the other tool's arguments
        if (i > 0) {
            CHECK(partials[i] != partials[i - 1]);
        }
        if (partials[i].contains("city")) {
            CHECK(std::string("Saint-\u00c9tienne").rfind(partials[i]["city"].get<std::string>(), 0) == 0);
        }
    }
    CHECK(partials.back() == value);
    if (piece == 1) {
        // Streamed byte by byte, the city is seen growing (the throttle skips some of its lengths).
        CHECK(std::any_of(partials.begin(), partials.end(), [](const json& v) {
            return v.contains("city") && v["city"] != "Saint-\u00c9tienne";
        }));
    }
}
