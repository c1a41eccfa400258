// 12 — MCP servers: an agent uses the tools of a Model Context Protocol server.
//
// withMCP names a server; buildAsync starts it (here a subprocess speaking JSON-RPC on stdin and stdout),
// lists its tools and registers each one as "<server>/<tool>", which the model calls like any other tool.
// A server may also send log lines (ServerLogged events) and ask the agent's model for a completion
// (sampling, allowed by withMCPSampling). Any stdio server is configured the same way, for instance
// {.name = "everything", .command = "npx", .args = {"-y", "@modelcontextprotocol/server-everything"}}.
//
// So that the example runs offline and needs nothing but itself, the server is this same program started
// with --serve: a few lines of reagent's own MCP server (mcp::Server, mcp::serveStdio), as
// `reagent mcp serve` does for the built-in tools.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

#include "example_support.hpp"
#include "reagent/mcp/tool_channel.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// ---- The server side: what this program runs when started with --serve ----

// 1. A server's tool is an ordinary tool. This one tells its client what it does with a log line
//    (notifications/message), then answers. Its text reaches the agent's model unchanged: it is untrusted
//    input there, as everything a server says.
Task<tools::ToolResult> forecast(json args, tools::ToolContext context) {
    const std::string city = args.at("city").get<std::string>();
    mcp::logToClient(context, mcp::LogLevel::info, json{{"lookup", city}}, "forecast");
    co_return "Sunny in " + city + ", 24 C, light wind from the north.";
}

// 2. This one asks the client's model to write for it (sampling/createMessage). The client decides
//    whether its model answers; without sampling the call fails, and the error says why.
Task<tools::ToolResult> headline(json args, tools::ToolContext context) {
    mcp::SamplingRequest request;
    request.messages.push_back(mcp::SamplingMessage{
        "user",
        json{{"type", "text"}, {"text", "Write a headline for: " + args.at("text").get<std::string>()}}});
    request.maxTokens = 40;
    auto asking = mcp::sample(context, std::move(request));
    auto answer = co_await std::move(asking);
    if (!answer) {
        co_return fail(std::move(answer.error()));
    }
    co_return answer->content.value("text", std::string());
}

// 3. Serve both on stdin and stdout until the client closes stdin (Agent::dispose does).
int serve() {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto forecastTool = tools::ToolBuilder::create("forecast")
                            .description("Today's weather in a city")
                            .param("city", "string", "The city", {.required = true})
                            .handler(forecast)
                            .build();
    auto headlineTool = tools::ToolBuilder::create("headline")
                            .description("A newspaper headline for a text, written by the client's model")
                            .param("text", "string", "What the headline is about", {.required = true})
                            .handler(headline)
                            .build();
    if (!forecastTool || !headlineTool || !registry->add(std::move(*forecastTool)) ||
        !registry->add(std::move(*headlineTool))) {
        std::cerr << "weather: cannot register the tools\n";  // stderr: stdout carries frames only
        return 2;
    }
    mcp::ServerOptions options;
    options.info = mcp::Implementation{"weather", "1.0.0", {}};
    const mcp::Server server(registry, options);
    boost::asio::io_context io;
    int status = 0;
    boost::asio::co_spawn(io, mcp::serveStdio(server),
                          [&status](std::exception_ptr error, expected<void, mcp::McpError> served) {
                              status = error || !served ? 1 : 0;
                          });
    io.run();
    return status;
}

// ---- The client side: the agents ----

// The path of this program, to start it again as the server.
std::string thisProgram(const char* argv0) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::absolute(argv0).string() : self.string();
}

mcp::ServerConfig weatherServer(const std::string& program) {
    mcp::ServerConfig server;
    server.name = "weather";  // the tools' prefix: weather/forecast, weather/headline
    server.command = program;
    server.args = {"--serve"};
    // Bounds well inside the example's test timeout (60 s), should the server hang.
    server.connectTimeout = std::chrono::seconds(10);
    server.requestTimeout = std::chrono::seconds(20);
    return server;
}

// The model's replies read their requests, as real models would: each quotes the last message.
std::string lastMessage(const llm::ModelRequest& request) {
    return request.messages.back().text;
}

expected<llm::ModelReply, llm::ProviderError> askForHeadline(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.toolCalls.push_back({"h1", "weather/headline", json{{"text", lastMessage(request)}}});
    return reply;
}

expected<llm::ModelReply, llm::ProviderError> writeHeadline(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.text = lastMessage(request).find("Sunny in Lisbon") != std::string::npos ? "LISBON BASKS IN THE SUN"
                                                                                   : "NO NEWS";
    return reply;
}

expected<llm::ModelReply, llm::ProviderError> answer(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.text = "Today's headline: " + lastMessage(request);
    return reply;
}

// 4. The umbrella builder: withMCP for the server, withMCPSampling for its requests to our model,
//    withEventHandler for its log lines. buildAsync starts the server and registers its tools; dispose
//    stops it. (A coroutine: its parameters are values, they live as long as its frame.)
Task<agent::RunResult> runWithMcp(std::string program, std::shared_ptr<llm::ScriptedProvider> model,
                                  std::shared_ptr<std::vector<agent::ServerLogged>> logs,
                                  std::shared_ptr<std::vector<std::string>> samplers) {
    auto builder = reagent::Agent::create()
                       .withName("newsroom")
                       .withProvider(model)
                       .withMCP(weatherServer(program))
                       .withMCPSampling([samplers](const std::string& server, const json&) {
                           samplers->push_back(server);
                           return server == "weather";  // a policy: only this server may use our model
                       })
                       .withEventHandler([logs](const agent::AgentEvent& event) {
                           if (const auto* logged = std::get_if<agent::ServerLogged>(&event)) {
                               std::cout << "  [" << logged->server << " " << logged->level << "] "
                                         << logged->data.dump() << "\n";
                               logs->push_back(*logged);
                           }
                       });
    auto built = co_await builder.buildAsync();
    examples::check(built.has_value(), "the agent builds and the server starts");
    agent::RunResult result = co_await built->run("What is today's headline for Lisbon?");
    co_await built->dispose();
    co_return result;
}

// 5. The seam underneath: mcp::toolSource(config) is a tools::ToolSource, and the agent library's own
//    builder takes it like any other source. This session offers no sampling (ToolSourceOptions::sampling
//    is unset), so the server's request is refused and the model reads the error.
Task<agent::RunResult> runWithToolSource(std::string program, std::shared_ptr<llm::ScriptedProvider> model) {
    auto builder = agent::Agent::create().withName("seam").withProvider(model).withToolSource(
        mcp::toolSource(weatherServer(program)));
    auto built = co_await builder.buildAsync();
    examples::check(built.has_value(), "the agent builds with the tool source");
    for (const tools::ToolDefinition& definition : built->toolDefinitions()) {
        std::cout << "  tool " << definition.name << " (category " << definition.category << ", risk "
                  << tools::toString(definition.riskLevel) << ")\n";
    }
    agent::RunResult result = co_await built->run("Oslo?");
    co_await built->dispose();
    co_return result;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "--serve") {
        return serve();
    }
    const std::string program = thisProgram(argv[0]);

    // 6. The model: ask for the forecast; then for a headline of it. The server's sampling request
    //    reaches the same provider (our model writes the headline); the last turn answers.
    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::toolCall("weather/forecast", json{{"city", "Lisbon"}}, "f1"));
    model->then(llm::ScriptedTurn::respond(askForHeadline));
    model->then(llm::ScriptedTurn::respond(writeHeadline).expectLastMessageContains("Write a headline"));
    model->then(llm::ScriptedTurn::respond(answer));
    auto logs = std::make_shared<std::vector<agent::ServerLogged>>();
    auto samplers = std::make_shared<std::vector<std::string>>();

    std::cout << "with withMCP:\n";
    const agent::RunResult result = examples::runTask(runWithMcp(program, model, logs, samplers));
    for (const tools::ToolCallRecord& call : result.toolCalls) {
        std::cout << "  " << call.name << " -> " << call.outcome.value_or("(failed)") << "\n";
    }
    std::cout << "  answer: " << result.output << "\n";

    examples::check(result.success(), "the run answered");
    examples::check(result.output == "Today's headline: LISBON BASKS IN THE SUN",
                    "the answer quotes the headline the server had our model write");
    examples::check(result.toolCalls.size() == 2 && result.toolCalls[0].name == "weather/forecast" &&
                        result.toolCalls[0].succeeded() && result.toolCalls[1].succeeded(),
                    "the model called the server's two tools by their prefixed names");
    examples::check(model->requests().size() == 4 && model->requests()[1].messages.back().text.find(
                                                         "Sunny in Lisbon") != std::string::npos,
                    "the forecast reached the next model turn");
    examples::check(*samplers == std::vector<std::string>{"weather"}, "the sampling policy was asked once");
    examples::check(logs->size() == 1 && logs->front().server == "weather" &&
                        logs->front().data == json{{"lookup", "Lisbon"}},
                    "the server's log line arrived as a ServerLogged event");

    // 7. The same server through the lower-level seam: both tools in one turn; the headline fails.
    auto seamModel = std::make_shared<llm::ScriptedProvider>();
    const std::vector<llm::ToolCall> calls{llm::ToolCall{"f2", "weather/forecast", json{{"city", "Oslo"}}},
                                           llm::ToolCall{"h2", "weather/headline", json{{"text", "Oslo"}}}};
    seamModel->then(llm::ScriptedTurn::toolCalls(calls));
    seamModel->then(llm::ScriptedTurn::text("Sunny in Oslo; no headline today."));

    std::cout << "with withToolSource(mcp::toolSource(config)):\n";
    const agent::RunResult seam = examples::runTask(runWithToolSource(program, seamModel));
    for (const tools::ToolCallRecord& call : seam.toolCalls) {
        std::cout << "  " << call.name << " -> "
                  << (call.succeeded() ? *call.outcome : "error: " + call.outcome.error().message) << "\n";
    }

    examples::check(seam.success() && seam.toolCalls.size() == 2, "the seam's run answered");
    examples::check(seam.toolCalls[0].succeeded() && seam.toolCalls[0].outcome->starts_with("Sunny in Oslo"),
                    "the forecast works without sampling");
    examples::check(!seam.toolCalls[1].succeeded() &&
                        seam.toolCalls[1].outcome.error().message.find("sampling") != std::string::npos,
                    "without sampling the headline fails and says why");
    return 0;
}
