#include "mcp_command.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_telemetry.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/loopback_authorizer.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "terminal_text.hpp"
#include "trace.hpp"

extern char** environ;

namespace reagent::cli {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Where the CLI keeps OAuth tokens: $REAGENT_OAUTH_DIR, else $XDG_CONFIG_HOME/reagent/oauth, else
// ~/.config/reagent/oauth. One file per server name and URL, so that a server whose URL changed never
// receives the tokens of another.
std::string tokenFile(const mcp::ServerConfig& server) {
    std::string dir;
    if (const char* own = std::getenv("REAGENT_OAUTH_DIR"); own != nullptr && *own != '\0') {
        dir = own;
    } else if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
        dir = std::string(xdg) + "/reagent/oauth";
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        dir = std::string(home) + "/.config/reagent/oauth";
    } else {
        return {};
    }
    std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a of the URL: stable across runs and builds
    for (const char c : server.url) {
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(hash));
    return dir + "/" + server.name + "-" + suffix + ".json";
}

// Opens `url` with the command in $BROWSER (the usual convention), in the background: a shell runs it
// detached from our stdio and exits at once.
void openBrowser(const std::string& url) {
    const char* browser = std::getenv("BROWSER");
    if (browser == nullptr || *browser == '\0') {
        return;
    }
    const char* argv[] = {"/bin/sh", "-c",        "$BROWSER \"$1\" </dev/null >/dev/null 2>&1 &",
                          "sh",      url.c_str(), nullptr};
    pid_t pid = 0;
    if (::posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char* const*>(argv), environ) == 0) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
}

}  // namespace

void useTerminalAuthorization(mcp::ServerConfig& server) {
    mcp::OAuthSettings& oauth = *server.oauth;
    if (!oauth.authorize) {
        oauth.authorize = mcp::loopbackAuthorizer([](const mcp::AuthorizationRequest& request) {
            std::cerr << "MCP server '" << oneLine(request.server)
                      << "' needs your authorization. Open this link in a browser:\n  " << request.url
                      << "\n(waiting for the browser to return to " << request.redirectUri << ")\n";
            openBrowser(request.url);
        });
    }
    if (const std::string file = tokenFile(server); !file.empty()) {
        oauth.store = mcp::makeFileOAuthStore(file);
    }
}

expected<std::vector<mcp::ServerConfig>, std::string> readMcpConfig(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail("cannot read the MCP configuration '" + path + "': " + std::strerror(errno));
    }
    std::stringstream text;
    text << in.rdbuf();
    auto document = parseUntrustedJson(text.str());
    if (!document) {
        return fail("the MCP configuration '" + path + "' is not valid JSON (" + document.error().message +
                    ")");
    }
    auto servers = mcp::parseServers(*document);
    if (!servers) {
        return fail("the MCP configuration '" + path + "': " + servers.error().message);
    }
    if (servers->empty()) {
        return fail("the MCP configuration '" + path +
                    "' names no server (expected {\"mcpServers\": {...}})");
    }
    for (mcp::ServerConfig& server : *servers) {
        if (server.oauth) {
            useTerminalAuthorization(server);
        }
    }
    return std::move(*servers);
}

namespace {

std::string logText(const json& data) {
    return data.is_string() ? data.get<std::string>() : data.dump();
}

mcp::ClientOptions quietOptions(const std::string& server, std::shared_ptr<telemetry::Telemetry> telemetry) {
    mcp::ClientOptions options;
    options.telemetry = std::move(telemetry);
    options.onLog = [server](const mcp::LogMessage& message) {
        std::cerr << "  mcp " << oneLine(server) << " [" << oneLine(message.level)
                  << "]: " << oneLine(logText(message.data)) << "\n";
    };
    return options;
}

json toolJson(const std::string& server, const mcp::ToolInfo& tool) {
    json entry{{"name", server + "/" + tool.name},
               {"description", tool.description},
               {"inputSchema", tool.inputSchema}};
    json hints = json::object();
    const auto& a = tool.annotations;
    for (const auto& [key, value] :
         {std::pair{"readOnlyHint", a.readOnlyHint}, std::pair{"destructiveHint", a.destructiveHint},
          std::pair{"idempotentHint", a.idempotentHint}, std::pair{"openWorldHint", a.openWorldHint}}) {
        if (value) {
            hints[key] = *value;
        }
    }
    if (!hints.empty()) {
        entry["annotations"] = std::move(hints);
    }
    return entry;
}

Task<int> listTools(std::vector<mcp::ServerConfig> servers, McpOptions options) {
    json all = json::array();
    int failures = 0;
    for (mcp::ServerConfig& server : servers) {
        if (!options.server.empty() && server.name != options.server) {
            continue;
        }
        const std::string name = server.name;
        auto connecting = mcp::connectAny(server, quietOptions(name, options.telemetry));
        auto client = co_await std::move(connecting);
        if (!client) {
            std::cerr << "reagent: " << oneLine(client.error().message, 2000) << "\n";
            ++failures;
            continue;
        }
        auto tools = co_await (*client)->listTools();
        co_await (*client)->close();
        if (!tools) {
            std::cerr << "reagent: " << oneLine(tools.error().message, 2000) << "\n";
            ++failures;
            continue;
        }
        if (!options.json) {
            std::cout << name << " (" << oneLine((*client)->server().implementation.name) << " "
                      << oneLine((*client)->server().implementation.version) << ", protocol "
                      << (*client)->server().protocolVersion << "): " << tools->size() << " tool"
                      << (tools->size() == 1 ? "" : "s") << "\n";
        }
        for (const mcp::ToolInfo& tool : *tools) {
            if (options.json) {
                all.push_back(toolJson(name, tool));
            } else {
                std::cout << "  " << oneLine(name + "/" + tool.name) << "  " << oneLine(tool.description, 100)
                          << "\n";
            }
        }
    }
    if (options.json) {
        std::cout << dumpJson(nlohmann::ordered_json(all), 2) << "\n";
    }
    co_return failures == 0 ? kExitSuccess : kExitRunFailed;
}

Task<int> callTool(std::vector<mcp::ServerConfig> servers, McpOptions options) {
    const std::size_t slash = options.tool.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == options.tool.size()) {
        std::cerr << "reagent: name the tool as SERVER/TOOL (got '" << oneLine(options.tool) << "')\n";
        co_return kExitUsage;
    }
    const std::string serverName = options.tool.substr(0, slash);
    const std::string toolName = options.tool.substr(slash + 1);
    const json arguments =
        options.arguments.empty() ? json::object() : parseUntrustedJson(options.arguments).value_or(json());
    if (!arguments.is_object()) {
        std::cerr << "reagent: the arguments must be a JSON object, like '{\"message\": \"hi\"}'\n";
        co_return kExitUsage;
    }
    auto server =
        std::find_if(servers.begin(), servers.end(), [&](const auto& s) { return s.name == serverName; });
    if (server == servers.end()) {
        std::string names;
        for (const auto& s : servers) {
            names += (names.empty() ? "" : ", ") + s.name;
        }
        std::cerr << "reagent: no MCP server named '" << oneLine(serverName) << "' in " << options.configPath
                  << " (servers: " << names << ")\n";
        co_return kExitUsage;
    }
    auto connecting = mcp::connectAny(*server, quietOptions(serverName, options.telemetry));
    auto client = co_await std::move(connecting);
    if (!client) {
        std::cerr << "reagent: " << oneLine(client.error().message, 2000) << "\n";
        co_return kExitRunFailed;
    }
    mcp::CallOptions call;
    call.onProgress = [&](const mcp::Progress& p) {
        std::cerr << "  progress " << p.progress;
        if (p.total) {
            std::cerr << "/" << *p.total;
        }
        if (!p.message.empty()) {
            std::cerr << " " << oneLine(p.message);
        }
        std::cerr << "\n";
    };
    auto calling = (*client)->callTool(toolName, std::move(arguments), std::move(call));
    auto result = co_await std::move(calling);
    co_await (*client)->close();
    if (!result) {
        std::cerr << "reagent: " << oneLine(result.error().describe(), 2000) << "\n";
        co_return kExitRunFailed;
    }
    if (options.json) {
        nlohmann::ordered_json out;
        out["text"] = result->text;
        out["isError"] = result->isError;
        out["content"] = result->content;
        out["structuredContent"] = result->structuredContent;
        std::cout << dumpJson(out, 2) << "\n";
    } else {
        std::cout << terminalSafe(result->text, true) << "\n";
    }
    if (result->isError) {
        std::cerr << "reagent: the tool reported an error\n";
        co_return kExitRunFailed;
    }
    co_return kExitSuccess;
}

Task<int> runMcp(McpOptions options) {
    auto servers = readMcpConfig(options.configPath);
    if (!servers) {
        std::cerr << "reagent: " << servers.error() << "\n";
        co_return kExitUsage;
    }
    if (options.action == "tools") {
        auto listing = listTools(std::move(*servers), std::move(options));
        co_return co_await std::move(listing);
    }
    auto calling = callTool(std::move(*servers), std::move(options));
    co_return co_await std::move(calling);
}

}  // namespace

int mcpCommand(asio::io_context& io, const McpOptions& given) {
    McpOptions options = given;
    auto telemetry = openTelemetry(io, options.traceFile);
    if (!telemetry) {
        std::cerr << "reagent: " << telemetry.error() << "\n";
        return kExitUsage;
    }
    options.telemetry = *telemetry;
    asio::cancellation_signal cancel;
    asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
        if (!ec) {
            std::cerr << "\nreagent: cancelling\n";
            cancel.emit(asio::cancellation_type::terminal);
        }
    });
    int status = kExitRunFailed;
    // Checked: a cancelled call still closes its session (the server is stopped and reaped).
    asio::co_spawn(io, withCheckedCancellation(runMcp(options)),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr error, int value) {
                       status = error ? kExitRunFailed : value;
                       signals.cancel();
                       hurryTelemetry(io, options.telemetry);
                   }));
    io.run();
    closeTelemetry(io, options.telemetry);
    return status;
}

}  // namespace reagent::cli
