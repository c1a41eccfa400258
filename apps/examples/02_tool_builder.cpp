// 02 — ToolBuilder: define a tool with typed parameters, an enum and a default, and let the agent call it.
//
// The scripted model asks for the tool in turn 1 and answers from its result in turn 2: the two-step
// round trip every tool-using agent makes.

#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// A handler is a coroutine taking the validated arguments (defaults already injected) by value.
// Failures are values (ToolError), which the agent feeds back to the model.
Task<tools::ToolResult> convertTemperature(json args, tools::ToolContext) {
    const double celsius = args.at("celsius").get<double>();
    const std::string unit = args.at("to").get<std::string>();
    const double value = unit == "kelvin" ? celsius + 273.15 : celsius * 9.0 / 5.0 + 32.0;
    std::ostringstream text;  // 212, not 212.000000
    text << std::round(value * 100.0) / 100.0;
    co_return text.str();
}

int main() {
    // 1. Describe the tool for the model: a required number and an enum with a default. The builder
    //    writes the JSON Schema; build() returns the tool or every definition problem found.
    auto unit = tools::ParamOptions{};
    unit.enumValues = {"fahrenheit", "kelvin"};
    unit.defaultValue = "fahrenheit";
    auto converter =
        tools::ToolBuilder::create("convert_temperature")
            .description("Convert a temperature from degrees Celsius to another unit")
            .param("celsius", "number", "Temperature in degrees Celsius", {.required = true})
            .param("to", "string", "Target unit", unit)
            .action([](const json& args) { return "Converting " + args["celsius"].dump() + " °C"; })
            .handler(convertTemperature)
            .build();

    // 2. The model's two turns. Turn 1 leaves out `to`: the schema's default fills it in. Turn 2 is
    //    computed from the request, so it answers with the tool's real output.
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("convert_temperature", json{{"celsius", 100}}));
    provider->then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
        llm::ModelReply reply;
        reply.text = "100 °C is " + request.messages.back().text + " °F.";
        return expected<llm::ModelReply, llm::ProviderError>(reply);
    }));

    // 3. withTool() takes the builder's result as is; a definition error would surface from build().
    auto agent = agent::Agent::create().withProvider(provider).withTool(std::move(converter)).build();
    examples::check(agent.has_value(), "the agent builds");

    const agent::RunResult result = examples::runTask(agent->run("How warm is boiling water in Fahrenheit?"));
    std::cout << "answer: " << result.output << "\n";

    // 4. The call's record shows the validated input (with the default) and the output.
    examples::check(result.success() && result.iterations == 2, "two model turns and success");
    examples::check(result.toolCalls.size() == 1, "one tool call");
    const auto& call = result.toolCalls[0];
    std::cout << "tool input: " << call.input.dump() << "  output: " << call.outcome.value_or("<error>")
              << "\n";
    examples::check(call.input.value("to", "") == "fahrenheit", "the default unit was injected");
    examples::check(call.outcome && *call.outcome == "212", "100 °C is 212 °F");
    examples::check(result.output == "100 °C is 212 °F.", "the answer quotes the tool's result");
    return 0;
}
