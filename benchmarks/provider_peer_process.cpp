#include "provider_peer_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "reagent/providers/http_provider.hpp"
#include "reagent/providers/wire_format.hpp"
#include "reagent/reagent.hpp"

namespace bench {
namespace {

using namespace reagent;
using nlohmann::json;

std::string chatCompletion(const json& message, const std::string& finish) {
    return json{{"id", "chatcmpl-1"},
                {"object", "chat.completion"},
                {"model", "gpt-4.1"},
                {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}},
                {"usage", {{"prompt_tokens", 40}, {"completion_tokens", 8}, {"total_tokens", 48}}}}
        .dump();
}

// A tool call unless the body already carries a tool result, then the answer.
json script() {
    const json call = {{"role", "assistant"},
                       {"content", nullptr},
                       {"tool_calls",
                        {{{"id", "call_1"},
                          {"type", "function"},
                          {"function", {{"name", "echo"}, {"arguments", "{\"text\":\"hello\"}"}}}}}}};
    const json answer = {{"role", "assistant"}, {"content", "done"}};
    return json{
        {"rules",
         {{{"match", "\"role\":\"tool\""},
           {"response", {{"status", 200}, {"body", chatCompletion(answer, "stop")}}}},
          {{"match", ""}, {"response", {{"status", 200}, {"body", chatCompletion(call, "tool_calls")}}}}}}};
}

Task<tools::ToolResult> echo(json args, tools::ToolContext) {
    co_return args.value("text", std::string{});
}

}  // namespace

// The port comes on the peer's first stdout line; the script file can go once it is there (read by then).
ProviderPeer::ProviderPeer() {
    char scriptFile[] = "/tmp/reagent-provider-bench-XXXXXX.json";
    const int fd = ::mkstemps(scriptFile, 5);
    if (fd < 0) {
        throw std::runtime_error("mkstemps failed");
    }
    ::close(fd);
    std::ofstream(scriptFile) << script().dump();
    int in[2];
    int out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) {
        std::remove(scriptFile);
        throw std::runtime_error("pipe failed");
    }
    pid_ = ::fork();
    if (pid_ == 0) {
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::close(in[1]);
        ::close(out[0]);
        const std::string peer = std::string(REAGENT_PEERS_DIR) + "/provider_peer.py";
        ::execlp("python3", "python3", peer.c_str(), "--script", scriptFile, "--no-record",
                 static_cast<char*>(nullptr));
        std::_Exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    FILE* reader = ::fdopen(out[0], "r");
    char line[64] = {};
    const bool started = reader != nullptr && std::fgets(line, sizeof line, reader) != nullptr;
    std::remove(scriptFile);
    if (!started) {
        throw std::runtime_error("the provider peer did not start");
    }
    port_ = std::stoi(line);
    reader_.reset(reader);
}

ProviderPeer::~ProviderPeer() {
    ::close(stdin_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
}

agent::Agent buildHttpAgent(int port, int concurrent, bool spendControls,
                            std::shared_ptr<telemetry::Telemetry> telemetry) {
    providers::ProviderConfig config;
    config.kind = providers::ProviderKind::openai;
    config.apiKey = "bench";
    config.baseUrl = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    config.proxy = http::ProxySettings{};
    // A service running this many runs at once keeps as many connections warm (the first runs open them).
    config.maxIdleConnections = static_cast<std::size_t>(std::max(concurrent, 1));
    if (spendControls) {
        config.rateLimits.maxConcurrent = 100'000;
        config.rateLimits.requestsPerMinute = 100'000'000;
        config.rateLimits.tokensPerMinute = 100'000'000'000;
    }
    auto provider = providers::makeProvider(config);
    if (!provider) {
        throw std::runtime_error(provider.error().describe());
    }
    auto tool = tools::ToolBuilder::create("echo")
                    .description("Echo the text back")
                    .param("text", "string", "Text to echo", {.required = true})
                    .handler(echo)
                    .build();
    // The same single tool the peers offer: no built-in tools.
    agent::ToolsConfig only;
    auto builder = agent::Agent::create();
    builder.withProvider(std::move(*provider)).withTools(std::move(only)).withTool(std::move(tool));
    if (spendControls) {
        builder.withPrices(std::make_shared<const llm::PriceTable>(
            llm::PriceTable::fromJson(
                json{{"currency", "USD"}, {"models", {{"gpt-4.1", {{"input", 2.0}, {"output", 8.0}}}}}})
                .value()));
        agent::RunBudget budget;
        budget.maxTotalTokens = 1'000'000;
        budget.maxCost = 1'000;
        budget.maxModelCalls = 100;
        budget.maxToolCalls = 100;
        budget.maxDuration = std::chrono::minutes(10);
        builder.withBudget(budget);
    }
    if (telemetry) {
        builder.withTelemetry(std::move(telemetry));
    }
    auto built = builder.build();
    if (!built) {
        throw std::runtime_error(built.error().describe());
    }
    return std::move(*built);
}

bool endedAsScripted(const std::exception_ptr& error, const agent::RunResult& result) {
    return !error && result.success() && result.output == "done" && result.toolCalls.size() == 1;
}

std::pair<std::string, std::string> agentBodies(const agent::Agent& agent) {
    llm::ModelRequest request;
    request.tools = agent.toolSpecs();
    request.messages.push_back(llm::Message::user("Say hello"));
    const providers::WireFormat& format = providers::wire::openai();
    providers::CodecOptions options;
    options.model = format.defaultModel;
    const auto encode = [&] {
        return format.encodeRequest(request, options, format.encodeTools(request.tools, options));
    };
    std::string first = encode().body;
    request.messages.push_back(
        llm::Message::assistant("", {llm::ToolCall{"call_1", "echo", {{"text", "hello"}}}}));
    request.messages.push_back(llm::Message::toolResult("call_1", "echo", "hello"));
    std::string second = encode().body;
    return {std::move(first), std::move(second)};
}

int runOne(boost::asio::io_context& io, const agent::Agent& agent) {
    int ok = 0;
    boost::asio::co_spawn(io, agent.run("Say hello"),
                          [&ok](std::exception_ptr error, agent::RunResult result) {
                              ok = endedAsScripted(error, result) ? 1 : 0;
                          });
    io.run();
    io.restart();
    return ok;
}

}  // namespace bench
