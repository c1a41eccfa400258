// 08 — A2A: serve an agent to other agents, and delegate to it from a parent agent as a tool.
//
// The worker agent is served by a2a::Server on 127.0.0.1 (what `reagent serve --a2a` does); the parent
// reaches it with withRemoteAgent (a2a::remoteAgentTool underneath), which discovers the Agent Card and
// streams the task. Both
// models are scripted, so the example runs offline; everything else is real HTTP over loopback.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <memory>
#include <optional>

#include "example_support.hpp"
#include "reagent/a2a/server.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// The served agent's run function: the prompt in, the answer (or the run's error) out.
Task<expected<std::string, std::string>> runWorker(agent::Agent worker, std::string prompt) {
    agent::RunResult result = co_await worker.run(std::move(prompt));
    if (!result.success()) {
        co_return fail(result.error()->describe());
    }
    co_return std::move(result.output);
}

int main() {
    boost::asio::io_context io;

    // 1. The worker: its model answers from the request it gets (one turn per task).
    auto workerModel = std::make_shared<llm::ScriptedProvider>();
    workerModel->then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
        llm::ModelReply reply;
        reply.text = "Worker's summary of '" + request.messages.back().text + "': all good.";
        return expected<llm::ModelReply, llm::ProviderError>(reply);
    }));
    auto worker = agent::Agent::create().withName("worker").withProvider(workerModel).build();
    examples::check(worker.has_value(), "the worker builds");

    // 2. Serve it: the card at /.well-known/agent-card.json, JSON-RPC at /a2a/jsonrpc, port chosen by the OS.
    a2a::AgentCard card;
    card.name = "worker";
    card.description = "Summarises what it is given";
    a2a::RunFunction run = [agent = *worker](std::string prompt, a2a::ProgressSink) {
        return runWorker(agent, std::move(prompt));
    };
    auto server = a2a::Server::bind(io.get_executor(), a2a::ServerConfig{}, card, run);
    examples::check(server.has_value(), "the server listens on 127.0.0.1");
    std::cout << "serving the worker at " << server->baseUrl() << "\n";
    boost::asio::cancellation_signal stopServer;
    boost::asio::co_spawn(io, server->run(),
                          boost::asio::bind_cancellation_slot(stopServer.slot(), [](std::exception_ptr) {}));

    // 3. The parent: the remote worker is one of its tools. Its model delegates, then answers from the reply.
    auto parentModel = std::make_shared<llm::ScriptedProvider>();
    parentModel->then(llm::ScriptedTurn::toolCall("worker", json{{"message", "the quarterly report"}}));
    parentModel->then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
        llm::ModelReply reply;
        reply.text = "The worker says: " + request.messages.back().text;
        return expected<llm::ModelReply, llm::ProviderError>(reply);
    }));
    auto parent = reagent::Agent::create()
                      .withProvider(parentModel)
                      .withRemoteAgent("worker", server->baseUrl())
                      .build();
    examples::check(parent.has_value(), "the parent builds");

    // 4. Run the parent; when it is done, stop the server (gracefully) so io.run() returns.
    std::optional<agent::RunResult> result;
    boost::asio::co_spawn(io, parent->run("Summarise the quarterly report"),
                          [&](std::exception_ptr, agent::RunResult value) {
                              result = std::move(value);
                              stopServer.emit(boost::asio::cancellation_type::terminal);
                          });
    io.run();

    examples::check(result.has_value() && result->success(), "the parent answered");
    std::cout << "answer: " << result->output << "\n";
    examples::check(result->toolCalls.size() == 1 && result->toolCalls[0].outcome.has_value(),
                    "one successful call to the remote worker");
    examples::check(
        result->output == "The worker says: Worker's summary of 'the quarterly report': all good.",
        "the reply crossed A2A both ways");
    return 0;
}
