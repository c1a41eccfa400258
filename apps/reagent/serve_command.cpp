// `reagent mcp serve`: the workspace's built-in tools behind reagent's MCP server.

#include "serve_command.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

#include "a2a_serve_command.hpp"
#include "cli_telemetry.hpp"
#include "reagent/mcp/serve_http.hpp"
#include "reagent/mcp/serve_stdio.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::cli {

namespace asio = boost::asio;

namespace {

Task<bool> approveEverything(tools::ToolCallRequest, tools::ToolDefinition) {
    co_return true;
}

// `HOST:PORT` (`[::1]:PORT` too) as options, or nothing.
std::optional<mcp::HttpServeOptions> httpEndpoint(const std::string& text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon + 1 == text.size()) {
        return std::nullopt;
    }
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const std::string port = text.substr(colon + 1);
    if (host.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(port) > 65535) {
        return std::nullopt;
    }
    mcp::HttpServeOptions options;
    options.address = host;
    options.port = static_cast<std::uint16_t>(std::stoul(port));
    return options;
}

// Serves until stopped; the telemetry around it is mcpServeCommand's.
int serveMcp(asio::io_context& io, const ServeOptions& options) {
    std::optional<mcp::HttpServeOptions> http;
    if (!options.http.empty()) {
        http = httpEndpoint(options.http);
        if (!http) {
            std::cerr << "reagent: --http wants HOST:PORT (like 127.0.0.1:8080), not '" << options.http
                      << "'\n";
            return kExitUsage;
        }
    }
    std::optional<ServerToken> token;
    if (http) {
        auto chosen = serverToken(options.auth, kMcpServeTokenVariable);
        if (!chosen) {
            std::cerr << "reagent: " << chosen.error() << "\n";
            return kExitUsage;
        }
        token = std::move(*chosen);
        if (token) {
            http->bearerToken = token->value;
        }
    } else if (options.auth.noAuth || !options.auth.tokenFile.empty()) {
        std::cerr << "reagent: --token-file and --no-auth are for --http (stdio has a single client, the "
                     "program that started the server)\n";
        return kExitUsage;
    }
    auto tools = workspaceTools(options.tools);
    if (!tools) {
        std::cerr << "reagent: " << tools.error() << "\n";
        return kExitRunFailed;
    }
    auto registry = std::make_shared<tools::ToolRegistry>();
    for (auto& tool : *tools) {
        if (auto added = registry->add(std::move(tool)); !added) {
            std::cerr << "reagent: " << added.error().message << "\n";
            return kExitRunFailed;
        }
    }
    if (options.agent) {
        auto builder = serverAgentBuilder(options.tools);
        if (!builder) {
            std::cerr << "reagent: --agent: " << builder.error() << "\n";
            return kExitUsage;
        }
        auto built = builder->build();
        if (!built) {
            std::cerr << "reagent: --agent: " << built.error().message << "\n";
            return kExitUsage;
        }
        auto tool = built->asTool(
            "agent", "Ask reagent's agent to do a task on the workspace " + options.tools.workspace +
                         ": it plans, uses its tools (files, code, the web) and replies with its "
                         "answer. Give the whole task in `message`.");
        if (auto added = registry->add(std::move(tool)); !added) {
            std::cerr << "reagent: --agent: " << added.error().message << "\n";
            return kExitRunFailed;
        }
    }
    mcp::ServerOptions serverOptions;
    if (const char* key = std::getenv(kMcpStateKeyVariable); key != nullptr && *key != '\0') {
        if (std::strlen(key) < 32) {
            std::cerr << "reagent: " << kMcpStateKeyVariable
                      << " must hold at least 32 characters (a random secret, the same on every server "
                         "behind one address); it holds fewer\n";
            return kExitUsage;
        }
        serverOptions.requestStateKey = key;
    }
    serverOptions.info = mcp::Implementation{"reagent", REAGENT_VERSION, {}};
    serverOptions.telemetry = options.tools.telemetry;
    serverOptions.instructions = "reagent's built-in tools on the workspace " + options.tools.workspace +
                                 (options.tools.readOnly ? " (read-only)" : "");
    mcp::Server server(registry, serverOptions);
    if (options.tools.approveAll) {
        server.setApprovalHandler(approveEverything);
    }

    asio::cancellation_signal stop;
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&stop](const boost::system::error_code& ec, int) {
        if (!ec) {
            std::cerr << "reagent: shutting down\n";
            stop.emit(asio::cancellation_type::terminal);
        }
    });
    int status = kExitSuccess;
    auto done = [&status, &signals, &io, &options](std::exception_ptr error,
                                                   expected<void, mcp::McpError> served) {
        if (error || !served) {
            std::cerr << "reagent: " << (served ? "the server failed" : served.error().message) << "\n";
            status = kExitRunFailed;
        }
        signals.cancel();
        hurryTelemetry(io, options.tools.telemetry);
    };
    if (http) {
        const std::string address =
            http->address.find(':') == std::string::npos ? http->address : "[" + http->address + "]";
        // The token line first: a client that waits for the address finds the token already written.
        http->onListening = [address, count = registry->size(), token](std::uint16_t port) {
            if (token && !token->warning.empty()) {
                std::cerr << token->warning;
            }
            std::cerr << authLine(token, kMcpServeTokenVariable, "call these tools") << "reagent: serving "
                      << count << " tools over MCP, listening on http://" << address << ":" << port
                      << "/mcp\n";
        };
        asio::co_spawn(io, mcp::serveHttp(server, *http), asio::bind_cancellation_slot(stop.slot(), done));
    } else {
        std::cerr << "reagent: serving " << registry->size() << " tools over MCP on stdio\n";
        asio::co_spawn(io, mcp::serveStdio(server), asio::bind_cancellation_slot(stop.slot(), done));
    }
    io.run();
    return status;
}

}  // namespace

int mcpServeCommand(asio::io_context& io, const ServeOptions& given) {
    ServeOptions options = given;
    return runTraced(io, options.traceFile, options.tools, "", [&] { return serveMcp(io, options); });
}

}  // namespace reagent::cli
