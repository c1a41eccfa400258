#include "demo_provider.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "calculator.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/core/untrusted_json.hpp"

namespace reagent::cli {

namespace {

using llm::Message;
using llm::ModelReply;
using llm::ModelRequest;
using llm::ProviderError;
using llm::Role;
using nlohmann::json;

constexpr const char* kDefaultExpression = "6*7";

std::string lastUserText(const ModelRequest& request) {
    for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
        if (it->role == Role::user) {
            return it->text;
        }
    }
    return {};
}

// Turn 1: one reply asking for three independent calls, which the executor runs as a parallel batch.
expected<ModelReply, ProviderError> planTools(const ModelRequest& request) {
    const std::string prompt = lastUserText(request);
    ModelReply reply;
    reply.text = "I will calculate, count the words of the prompt and read the clock, all at once.";
    reply.toolCalls.push_back({"", "calculator", json{{"expression", demoExpression(prompt)}}});
    reply.toolCalls.push_back({"", "word_count", json{{"text", prompt}}});
    reply.toolCalls.push_back({"", "current_time", json::object()});
    reply.stopReason = llm::StopReason::tool_use;
    return reply;
}

std::string describeCount(const std::string& text) {
    const json counts = parseUntrustedJson(text).value_or(json());
    if (!counts.is_object()) {
        return "The word count came back as " + text + ".";
    }
    const auto lines = counts.value("lines", 0);
    return "Your prompt has " + std::to_string(counts.value("words", 0)) + " words, " +
           std::to_string(counts.value("characters", 0)) + " characters and " + std::to_string(lines) +
           (lines == 1 ? " line." : " lines.");
}

// Turn 2: the answer is composed from the tool results actually present in the conversation.
expected<ModelReply, ProviderError> answerFromResults(const ModelRequest& request) {
    // The arguments of each call, by id, so the answer can quote the expression that was computed.
    std::map<std::string, json> argumentsById;
    std::vector<const Message*> results;
    // Only this turn's results: in a conversation (`reagent chat`) earlier turns are in the history too.
    std::size_t turnStart = 0;
    for (std::size_t i = 0; i < request.messages.size(); ++i) {
        if (request.messages[i].role == Role::user) {
            turnStart = i;
        }
    }
    for (std::size_t i = turnStart; i < request.messages.size(); ++i) {
        const Message& message = request.messages[i];
        for (const llm::ToolCall& call : message.toolCalls) {
            argumentsById[call.id] = call.arguments;
        }
        if (message.role == Role::tool) {
            results.push_back(&message);
        }
    }

    std::string output;
    for (const Message* result : results) {
        std::string sentence;
        const json& args = argumentsById[result->toolCallId];
        if (result->isError && result->toolName == "calculator") {
            sentence = args.value("expression", std::string("The expression")) +
                       " could not be calculated (" + result->text + ").";
        } else if (result->isError) {
            sentence = "The " + result->toolName + " tool reported an error (" + result->text + ").";
        } else if (result->toolName == "calculator") {
            sentence = args.value("expression", std::string("The expression")) + " = " + result->text + ".";
        } else if (result->toolName == "word_count") {
            sentence = describeCount(result->text);
        } else if (result->toolName == "current_time") {
            sentence = "The current time is " + result->text + ".";
        } else {
            sentence = result->toolName + " returned: " + result->text + ".";
        }
        output += (output.empty() ? "" : " ") + sentence;
    }
    if (output.empty()) {
        output = "No tool results reached the demo provider, so there is nothing to report.";
    }

    ModelReply reply;
    reply.text = "All tool results are in; composing the answer.";
    json answer{{"output", output},
                {"format", "text"},
                {"summary", "Answered from " + std::to_string(results.size()) + " tool results"},
                {"confidence", 1.0}};
    reply.toolCalls.push_back({"", agent::kFinalAnswerTool, std::move(answer)});
    reply.stopReason = llm::StopReason::tool_use;
    return reply;
}

}  // namespace

std::string demoExpression(const std::string& prompt) {
    std::string found = findArithmetic(prompt);
    return found.empty() ? kDefaultExpression : found;
}

std::shared_ptr<llm::ScriptedProvider> makeDemoProvider(std::chrono::milliseconds latency) {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    // Every turn of a conversation plans, then answers: decided by the request (its tool results since the
    // user's last message), not by the order of calls, so that runs sharing the provider (a worker's, a
    // server's) each get both.
    provider->then(llm::ScriptedTurn::respond([](const ModelRequest& request) {
                       for (auto message = request.messages.rbegin(); message != request.messages.rend();
                            ++message) {
                           if (message->role == Role::user) {
                               break;
                           }
                           if (message->role == Role::tool) {
                               return answerFromResults(request);
                           }
                       }
                       return planTools(request);
                   }).delay(latency));
    provider->loop();
    return provider;
}

}  // namespace reagent::cli
