#pragma once
// The scenario of the cross-process resume test, shared by the test (resume_process_test.cpp) and its
// second program (resume_process_main.cpp), so that both build the same agent and read results the same way.
//
// The model asks a person for a city (`ask_human`, declaration-only: the caller answers it), then looks the
// city up (`lookup`, an ordinary tool), then answers from both results. The run stops after the first
// model call; whoever resumes it has made that call already, so its provider holds only the replies after
// it (`remainingTurns`).

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace reagent::test::resume_scenario {

inline constexpr const char* kPrompt = "Pick a city with the user, then tell me what its name means";
/// The id of the declaration-only call, which the caller answers.
inline constexpr const char* kHumanCall = "c1";
/// What the person answers.
inline constexpr const char* kHumanAnswer = "Lyon";

inline Task<tools::ToolResult> lookupCity(nlohmann::json args) {
    co_return "the name " + args.value("word", std::string("?")) + " comes from Lugdunum";
}

// The last tool result of a request: the third reply quotes it, so the answer depends on what the
// resumed run really fed the model.
inline std::string lastToolText(const llm::ModelRequest& request) {
    for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
        if (it->role == llm::Role::tool) {
            return it->text;
        }
    }
    return "(no tool result)";
}

/// The model's first reply: it asks the person. Explicit call ids everywhere: a scripted provider numbers
/// the calls without one per provider (`call_1`, ...), so a fresh provider in the second process would
/// give the lookup the id the first process already used.
inline llm::ScriptedTurn askTurn() {
    return llm::ScriptedTurn::toolCall("ask_human", nlohmann::json{{"question", "Which city?"}}, kHumanCall)
        .usage({11, 3});
}

/// The replies after the pause: look the chosen city up (only if the person's answer reached the model),
/// then answer from the lookup's result.
inline std::vector<llm::ScriptedTurn> remainingTurns() {
    std::vector<llm::ScriptedTurn> turns;
    turns.push_back(llm::ScriptedTurn::toolCall("lookup", nlohmann::json{{"word", kHumanAnswer}}, "c2")
                        .expectLastMessageContains(kHumanAnswer)
                        .usage({17, 5}));
    turns.push_back(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
                        llm::ModelReply reply;
                        reply.text = "You chose Lyon: " + lastToolText(request) + ".";
                        return expected<llm::ModelReply, llm::ProviderError>(std::move(reply));
                    }).usage({23, 7}));
    return turns;
}

/// A provider holding the whole script (the first process) or only the replies after the pause.
inline std::shared_ptr<llm::ScriptedProvider> provider(bool wholeScript) {
    auto made = std::make_shared<llm::ScriptedProvider>();
    if (wholeScript) {
        made->then(askTurn());
    }
    for (auto& turn : remainingTurns()) {
        made->then(std::move(turn));
    }
    return made;
}

/// The agent: `lookup`, and `ask_human` declaration-only, or (`humanRuns`) with a handler answering
/// `kHumanAnswer`, for an uninterrupted run. No built-in tools, so the tool list is the same everywhere.
inline expected<agent::Agent, agent::AgentError> buildAgent(std::shared_ptr<llm::ScriptedProvider> model,
                                                            bool humanRuns = false) {
    auto lookup =
        tools::ToolBuilder::create("lookup")
            .description("Tells where a name comes from")
            .param("word", "string", "the name", {.required = true})
            .handler([](nlohmann::json args, tools::ToolContext) { return lookupCity(std::move(args)); })
            .build();
    auto human = tools::ToolBuilder::create("ask_human")
                     .description("Asks the user a question; returns the answer")
                     .param("question", "string", "the question", {.required = true});
    if (humanRuns) {
        human.handler([](nlohmann::json, tools::ToolContext) -> Task<tools::ToolResult> {
            co_return std::string(kHumanAnswer);
        });
    } else {
        human.declarationOnly();
    }
    agent::ToolsConfig none;
    return agent::Agent::create()
        .withName("resume-scenario")
        .withProvider(std::move(model))
        .withSystemPrompt("Answer briefly.")
        .withTools(none)
        .withTool(std::move(lookup))
        .withTool(human.build())
        .withMaxIterations(5)
        .build();
}

/// What a run produced, as comparable JSON: everything a resumed run must reproduce (not the times).
inline nlohmann::json summary(const agent::RunResult& result) {
    nlohmann::json calls = nlohmann::json::array();
    for (const auto& call : result.toolCalls) {
        nlohmann::json made{
            {"id", call.id}, {"name", call.name}, {"tripIndex", call.tripIndex}, {"input", call.input}};
        if (call.succeeded()) {
            made["outcome"] = *call.outcome;
        } else {
            made["error"] = call.outcome.error().describe();
        }
        calls.push_back(std::move(made));
    }
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& message : result.messages) {
        nlohmann::json requested = nlohmann::json::array();
        for (const auto& call : message.toolCalls) {
            requested.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
        }
        messages.push_back({{"role", std::string(llm::toString(message.role))},
                            {"text", message.text},
                            {"toolCallId", message.toolCallId},
                            {"toolName", message.toolName},
                            {"isError", message.isError},
                            {"toolCalls", std::move(requested)}});
    }
    return nlohmann::json{{"output", result.output},
                          {"terminatedBy", std::string(agent::toString(result.terminatedBy))},
                          {"iterations", result.iterations},
                          {"usage", {result.usage.inputTokens, result.usage.outputTokens}},
                          {"toolCalls", std::move(calls)},
                          {"messageCount", result.messages.size()},
                          {"messages", std::move(messages)},
                          {"pending", result.pendingToolCalls.size()}};
}

}  // namespace reagent::test::resume_scenario
