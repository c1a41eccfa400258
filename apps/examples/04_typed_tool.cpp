// 04 — Typed tools: receive a C++ struct instead of raw JSON, or wrap a plain function.
//
// typedHandler<Args> decodes the validated arguments with nlohmann's from_json, so the handler works
// with fields, not lookups. adaptFunction turns a synchronous function into a tool in one call.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// 1. The argument struct; the macro writes to_json/from_json for its fields.
struct Rectangle {
    double width = 0;
    double height = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Rectangle, width, height)

// A typed handler: a coroutine taking the decoded struct by value.
Task<tools::ToolResult> area(Rectangle rectangle, tools::ToolContext) {
    if (rectangle.width < 0 || rectangle.height < 0) {
        co_return fail(tools::ToolError::failure("width and height must not be negative"));
    }
    co_return json(rectangle.width * rectangle.height).dump();
}

int main() {
    // 2. The schema still comes from param(): the model sees the same tool either way; the struct only
    //    changes how the handler receives the arguments.
    auto areaTool = tools::ToolBuilder::create("rectangle_area")
                        .description("Area of a rectangle")
                        .param("width", "number", "Width in metres", {.required = true})
                        .param("height", "number", "Height in metres", {.required = true})
                        .typedHandler<Rectangle>(area)
                        .build();

    // 3. adaptFunction: name, description and parameters, then an ordinary function of the JSON
    //    arguments. Whatever it returns (here a double) is serialised to JSON for the model. It runs on
    //    the agent's thread, so it should be quick; write a Task handler for I/O.
    auto spec = tools::FunctionSpec{"add", "Add two numbers", {}};
    spec.parameters.push_back({.name = "a", .type = "number", .description = "First addend"});
    spec.parameters.push_back({.name = "b", .type = "number", .description = "Second addend"});
    auto addTool = tools::adaptFunction(
        spec, [](const json& args) { return args.at("a").get<double>() + args.at("b").get<double>(); });

    auto provider = std::make_shared<llm::ScriptedProvider>();
    std::vector<llm::ToolCall> calls{{"c1", "rectangle_area", json{{"width", 3}, {"height", 4.5}}},
                                     {"c2", "add", json{{"a", 2}, {"b", 40}}}};
    provider->then(llm::ScriptedTurn::toolCalls(calls));
    provider->then(llm::ScriptedTurn::text("The area is 13.5 m² and 2 + 40 = 42."));

    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(areaTool))
                     .withTool(std::move(addTool))
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    const agent::RunResult result = examples::runTask(agent->run("Area of 3 x 4.5, and 2 + 40?"));
    for (const auto& call : result.toolCalls) {
        std::cout << call.name << "(" << call.input.dump() << ") = " << call.outcome.value_or("<error>")
                  << "\n";
    }
    std::cout << "answer: " << result.output << "\n";

    examples::check(result.success() && result.toolCalls.size() == 2, "two calls, run succeeded");
    examples::check(result.toolCalls[0].outcome.value_or("") == "13.5",
                    "the typed handler computed the area");
    examples::check(result.toolCalls[1].outcome.value_or("") == "42.0", "the adapted function added");
    return 0;
}
