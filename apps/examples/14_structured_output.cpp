// 14 — Typed answers: a C++ struct is the schema of a tool's arguments and of the agent's answer.
//
// BOOST_DESCRIBE_STRUCT lists a struct's members once; reagent maps it to JSON Schema (schemaOf<T>),
// decodes JSON into it (decodeAs<T>) and encodes it back (encodeAs). typedHandler<Args> takes the tool's
// schema from Args; withOutput<T>() makes the answer a T, checked against the schema, and runAs<T> returns
// it. An answer that does not match goes back to the model with the violations, a bounded number of times.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// 1. The tool's arguments: a described struct, with a description and a constraint on one member.
struct StationQuery {
    std::string city;
    std::optional<int> hours;  // optional: not required in the schema
    static void annotate(tools::Annotations<StationQuery>& a) {
        a.member(&StationQuery::hours, "How many hours ahead", {{"minimum", 1}, {"maximum", 48}});
    }
};
BOOST_DESCRIBE_STRUCT(StationQuery, (), (city, hours))

// 2. The answer: an enum is a string of its enumerators' names.
enum class Sky { clear, cloudy, rain };
BOOST_DESCRIBE_ENUM(Sky, clear, cloudy, rain)

struct Forecast {
    std::string city;
    double celsius = 0;
    Sky sky = Sky::clear;
};
BOOST_DESCRIBE_STRUCT(Forecast, (), (city, celsius, sky))

Task<tools::ToolResult> readStation(StationQuery query, tools::ToolContext) {
    co_return query.city + ": 21.5 C, cloudy, for the next " + std::to_string(query.hours.value_or(6)) +
        " hours";
}

int main() {
    auto station = tools::ToolBuilder::create("station")
                       .description("Reads a weather station")
                       .typedHandler<StationQuery>(readStation)
                       .build();
    examples::check(station.has_value(), "the typed tool builds");
    std::cout << "tool schema: " << station->definition.inputSchema.dump() << "\n";

    // 3. A scripted model: it calls the tool, then answers with a temperature as text (wrong), then right.
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("station", json{{"city", "Lyon"}, {"hours", 12}}));
    provider->then(llm::ScriptedTurn::text(R"({"city":"Lyon","celsius":"21.5","sky":"cloudy"})"));
    provider->then(llm::ScriptedTurn::text(R"({"city":"Lyon","celsius":21.5,"sky":"cloudy"})"));

    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(*station))
                     .withOutput<Forecast>()
                     .withEventHandler([](const agent::AgentEvent& event) {
                         if (const auto* rejected = std::get_if<agent::OutputRejected>(&event)) {
                             std::cout << "answer rejected (" << rejected->attempt
                                       << "): " << rejected->problems.front() << "\n";
                         }
                     })
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    const auto forecast = examples::runTask(agent->runAs<Forecast>("What is the weather in Lyon?"));
    examples::check(forecast.has_value(), "the answer is a Forecast");
    std::cout << "forecast: " << tools::encodeAs(*forecast).dump() << "\n";
    examples::check(forecast->celsius == 21.5 && forecast->sky == Sky::cloudy, "after one re-ask");
    examples::check(provider->requests().size() == 3, "three model calls: tool, rejected answer, answer");
    return 0;
}
