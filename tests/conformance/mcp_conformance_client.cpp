// The client under test for the official MCP conformance suite (@modelcontextprotocol/conformance): the
// runner starts a scenario's server, then runs this program with the server's URL as its last argument
// and the scenario's name in MCP_CONFORMANCE_SCENARIO. It does what the scenario asks with the public
// `reagent::mcp::Client` over streamable-http and exits 0; the runner judges what its server saw.

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "reagent/mcp/remote_transports.hpp"

namespace {

namespace mcp = reagent::mcp;
using nlohmann::json;
using reagent::Task;

// Accepts every elicitation, with the requested schema's defaults as the answer (SEP-1034).
Task<reagent::expected<json, mcp::RpcError>> acceptWithDefaults(json params) {
    json result = {{"action", "accept"}, {"content", json::object()}};
    co_return mcp::fillElicitationDefaults(params.value("requestedSchema", json::object()),
                                           std::move(result));
}

// The authorization step of the auth scenarios: their authorization servers approve at once and answer
// the authorization URL with a redirect to ours, carrying the code; read it without following it.
Task<reagent::expected<std::string, mcp::McpError>> readRedirect(mcp::AuthorizationRequest request) {
    reagent::http::HttpClient http;
    reagent::http::HttpRequest get;
    get.url = request.url;
    auto response = co_await http.send(std::move(get));
    if (!response) {
        co_return reagent::unexpected(mcp::McpError{mcp::McpErrc::unauthorized, response.error().message});
    }
    const auto location = response->headers.find("Location");
    if (response->status / 100 != 3 || !location) {
        co_return reagent::unexpected(
            mcp::McpError{mcp::McpErrc::unauthorized,
                          "the authorization endpoint answered " + std::to_string(response->status)});
    }
    co_return std::string(*location);
}

// OAuth as the auth scenarios need it: a metadata-document URL for the ones that support it, and the
// pre-registered client the runner passes in MCP_CONFORMANCE_CONTEXT.
mcp::OAuthSettings oauthSettings() {
    mcp::OAuthSettings oauth;
    oauth.clientName = "reagent-conformance-client";
    oauth.clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
    oauth.authorize = readRedirect;
    if (const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT")) {
        const json values = json::parse(context, nullptr, false);
        if (values.is_object()) {
            oauth.clientId = values.value("client_id", "");
            oauth.clientSecret = values.value("client_secret", "");
            oauth.privateKeyPem = values.value("private_key_pem", "");
            oauth.signingAlgorithm = values.value("signing_algorithm", "ES256");
        }
    }
    return oauth;
}

// The tools a scenario's server offers, and the arguments each scenario calls them with.
json argumentsFor(const std::string& tool) {
    if (tool == "add_numbers") {
        return {{"a", 5}, {"b", 3}};
    }
    return json::object();
}

bool scenarioTool(const std::string& tool) {
    return tool == "add_numbers" || tool == "test_client_elicitation_defaults" ||
           tool == "test_reconnection" || tool == "test-tool" || tool == "test_headers" ||
           tool == "my-hyphenated-tool" || tool.starts_with("test_mrtr_");
}

// Reads every resource and gets every prompt the server lists (the header scenarios check each request).
Task<int> readResourcesAndPrompts(mcp::Client& client) {
    int status = 0;
    auto resources = co_await client.request("resources/list", json::object());
    if (!resources) {
        std::cerr << "resources/list: " << resources.error().describe() << "\n";
        co_return 1;
    }
    for (const json& resource : resources->value("resources", json::array())) {
        json params = json::object();
        params["uri"] = resource.value("uri", "");
        auto read = co_await client.request("resources/read", std::move(params));
        if (!read) {
            std::cerr << "resources/read: " << read.error().describe() << "\n";
            status = 1;
        }
    }
    auto prompts = co_await client.request("prompts/list", json::object());
    if (!prompts) {
        std::cerr << "prompts/list: " << prompts.error().describe() << "\n";
        co_return 1;
    }
    for (const json& prompt : prompts->value("prompts", json::array())) {
        json params = json::object();
        params["name"] = prompt.value("name", "");
        auto got = co_await client.request("prompts/get", std::move(params));
        if (!got) {
            std::cerr << "prompts/get: " << got.error().describe() << "\n";
            status = 1;
        }
    }
    co_return status;
}

// The header scenarios: the calls MCP_CONFORMANCE_CONTEXT names (exact arguments, http-custom-headers),
// or every tool the client kept, with "test" for each required string (http-invalid-tool-headers: the
// tools with invalid x-mcp-header annotations must have been left out of the list).
Task<int> callListed(mcp::Client& client, const std::vector<mcp::ToolInfo>& tools,
                     const std::string& scenario) {
    std::vector<std::pair<std::string, json>> calls;
    if (const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT"); context != nullptr) {
        const json parsed = json::parse(context, nullptr, false);
        if (parsed.is_object() && parsed.contains("toolCalls") && parsed["toolCalls"].is_array()) {
            for (const json& call : parsed["toolCalls"]) {
                calls.emplace_back(call.value("name", ""), call.value("arguments", json::object()));
            }
        }
    }
    if (scenario == "http-invalid-tool-headers") {
        for (const auto& tool : tools) {
            json arguments = json::object();
            for (const json& name : tool.inputSchema.value("required", json::array())) {
                const json type =
                    tool.inputSchema["properties"][name.get<std::string>()].value("type", json());
                if (type == "string") {
                    arguments[name.get<std::string>()] = "test";
                }
            }
            calls.emplace_back(tool.name, std::move(arguments));
        }
    }
    int status = 0;
    for (auto& [name, arguments] : calls) {
        const mcp::CallOptions options;
        auto result = co_await client.callTool(name, std::move(arguments), options);
        if (!result) {
            std::cerr << name << ": " << result.error().describe() << "\n";
            status = 1;
        } else {
            std::cerr << name << " -> " << result->text << "\n";
        }
    }
    co_return status;
}

Task<int> run(std::string url, std::string scenario) {
    mcp::ServerConfig config;
    config.name = "conformance";
    config.transport = mcp::TransportKind::streamable_http;
    config.url = url;
    config.requestTimeout = std::chrono::seconds(20);
    config.connectTimeout = std::chrono::seconds(10);
    config.maxReconnects = 0;
    config.oauth = oauthSettings();
    // The runner names the revision the scenario runs at: 2026-07-28 is spoken after a server/discover
    // probe (as against any server), the earlier ones through the initialize handshake.
    const char* revision = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION");
    config.era = revision != nullptr && std::string_view(revision) == mcp::kModernProtocolVersion
                     ? mcp::ProtocolEra::automatic
                     : mcp::ProtocolEra::legacy;

    mcp::ClientOptions options;
    options.clientInfo = {"reagent-conformance-client", "0.1.0", {}};
    // The multi-round scenario asks its questions through elicitation too (input_required results).
    if (scenario.find("elicitation") != std::string::npos || scenario == "sep-2322-client-request-state") {
        options.elicitation = acceptWithDefaults;
    }
    options.onProblem = [](const mcp::McpError& problem) {
        std::cerr << "problem: " << problem.describe() << "\n";
    };

    auto connected = co_await mcp::connectAny(config, options);
    if (!connected) {
        std::cerr << "connect: " << connected.error().describe() << "\n";
        co_return 1;
    }
    auto client = *connected;
    std::cerr << "connected to " << client->server().implementation.name << " (protocol "
              << client->server().protocolVersion << ")\n";
    int status = 0;
    if (scenario != "initialize") {
        auto tools = co_await client->listTools();
        if (!tools) {
            std::cerr << "tools/list: " << tools.error().describe() << "\n";
            status = 1;
        } else {
            for (const auto& tool : *tools) {
                if (!scenarioTool(tool.name)) {
                    continue;
                }
                const mcp::CallOptions callOptions;
                auto result = co_await client->callTool(tool.name, argumentsFor(tool.name), callOptions);
                if (!result) {
                    std::cerr << tool.name << ": " << result.error().describe() << "\n";
                    status = 1;
                } else {
                    std::cerr << tool.name << " -> " << result->text << "\n";
                }
            }
        }
        if (scenario == "http-standard-headers") {
            const int read = co_await readResourcesAndPrompts(*client);
            status = std::max(status, read);
        }
        if (tools) {
            const int called = co_await callListed(*client, *tools, scenario);
            status = std::max(status, called);
        }
    }
    co_await client->close();
    co_return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp_conformance_client <server url>\n";
        return 2;
    }
    const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
    boost::asio::io_context io;
    int status = 1;
    boost::asio::co_spawn(io, run(argv[argc - 1], scenario != nullptr ? scenario : ""),
                          [&status](std::exception_ptr error, int code) {
                              if (error) {
                                  try {
                                      std::rethrow_exception(error);
                                  } catch (const std::exception& e) {
                                      std::cerr << "failed: " << e.what() << "\n";
                                  }
                                  return;
                              }
                              status = code;
                          });
    io.run();
    return status;
}
