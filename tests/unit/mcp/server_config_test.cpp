// The mcpServers format, configuration checks, content as text and elicitation defaults.

#include "reagent/mcp/server_config.hpp"

#include <catch2/catch.hpp>

#include "reagent/mcp/client.hpp"

namespace mcp = reagent::mcp;
using nlohmann::json;

TEST_CASE("parseServers reads the mcpServers format of MCP hosts", "[mcp][config]") {
    const auto document = json::parse(R"({"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"], "env": {"TOKEN": "t"}, "cwd": "/srv"},
        "api": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}, "timeoutMs": 5000},
        "legacy": {"type": "sse", "url": "http://127.0.0.1:3001/sse"},
        "socket": {"url": "ws://127.0.0.1:9000/mcp", "maxReconnects": 0},
        "seedStyle": {"transport": "streamable-http", "endpoint": "http://127.0.0.1:1/mcp"}
    }})");
    auto servers = mcp::parseServers(document);
    REQUIRE(servers);
    REQUIRE(servers->size() == 5);
    const auto& api = (*servers)[0];
    CHECK(api.name == "api");
    CHECK(api.transport == mcp::TransportKind::streamable_http);
    CHECK(api.headers.at("Authorization") == "Bearer x");
    CHECK(api.requestTimeout == std::chrono::milliseconds(5000));
    const auto& fs = (*servers)[1];
    CHECK(fs.transport == mcp::TransportKind::stdio);
    CHECK(fs.command == "npx");
    CHECK(fs.args == std::vector<std::string>{"-y", "server-filesystem", "/tmp"});
    CHECK(fs.env.at("TOKEN") == "t");
    CHECK(fs.cwd == "/srv");
    CHECK((*servers)[2].transport == mcp::TransportKind::sse);
    CHECK((*servers)[3].transport == mcp::TransportKind::streamable_http);  // seedStyle: endpoint
    CHECK((*servers)[4].transport == mcp::TransportKind::websocket);
    CHECK((*servers)[4].maxReconnects == 0);
    CHECK(api.era == mcp::ProtocolEra::automatic);
    auto eras = mcp::parseServers(json::parse(
        R"({"old": {"command": "x", "era": "legacy"}, "new": {"url": "http://h/mcp", "era": "modern"}})"));
    REQUIRE(eras);
    CHECK((*eras)[0].era == mcp::ProtocolEra::modern);
    CHECK((*eras)[1].era == mcp::ProtocolEra::legacy);
    // The bare object (without the mcpServers member) is accepted too.
    CHECK(mcp::parseServers(document.at("mcpServers")));
}

TEST_CASE("parseServers names the server and the member at fault", "[mcp][config]") {
    const auto check = [](const char* text, const char* expected) {
        auto servers = mcp::parseServers(json::parse(text));
        REQUIRE_FALSE(servers);
        CHECK(servers.error().code == mcp::McpErrc::invalid_config);
        INFO(servers.error().message);
        CHECK(servers.error().message.find(expected) != std::string::npos);
    };
    check(R"({"mcpServers": {"a": {}}})", "MCP server 'a': needs `command` (stdio) or `url`");
    check(R"({"mcpServers": {"a": {"command": "x", "url": "http://h"}}})", "has both `command`");
    check(R"({"mcpServers": {"a": {"command": "x", "args": "-y"}}})", "`args` must be an array of strings");
    check(R"({"mcpServers": {"a": {"command": "x", "args": [1]}}})", "`args` must be an array of strings");
    check(R"({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}})", "`env.K` must be a string");
    check(R"({"mcpServers": {"a": {"url": "http://h", "type": "pigeon"}}})",
          "unknown transport type 'pigeon'");
    check(R"({"mcpServers": {"a": {"url": "ftp://h"}}})", "must start with http:// or https://");
    check(R"({"mcpServers": {"a": {"url": "http://h", "type": "websocket"}}})",
          "must start with ws:// or wss://");
    check(R"({"mcpServers": {"a b": {"command": "x"}}})", "may only hold letters");
    check(R"({"mcpServers": {"a": {"command": "x", "timeoutMs": 0}}})",
          "`timeoutMs` must be a positive integer");
    check(R"({"mcpServers": {"a": {"command": "x", "maxReconnects": -1}}})",
          "`maxReconnects` must be an integer");
    check(R"({"mcpServers": {"a": {"command": "x", "era": "2026"}}})",
          "`era` must be \"auto\", \"legacy\" or \"modern\", not \"2026\"");
    check(R"({"mcpServers": {"a": {"type": "sse", "url": "http://h", "era": "modern"}}})",
          "runs over stdio and streamable-http only, not sse");
    check(R"({"mcpServers": []})", "must be an object");
    check(R"([1, 2])", "must be an object");
}

TEST_CASE("validate checks names and transports", "[mcp][config]") {
    mcp::ServerConfig config;
    CHECK_FALSE(mcp::validate(config));  // no name
    config.name = "fs";
    CHECK(mcp::validate(config).error().message.find("needs a `command`") != std::string::npos);
    config.command = "server";
    CHECK(mcp::validate(config));
    config.requestTimeout = std::chrono::milliseconds(0);
    CHECK_FALSE(mcp::validate(config));
    CHECK(mcp::toString(mcp::TransportKind::streamable_http) == "streamable-http");
}

TEST_CASE("contentToText joins text and describes other blocks without their data", "[mcp][content]") {
    const auto content = json::parse(R"([
        {"type": "text", "text": "first"},
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        {"type": "audio", "mimeType": "audio/wav", "data": "AAAA"},
        {"type": "resource", "resource": {"uri": "test://doc", "mimeType": "text/plain", "text": "inside"}},
        {"type": "resource", "resource": {"uri": "test://blob", "mimeType": "image/png", "blob": "AAAAAA=="}},
        {"type": "resource_link", "uri": "demo://x", "name": "X", "mimeType": "text/plain", "description": "a link"},
        {"type": "mystery"}
    ])");
    const std::string text = mcp::contentToText(content);
    CHECK(text ==
          "first\n\n[image image/png, 8 bytes]\n\n[audio audio/wav, 3 bytes]\n\n[resource test://doc "
          "(text/plain)]\n"
          "inside\n\n[binary resource test://blob, image/png, 4 bytes]\n\n[resource link demo://x \"X\", "
          "text/plain: "
          "a link]\n\n[mystery content]");
    CHECK(mcp::contentToText(json::array()).empty());
    CHECK(mcp::contentToText(json("not an array")).empty());
}

TEST_CASE("fillElicitationDefaults completes an accepted answer and leaves others alone",
          "[mcp][elicitation]") {
    const auto schema = json::parse(R"({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5}, "status": {"enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": true}, "email": {"type": "string"}}})");
    auto accepted = mcp::fillElicitationDefaults(
        schema, json::parse(R"({"action": "accept", "content": {"name": "Ada"}})"));
    CHECK(accepted["content"] ==
          json::parse(R"({"name": "Ada", "age": 30, "score": 95.5, "status": "active", "verified": true})"));
    auto noContent = mcp::fillElicitationDefaults(schema, json::parse(R"({"action": "accept"})"));
    CHECK(noContent["content"]["name"] == "John Doe");
    auto declined = mcp::fillElicitationDefaults(schema, json::parse(R"({"action": "decline"})"));
    CHECK_FALSE(declined.contains("content"));
}
