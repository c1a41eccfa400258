// `reagent run --mcp-config`, `reagent mcp tools` and `reagent mcp call`: the real binary, real MCP servers,
// the model played by the loopback provider peer.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_process.hpp"
#include "mcp_peers.hpp"
#include "node_peer.hpp"
#include "peer_process.hpp"
#include "provider_test_support.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::runCli;

namespace {

// An mcpServers file with server-everything and the fault server.
std::string writeConfig(const reagent::test::TempDir& dir, const json& extra = json::object()) {
    json servers{
        {"everything",
         {{"command", REAGENT_NODE},
          {"args",
           {reagent::test::mcpModule("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}}}},
        {"fault",
         {{"command", REAGENT_PYTHON3},
          {"args", {std::string(REAGENT_PEERS_DIR) + "/mcp_fault_server.py"}}}}};
    for (const auto& [name, entry] : extra.items()) {
        servers[name] = entry;
    }
    const std::string path = (dir.path / "mcp.json").string();
    std::ofstream(path) << json{{"mcpServers", servers}}.dump(2);
    return path;
}

}  // namespace

TEST_CASE("reagent mcp tools lists every server's tools as SERVER/TOOL", "[mcp][cli]") {
    reagent::test::TempDir dir;
    const std::string config = writeConfig(dir);
    auto listed = runCli({"mcp", "tools", "--mcp-config", config});
    CHECK(listed.status == 0);
    CHECK(listed.out.find("everything/echo") != std::string::npos);
    CHECK(listed.out.find("fault/crash_once") != std::string::npos);
    auto json = runCli({"mcp", "tools", "--mcp-config", config, "--server", "fault", "--json"});
    REQUIRE(json.status == 0);
    const auto tools = nlohmann::json::parse(json.out);
    REQUIRE(tools.is_array());
    CHECK(tools[0]["name"] == "fault/echo");
    CHECK(tools[0]["annotations"]["readOnlyHint"] == true);
    CHECK(tools.size() == 12);
}

TEST_CASE("reagent mcp call calls one tool and reports errors with the right status", "[mcp][cli]") {
    reagent::test::TempDir dir;
    const std::string config = writeConfig(dir);
    auto echoed =
        runCli({"mcp", "call", "everything/echo", R"({"message":"from the cli"})", "--mcp-config", config});
    CHECK(echoed.status == 0);
    CHECK(echoed.out == "Echo: from the cli\n");

    auto progress = runCli({"mcp", "call", "everything/trigger-long-running-operation",
                            R"({"duration":0.2,"steps":2})", "--mcp-config", config});
    CHECK(progress.status == 0);
    CHECK(progress.err.find("progress 2/2") != std::string::npos);

    auto toolError = runCli({"mcp", "call", "everything/echo", "{}", "--mcp-config", config});
    CHECK(toolError.status == 1);
    CHECK(toolError.out.find("Invalid arguments") != std::string::npos);

    auto badJson = runCli({"mcp", "call", "everything/echo", "{not json", "--mcp-config", config});
    CHECK(badJson.status == 2);
    auto noServer = runCli({"mcp", "call", "nowhere/echo", "{}", "--mcp-config", config});
    CHECK(noServer.status == 2);
    CHECK(noServer.err.find("no MCP server named 'nowhere'") != std::string::npos);
    auto noSlash = runCli({"mcp", "call", "echo", "{}", "--mcp-config", config});
    CHECK(noSlash.status == 2);
    auto missingFile = runCli({"mcp", "tools", "--mcp-config", (dir.path / "absent.json").string()});
    CHECK(missingFile.status == 2);
    CHECK(missingFile.err.find("cannot read the MCP configuration") != std::string::npos);
    const std::string badType = writeConfig(
        dir,
        nlohmann::json::parse(R"({"odd": {"url": "http://127.0.0.1:1/mcp", "type": "carrier-pigeon"}})"));
    auto unknownType = runCli({"mcp", "tools", "--mcp-config", badType});
    CHECK(unknownType.status == 2);
    CHECK(unknownType.err.find("MCP server 'odd': unknown transport type 'carrier-pigeon'") !=
          std::string::npos);
}

TEST_CASE("reagent run --mcp-config lets the model call an MCP tool end to end", "[mcp][cli]") {
    using namespace reagent::test;
    const json call = openAiToolCall("everything_echo", R"({"message":"relayed by the agent"})");
    const json first{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}};
    const json second{{"role", "assistant"}, {"content", "The server echoed it."}};
    const json script{
        {"responses",
         {{{"body", openAiReplyBody(first, "tool_calls")}}, {{"body", openAiReplyBody(second, "stop")}}}}};
    ProviderPeer peer(script);
    TempDir dir;
    const std::string config = writeConfig(dir);
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto run = runCli({"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--mcp-config", config,
                       "--json", "echo something through MCP"});
    INFO(run.err);
    REQUIRE(run.status == 0);
    const auto result = json::parse(run.out);
    CHECK(result["output"] == "The server echoed it.");
    REQUIRE(result["toolCalls"].size() == 1);
    CHECK(result["toolCalls"][0]["name"] == "everything/echo");
    CHECK(result["toolCalls"][0]["output"] == "Echo: relayed by the agent");
    // The model was offered the server's tools under provider-safe names, schema whole.
    const auto requests = peer.requests();
    const auto body = json::parse(requests[0]["body"].get<std::string>());
    bool offered = false;
    for (const auto& tool : body["tools"]) {
        if (tool["function"]["name"] == "everything_echo") {
            offered = tool["function"]["parameters"]["required"][0] == "message";
        }
    }
    CHECK(offered);

    const std::string broken =
        writeConfig(dir, json::parse(R"({"broken": {"command": "reagent-no-such-server"}})"));
    auto failed = runCli({"run", "--mcp-config", broken, "hello"});
    CHECK(failed.status == 1);
    CHECK(failed.err.find("MCP server 'broken'") != std::string::npos);
}

TEST_CASE("reagent mcp call reaches servers over streamable HTTP and SSE and WebSocket", "[mcp][cli]") {
    auto http = reagent::test::startEverything("streamableHttp");
    auto sse = reagent::test::startEverything("sse");
    auto ws = reagent::test::startWebSocketBridge();
    reagent::test::TempDir dir;
    const json servers{{"http", {{"url", http.url("/mcp")}}},
                       {"legacy", {{"type", "sse"}, {"url", sse.url("/sse")}}},
                       {"socket", {{"url", "ws://127.0.0.1:" + std::to_string(ws.port()) + "/mcp"}}}};
    const std::string config = (dir.path / "remote.json").string();
    std::ofstream(config) << json{{"mcpServers", servers}}.dump();
    for (const char* server : {"http", "legacy", "socket"}) {
        auto echoed = runCli({"mcp", "call", std::string(server) + "/echo", R"({"message":"remote"})",
                              "--mcp-config", config});
        INFO(server << ": " << echoed.err);
        CHECK(echoed.status == 0);
        CHECK(echoed.out == "Echo: remote\n");
    }
}

// OAuth through the CLI as a person meets it: the SDK's OAuth-protected example server, the CLI printing
// the link and running $BROWSER, the browser (tests/peers/oauth_browser.py) approved at once and sent
// back to the CLI's loopback listener; the token is kept, so the second run needs no browser.
TEST_CASE("reagent mcp tools authorizes through the browser with OAuth and keeps the token",
          "[mcp][cli][oauth]") {
    reagent::test::TempDir dir;
    reagent::test::NodePeer server(std::string(REAGENT_MCP_PEERS_DIR) + "/oauth_server.mjs", {});
    const std::string browserLog = (dir.path / "browser.log").string();
    ::setenv("BROWSER",
             (std::string(REAGENT_PYTHON3) + " " + REAGENT_PEERS_DIR + "/oauth_browser.py").c_str(), 1);
    ::setenv("OAUTH_BROWSER_LOG", browserLog.c_str(), 1);
    ::setenv("REAGENT_OAUTH_DIR", (dir.path / "tokens").string().c_str(), 1);
    const std::string redirect =
        "http://127.0.0.1:" + std::to_string(reagent::test::unusedPort()) + "/callback";
    const std::string config = (dir.path / "oauth.json").string();
    std::ofstream(config) << json{{"mcpServers",
                                   {{"secured",
                                     {{"url", "http://localhost:" + std::to_string(server.port()) + "/mcp"},
                                      {"oauth",
                                       {{"redirectUri", redirect}, {"clientName", "reagent-cli-test"}}}}}}}}
                                 .dump();

    auto first = runCli({"mcp", "tools", "--mcp-config", config});
    INFO(first.err);
    REQUIRE(first.status == 0);
    CHECK(first.out.find("secured/greet") != std::string::npos);
    CHECK(first.err.find("needs your authorization") != std::string::npos);
    CHECK(first.err.find("code_challenge_method=S256") != std::string::npos);
    std::ifstream log(browserLog);
    std::string visit;
    std::getline(log, visit);
    CHECK(visit.rfind("200 " + redirect + "?code=", 0) == 0);
    CHECK(visit.find("Authorization received") != std::string::npos);
    REQUIRE(std::filesystem::exists(dir.path / "tokens"));
    const auto files = std::distance(std::filesystem::directory_iterator(dir.path / "tokens"), {});
    CHECK(files == 1);

    // The kept token: no second authorization.
    auto second = runCli({"mcp", "call", "secured/greet", R"({"name":"again"})", "--mcp-config", config});
    INFO(second.err);
    CHECK(second.status == 0);
    CHECK(second.out.find("again") != std::string::npos);
    CHECK(second.err.find("needs your authorization") == std::string::npos);

    // Without OAuth the server's refusal is an error that says what to configure.
    std::ofstream(config) << json{
        {"mcpServers",
         {{"secured",
           {{"url", "http://localhost:" + std::to_string(server.port()) + "/mcp"},
            {"oauth", false}}}}}}.dump();
    auto refused = runCli({"mcp", "tools", "--mcp-config", config});
    CHECK(refused.status != 0);
    CHECK(refused.err.find("unauthorized") != std::string::npos);
    CHECK(refused.err.find("ServerConfig::oauth") != std::string::npos);
}

TEST_CASE("reagent run --mcp-config skips a tool whose schema refers to itself, and deep schemas are refused",
          "[mcp][cli]") {
    using namespace reagent::test;
    const json reply{{"role", "assistant"}, {"content", "Nothing to call."}};
    const json script{{"responses", {{{"body", openAiReplyBody(reply, "stop")}}}}};
    ProviderPeer peer(script);
    TempDir dir;
    const std::string peers = std::string(REAGENT_PEERS_DIR) + "/mcp_fault_server.py";
    const std::string config = writeConfig(
        dir, json{{"selfref", {{"command", REAGENT_PYTHON3}, {"args", {peers, "--self-ref-schema"}}}}});
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto run = runCli(
        {"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--mcp-config", config, "hello"});
    INFO(run.err);
    // No crash: the self-referencing tools are skipped with a warning in the trace, the others offered.
    REQUIRE(run.status == 0);
    CHECK(run.out.find("Nothing to call.") != std::string::npos);
    CHECK(run.err.find("tool 'selfref' was not registered") != std::string::npos);
    CHECK(run.err.find("tool 'cycle' was not registered") != std::string::npos);
    CHECK(run.err.find("invalid_definition") != std::string::npos);
    const auto body = json::parse(peer.requests()[0]["body"].get<std::string>());
    bool offered = false;
    for (const auto& tool : body["tools"]) {
        offered = offered || tool["function"]["name"] == "selfref_echo";
        CHECK(tool["function"]["name"] != "selfref_selfref");
    }
    CHECK(offered);

    // A tool list nested 20,000 deep is refused whole, with the limit named, in bounded output.
    const std::string deep = writeConfig(
        dir, json{{"deep", {{"command", REAGENT_PYTHON3}, {"args", {peers, "--deep-schema", "20000"}}}}});
    auto listed = runCli({"mcp", "tools", "--mcp-config", deep, "--server", "deep", "--json"});
    CHECK(listed.out.size() < 4096);
    CHECK(listed.err.find("deeper than 512") != std::string::npos);
    CHECK(listed.err.size() < 4096);
}
