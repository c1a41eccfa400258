// An agent built from the agent library alone: its own provider, no HTTP provider, no umbrella header. It
// links reagent::agent only, which must not bring reagent::providers (nor HTTP, nor OpenSSL) with it.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <iostream>
#include <memory>
#include <reagent/agent/agent.hpp>
#include <reagent/llm/scripted_provider.hpp>

int main() {
    using namespace reagent;
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::text("hello from the agent library"));
    auto agent = agent::Agent::create().withProvider(provider).build();
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 1;
    }
    boost::asio::io_context io;
    auto run = boost::asio::co_spawn(io, agent->run("Say hello"), boost::asio::use_future);
    io.run();
    const agent::RunResult result = run.get();
    std::cout << result.output << "\n";
    return result.success() && result.output == "hello from the agent library" ? 0 : 1;
}
