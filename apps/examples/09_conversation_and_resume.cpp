// 09 — Conversations, and runs the caller finishes: turns that remember, and a tool the application runs.
//
// A Conversation keeps the history: each send runs the next turn with all the messages before it, and
// each message gets an id (m1, m2, ...) that a chat UI can show and address. A declaration-only tool has
// no handler: when the model calls it the run stops (TerminatedBy::external_tool_calls) with its whole
// state as JSON, so the application can do the work itself (ask a person, call its own systems, take
// hours) and then resume the run with the result, in this process or another one.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// The scripted model's replies read the request, as a real model would: what it answers depends on the
// history and on the tool results it was given.
expected<llm::ModelReply, llm::ProviderError> recallName(const llm::ModelRequest& request) {
    bool introduced = false;
    for (const auto& message : request.messages) {
        introduced = introduced || message.text.find("I'm Ada") != std::string::npos;
    }
    llm::ModelReply reply;
    reply.text = introduced ? "You are Ada." : "I don't know your name.";
    return reply;
}

expected<llm::ModelReply, llm::ProviderError> confirmBooking(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.text = "Done, Ada: " + request.messages.back().text + ".";
    return reply;
}

void printHistory(const agent::Conversation& conversation) {
    for (const agent::ConversationMessage& entry : conversation.messages()) {
        std::cout << "  " << entry.id << " " << llm::toString(entry.message.role) << ": "
                  << (entry.message.text.empty() ? "(tool calls)" : entry.message.text) << "\n";
    }
}

int main() {
    // 1. The tool the application runs itself: declared (name, description, parameters), no handler.
    auto bookRoom = tools::ToolBuilder::create("book_room")
                        .description("Book a meeting room; returns the booking reference")
                        .param("room", "string", "The room's name", {.required = true})
                        .param("day", "string", "The day", {.required = true})
                        .declarationOnly()
                        .build();

    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::text("Hello Ada, how can I help?"));
    model->then(llm::ScriptedTurn::respond(recallName));
    model->then(llm::ScriptedTurn::toolCall("book_room", json{{"room", "Rhone"}, {"day", "tomorrow"}}, "b1"));
    // The turn that stopped is resumed twice below (two ways), so its last reply is scripted twice.
    model->then(llm::ScriptedTurn::respond(confirmBooking));
    model->then(llm::ScriptedTurn::respond(confirmBooking));

    auto agent = agent::Agent::create()
                     .withProvider(model)
                     .withSystemPrompt("You are a helpful office assistant.")
                     .withTool(std::move(bookRoom))
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    // 2. A conversation: the second turn sees the first one.
    agent::Conversation conversation(*agent);
    auto first = examples::runTask(conversation.send("Hi, I'm Ada."));
    auto second = examples::runTask(conversation.send("What is my name?"));
    examples::check(first && first->success() && second && second->success(), "two turns answered");
    examples::check(second->output == "You are Ada.", "the second turn saw the first");
    std::cout << "after two turns:\n";
    printHistory(conversation);
    examples::check(conversation.messages().size() == 4 && conversation.messages()[3].id == "m4",
                    "four messages, m1 to m4");

    // 3. A turn that stops for the declaration-only call: the run's state is JSON, to store anywhere.
    auto third = examples::runTask(conversation.send("Book the Rhone room for tomorrow."));
    examples::check(third && third->terminatedBy == agent::TerminatedBy::external_tool_calls,
                    "the turn stops for book_room");
    const tools::ToolCallRequest& pending = third->pendingToolCalls.at(0);
    std::cout << "the model asks the application to run " << pending.name << pending.arguments.dump()
              << " (call " << pending.id << ")\n";
    const std::string saved = third->state.dump();  // a file, a database row, a queue message...
    std::cout << "run state saved: " << saved.size() << " bytes of JSON\n";
    examples::check(conversation.messages().size() == 4, "a waiting turn is not in the history yet");

    // 4. The application does the work, then hands the result back, one per pending call.
    const std::vector<agent::ExternalResult> results{{pending.id, std::string("booking RH-042")}};

    // 4a. From the saved JSON alone, as another process would (same agent configuration): Agent::resume.
    //     The run finishes exactly as if the call had run in it. (This conversation does not see it.)
    auto elsewhere = examples::runTask(agent->resume(json::parse(saved), results));
    examples::check(elsewhere && elsewhere->success(), "Agent::resume finishes the run from its state");
    std::cout << "Agent::resume: " << elsewhere->output << " (" << elsewhere->iterations
              << " model calls in the whole run)\n";

    // 4b. In the conversation: Conversation::resume finishes the waiting turn, whose messages then join
    //     the history like any other turn's.
    auto finished = examples::runTask(conversation.resume(results));
    examples::check(finished && finished->success(), "Conversation::resume finishes the turn");
    std::cout << "Conversation::resume: " << finished->output << "\n";
    examples::check(finished->output == "Done, Ada: booking RH-042.",
                    "the model read the application's result");
    std::cout << "after the third turn:\n";
    printHistory(conversation);
    // user, assistant asking for book_room, the tool's result, the answer
    examples::check(conversation.messages().size() == 8, "the resumed turn added four messages");

    // 5. Results that do not match the pending calls are refused (invalid_state) and nothing runs: here,
    //    one for a call the run never made besides the right one. (A missing result is refused too.)
    const std::vector<agent::ExternalResult> wrong{{pending.id, std::string("booking RH-042")},
                                                   {"b9", std::string("?")}};
    auto refused = examples::runTask(agent->resume(json::parse(saved), wrong));
    examples::check(!refused && refused.error().code == agent::AgentErrc::invalid_state &&
                        refused.error().message.find("'b9'") != std::string::npos,
                    "a result for an unknown call is refused, naming it");
    std::cout << "refused: " << refused.error().describe() << "\n";
    return 0;
}
