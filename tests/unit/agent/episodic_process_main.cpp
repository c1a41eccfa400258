// A separate program for the cross-process test of episodic memory (memory_process_test.cpp):
//   episodic_process write FILE   an agent calls a tool; its result is logged in FILE
//   episodic_process recall FILE  a new agent's recall searches FILE and prints what it found
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace {

using nlohmann::json;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;

reagent::Task<reagent::tools::ToolResult> lookup(json args) {
    co_return "the secret of " + args.value("city", std::string("?")) + " is 4242";
}

int runAgent(const std::string& mode, const std::string& path) {
    auto provider = std::make_shared<ScriptedProvider>();
    if (mode == "write") {
        provider->then(ScriptedTurn::toolCall("lookup", json{{"city", "Lyon"}}, "c1"));
    } else {
        provider->then(
            ScriptedTurn::toolCall("recall", json{{"action", "search"}, {"query", "secret of lyon"}}, "c1"));
    }
    provider->then(ScriptedTurn::text("done"));
    auto tool = reagent::tools::ToolBuilder::create("lookup")
                    .description("Looks a city up")
                    .param("city", "string", "the city")
                    .handler([](json args, reagent::tools::ToolContext) { return lookup(std::move(args)); })
                    .build();
    reagent::agent::MemoryConfig memory;
    memory.path = path;
    auto agent = reagent::agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(tool))
                     .withMemory(memory)
                     .build();
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 2;
    }
    boost::asio::io_context io;
    int status = 1;
    boost::asio::co_spawn(io, agent->run("go"), [&](std::exception_ptr, reagent::agent::RunResult result) {
        if (result.success() && !result.toolCalls.empty() && result.toolCalls[0].succeeded()) {
            std::cout << *result.toolCalls[0].outcome << "\n";
            status = 0;
        }
    });
    io.run();
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: episodic_process write|recall FILE\n";
        return 2;
    }
    return runAgent(argv[1], argv[2]);
}
