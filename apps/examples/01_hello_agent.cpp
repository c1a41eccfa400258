// 01 — Hello, agent: build an agent, run one prompt, read the result.
//
// The "model" here is a ScriptedProvider: it plays back replies we write, so the example runs offline
// and always gives the same answer. Swapping in a real provider changes one line.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>

#include "reagent/reagent.hpp"

int main() {
    using namespace reagent;

    // 1. A provider answers model requests. This one replies with fixed text and stops (end of turn).
    //    It is shared: we keep a handle to inspect what the agent sent it.
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::text("Hello! I am a reagent agent."));

    // 2. The builder assembles the agent. build() reports every configuration problem at once, as a
    //    value: nothing throws.
    auto agent = agent::Agent::create()
                     .withName("greeter")
                     .withProvider(provider)
                     .withSystemPrompt("You are a friendly assistant.")
                     .build();
    if (!agent) {
        std::cerr << "cannot build the agent: " << agent.error().describe() << "\n";
        return 1;
    }

    // 3. run() returns a Task (a coroutine); an io_context executes it. Here the loop runs in this
    //    thread until the task is done. run() never throws: failures are described in the result.
    boost::asio::io_context io;
    std::optional<agent::RunResult> result;
    boost::asio::co_spawn(io, agent->run("Say hello."),
                          [&](std::exception_ptr, agent::RunResult value) { result = std::move(value); });
    io.run();

    // 4. The result says how the run ended and what it produced.
    std::cout << "answer:        " << result->output << "\n"
              << "success:       " << std::boolalpha << result->success() << "\n"
              << "terminated by: " << agent::toString(result->terminatedBy) << "\n"
              << "iterations:    " << result->iterations << "\n";

    // 5. The provider saw the system prompt first, then the user's prompt.
    const auto& request = provider->requests().at(0);
    const bool ok = result->success() && result->output == "Hello! I am a reagent agent." &&
                    result->terminatedBy == agent::TerminatedBy::end_turn && result->iterations == 1 &&
                    request.messages.size() == 2 && request.messages[0].role == llm::Role::system &&
                    request.messages[1].text == "Say hello.";
    if (!ok) {
        std::cerr << "example failed: unexpected result\n";
        return 1;
    }
    return 0;
}
