// A small MCP server over stdio for the server tests: a few ToolBuilder tools served by mcp::Server.
//
// usage: tool_server [--page-size N] [--max-in-flight N] [--max-line N] [--marker-dir DIR]
//                    [--http HOST:PORT [--json] [--max-sessions N] [--max-body N] [--idle-ms N]]
// With --http it serves streamable HTTP at /mcp (PORT 0 picks one) and prints "listening on PORT" on
// stderr; SIGINT or SIGTERM shuts it down gracefully.
// Tools: echo, add, slow (progress; honours cancellation), fail, sleepy (times out), guarded (needs
// approval, which this server never gives), log (a notifications/message), grow (registers a tool),
// ask_model (samples the client's model), ask_user (elicits input from the client's user).
// Beside tools: resource test://greeting, template test://items/{id}, prompt greet {who}, with completion.
// With --marker-dir, slow writes DIR/slow-started, then DIR/slow-finished or DIR/slow-cancelled.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "reagent/mcp/serve_http.hpp"
#include "reagent/mcp/serve_stdio.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/mcp/tool_channel.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;

namespace {

struct Settings {
    std::size_t pageSize = 100;
    std::size_t maxInFlight = 64;
    std::size_t maxLine = 0;
    std::string markerDir;
    std::string http;
    bool json = false;
    std::size_t maxSessions = 1024;
    std::size_t maxBody = 4U << 20U;
    long idleMs = 0;
};

void mark(const std::string& dir, const std::string& name) {
    if (!dir.empty()) {
        std::ofstream(dir + "/" + name) << name << '\n';
    }
}

// Writes slow-cancelled when the handler's frame goes away before it finished (cancellation).
struct CancelMarker {
    std::string dir;
    bool finished = false;
    ~CancelMarker() {
        if (!finished) {
            mark(dir, "slow-cancelled");
        }
    }
};

Task<tools::ToolResult> slow(json args, tools::ToolContext context, std::string dir) {
    const auto steps = args["steps"].get<int>();
    const auto delay = std::chrono::milliseconds(args["delayMs"].get<int>());
    mark(dir, "slow-started");
    CancelMarker marker{dir};
    asio::steady_timer timer(context.executor);
    for (int i = 1; i <= steps; ++i) {
        timer.expires_after(delay);
        co_await timer.async_wait(asio::use_awaitable);
        context.reportProgress(tools::ToolProgress{static_cast<double>(i), static_cast<double>(steps),
                                                   "step " + std::to_string(i)});
    }
    marker.finished = true;
    mark(dir, "slow-finished");
    co_return "done " + std::to_string(steps);
}

Task<tools::ToolResult> sleepFor(std::chrono::milliseconds limit) {
    asio::steady_timer timer(co_await asio::this_coro::executor, limit);
    co_await timer.async_wait(asio::use_awaitable);
    co_return std::string("woke up");
}

Task<tools::ToolResult> askModel(json args, tools::ToolContext context) {
    mcp::SamplingRequest request;
    request.messages.push_back(
        mcp::SamplingMessage{"user", json{{"type", "text"}, {"text", args["question"].get<std::string>()}}});
    request.maxTokens = 50;
    auto asked = mcp::sample(context, std::move(request));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return answer->model + ": " + answer->content.value("text", std::string());
}

Task<tools::ToolResult> askUser(json args, tools::ToolContext context) {
    mcp::ElicitRequest request;
    request.message = args["message"].get<std::string>();
    request.requestedSchema =
        json{{"type", "object"},
             {"properties", {{"name", {{"type", "string"}, {"description", "your name"}}}}},
             {"required", {"name"}}};
    auto asked = mcp::elicit(context, std::move(request));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return answer->action + " " + answer->content.dump();
}

using Contents = reagent::expected<std::vector<mcp::ResourceContents>, mcp::RpcError>;

Task<Contents> textResource(std::string uri, std::string text) {
    std::vector<mcp::ResourceContents> out;
    out.push_back(mcp::ResourceContents{std::move(uri), "text/plain", std::move(text), {}});
    co_return out;
}

Task<reagent::expected<mcp::PromptResult, mcp::RpcError>> greet(mcp::PromptArguments args) {
    std::vector<mcp::PromptMessage> messages;
    messages.push_back(
        mcp::PromptMessage{"user", json{{"type", "text"}, {"text", "Say hello to " + args["who"]}}});
    co_return mcp::PromptResult{"A greeting", std::move(messages)};
}

void registerCatalog(mcp::Server& server) {
    server.addResource(mcp::ResourceInfo{"test://greeting", "greeting", "A fixed text", "text/plain"},
                       [](std::string uri) { return textResource(std::move(uri), "hello from reagent"); });
    (void)server.addResourceTemplate(
        mcp::ResourceTemplateInfo{"test://items/{id}", "item", "An item by id", "text/plain"},
        [](std::string uri, mcp::TemplateVariables vars) {
            return textResource(std::move(uri), "item " + vars["id"]);
        });
    server.addPrompt(
        mcp::PromptInfo{"greet", "Greets someone", {mcp::PromptArgument{"who", "whom to greet", true}}},
        greet);
    server.addCompletion(mcp::CompletionRef{mcp::CompletionRef::Kind::prompt, "greet"}, "who",
                         [](const std::string& value, const json&) {
                             mcp::CompletionResult result;
                             for (const char* name : {"ada", "alan", "grace"}) {
                                 if (std::string(name).starts_with(value)) {
                                     result.values.emplace_back(name);
                                 }
                             }
                             return result;
                         });
}

tools::Tool build(tools::ToolBuilder& builder) {
    auto tool = builder.build();
    if (!tool) {
        std::fprintf(stderr, "tool_server: %s\n", tool.error().message.c_str());
        std::exit(2);
    }
    return std::move(*tool);
}

void addTool(tools::ToolRegistry& registry, tools::ToolBuilder builder) {
    if (auto added = registry.add(build(builder)); !added) {
        std::fprintf(stderr, "tool_server: %s\n", added.error().message.c_str());
        std::exit(2);
    }
}

void registerTools(tools::ToolRegistry& registry, const Settings& settings,
                   std::weak_ptr<std::optional<mcp::Server>> weakServer) {
    using tools::ParamOptions;
    addTool(registry, std::move(tools::ToolBuilder::create("echo")
                                    .description("Returns its message")
                                    .param("message", "string", "the text", ParamOptions{.required = true})
                                    .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                                        co_return args["message"].get<std::string>();
                                    })));
    addTool(registry, std::move(tools::ToolBuilder::create("add")
                                    .description("Adds two numbers")
                                    .param("a", "number", "first", ParamOptions{.required = true})
                                    .param("b", "number", "second", ParamOptions{.required = true})
                                    .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                                        const double sum = args["a"].get<double>() + args["b"].get<double>();
                                        co_return std::floor(sum) == sum ? std::to_string(std::llround(sum))
                                                                         : json(sum).dump();
                                    })));
    addTool(registry,
            std::move(tools::ToolBuilder::create("slow")
                          .description("Counts steps, reporting progress; honours cancellation")
                          .param("steps", "integer", "how many steps", ParamOptions{.required = true})
                          .param("delayMs", "integer", "pause per step", ParamOptions{.defaultValue = 20})
                          .timeout(std::chrono::seconds(30))
                          .handler([dir = settings.markerDir](json args, tools::ToolContext context) {
                              return slow(std::move(args), std::move(context), dir);
                          })));
    addTool(registry,
            std::move(tools::ToolBuilder::create("fail")
                          .description("Always fails")
                          .handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
                              co_return reagent::fail(tools::ToolError::failure("boom: it always fails"));
                          })));
    addTool(
        registry,
        std::move(tools::ToolBuilder::create("sleepy")
                      .description("Sleeps past its 100 ms timeout")
                      .timeout(std::chrono::milliseconds(100))
                      .handler([](json, tools::ToolContext) { return sleepFor(std::chrono::seconds(5)); })));
    addTool(registry, std::move(tools::ToolBuilder::create("guarded")
                                    .description("Deletes nothing, but needs approval")
                                    .riskLevel(tools::RiskLevel::high)
                                    .sideEffect()
                                    .requiresApproval()
                                    .handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
                                        co_return std::string("approved");
                                    })));
    addTool(registry,
            std::move(tools::ToolBuilder::create("log")
                          .description("Sends a log message to the client")
                          .param("level", "string", "the level", ParamOptions{.required = true})
                          .param("message", "string", "the text", ParamOptions{.required = true})
                          .handler([weakServer](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                              const auto server = weakServer.lock();
                              const auto level = mcp::parseLogLevel(args["level"].get<std::string>());
                              if (!level) {
                                  co_return reagent::fail(tools::ToolError::failure("unknown level"));
                              }
                              (*server)->log(*level, args["message"], "tool_server");
                              co_return std::string("logged");
                          })));
    addTool(registry,
            std::move(tools::ToolBuilder::create("grow")
                          .description("Registers one more tool (the list changes)")
                          .param("name", "string", "its name", ParamOptions{.required = true})
                          .handler([weakServer](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                              const auto server = weakServer.lock();
                              auto builder = tools::ToolBuilder::create(args["name"].get<std::string>());
                              builder.description("Added at run time")
                                  .handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
                                      co_return std::string("new");
                                  });
                              auto tool = builder.build();
                              if (!tool) {
                                  co_return reagent::fail(tool.error());
                              }
                              auto added = (*server)->registry()->add(std::move(*tool));
                              if (!added) {
                                  co_return reagent::fail(added.error());
                              }
                              co_return std::string("grown");
                          })));
    addTool(registry,
            std::move(tools::ToolBuilder::create("ask_model")
                          .description("Asks the client's model a question (sampling)")
                          .param("question", "string", "the question", ParamOptions{.required = true})
                          .handler(askModel)));
    addTool(registry, std::move(tools::ToolBuilder::create("ask_user")
                                    .description("Asks the client's user for their name (elicitation)")
                                    .param("message", "string", "what to ask", ParamOptions{.required = true})
                                    .handler(askUser)));
}

// Streamable HTTP until SIGINT or SIGTERM.
int serveOverHttp(const mcp::Server& server, const Settings& settings) {
    const std::size_t colon = settings.http.rfind(':');
    mcp::HttpServeOptions options;
    options.address = settings.http.substr(0, colon);
    options.port = static_cast<std::uint16_t>(std::stoul(settings.http.substr(colon + 1)));
    options.replyMode = settings.json ? mcp::HttpReplyMode::json : mcp::HttpReplyMode::event_stream;
    options.maxSessions = settings.maxSessions;
    options.maxBodyBytes = settings.maxBody;
    if (settings.idleMs > 0) {
        options.sessionIdleTimeout = std::chrono::milliseconds(settings.idleMs);
    }
    options.onListening = [](std::uint16_t port) {
        std::fprintf(stderr, "tool_server: listening on %u\n", static_cast<unsigned>(port));
    };
    asio::io_context io(1);
    asio::cancellation_signal stop;
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&stop](const boost::system::error_code& ec, int) {
        if (!ec) {
            stop.emit(asio::cancellation_type::terminal);
        }
    });
    int status = 0;
    asio::co_spawn(io, mcp::serveHttp(server, options),
                   asio::bind_cancellation_slot(
                       stop.slot(), [&status, &signals](std::exception_ptr error,
                                                        reagent::expected<void, mcp::McpError> served) {
                           if (error || !served) {
                               std::fprintf(stderr, "tool_server: %s\n",
                                            served ? "exception" : served.error().message.c_str());
                               status = 1;
                           }
                           signals.cancel();
                       }));
    io.run();
    std::fprintf(stderr, "tool_server: stopped\n");
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--json") {
            settings.json = true;
            --i;
            continue;
        }
        if (i + 1 >= argc) {
            break;
        }
        const std::string value = argv[i + 1];
        if (flag == "--page-size") {
            settings.pageSize = std::stoul(value);
        } else if (flag == "--max-in-flight") {
            settings.maxInFlight = std::stoul(value);
        } else if (flag == "--max-line") {
            settings.maxLine = std::stoul(value);
        } else if (flag == "--marker-dir") {
            settings.markerDir = value;
        } else if (flag == "--http") {
            settings.http = value;
        } else if (flag == "--max-sessions") {
            settings.maxSessions = std::stoul(value);
        } else if (flag == "--max-body") {
            settings.maxBody = std::stoul(value);
        } else if (flag == "--idle-ms") {
            settings.idleMs = std::stol(value);
        }
    }
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto server = std::make_shared<std::optional<mcp::Server>>();
    registerTools(*registry, settings, server);
    mcp::ServerOptions options;
    options.info = mcp::Implementation{"reagent-tool-server", "1.0.0", {}};
    options.instructions = "Test tools for reagent's MCP server.";
    options.pageSize = settings.pageSize;
    options.maxInFlight = settings.maxInFlight;
    server->emplace(registry, options);
    registerCatalog(**server);

    if (!settings.http.empty()) {
        return serveOverHttp(**server, settings);
    }
    mcp::StdioServeOptions stdio;
    stdio.maxLineBytes = settings.maxLine;
    asio::io_context io;
    int status = 0;
    std::fprintf(stderr, "tool_server: serving %zu tools on stdio\n", registry->size());
    asio::co_spawn(io, mcp::serveStdio(**server, stdio),
                   [&status](std::exception_ptr error, reagent::expected<void, mcp::McpError> served) {
                       if (error || !served) {
                           std::fprintf(stderr, "tool_server: %s\n",
                                        served ? "exception" : served.error().message.c_str());
                           status = 1;
                       }
                   });
    io.run();
    std::fprintf(stderr, "tool_server: stdin ended, exiting\n");
    return status;
}
