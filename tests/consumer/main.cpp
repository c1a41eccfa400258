// Builds and runs an agent using only the installed umbrella header.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <memory>
#include <reagent/reagent.hpp>

namespace {

reagent::Task<reagent::tools::ToolResult> shout(nlohmann::json args, reagent::tools::ToolContext) {
    std::string text = args.at("text").get<std::string>();
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    co_return text;
}

}  // namespace

int main() {
    using namespace reagent;
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("shout", {{"text", "hello"}}))
        .then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
            llm::ModelReply reply;
            reply.text = "The tool said " + request.messages.back().text;
            return expected<llm::ModelReply, llm::ProviderError>(reply);
        }));

    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(tools::ToolBuilder::create("shout")
                                   .description("Upper-cases a text")
                                   .param("text", "string", "The text", {.required = true})
                                   .handler(shout)
                                   .build())
                     .build();
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 1;
    }

    // The umbrella's builder lets a provider be named by kind (ollama needs no API key).
    auto byKind = reagent::Agent::create().withProvider("ollama").build();
    if (!byKind || (*byKind).config().provider->name() != "ollama") {
        std::cerr << "withProvider(\"ollama\") failed\n";
        return 1;
    }

    boost::asio::io_context io;
    agent::RunResult result;
    boost::asio::co_spawn(io, agent->run("Shout hello"),
                          [&](std::exception_ptr, agent::RunResult r) { result = std::move(r); });
    io.run();
    std::cout << result.output << "\n";
    return result.success() && result.output == "The tool said HELLO" ? 0 : 1;
}
