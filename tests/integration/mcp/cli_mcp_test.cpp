// `reagent run --mcp-config`, `reagent mcp tools` and `reagent mcp call`: the real binary, real MCP servers,
// the model played by the loopback provider peer.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <reagent/reagent.hpp>
#include <regex>
#include <set>
#include <thread>

#include "cli_process.hpp"
#include "mcp_peers.hpp"
#include "media_fixtures.hpp"
#include "node_peer.hpp"
#include "peer_process.hpp"
#include "provider_test_support.hpp"
#include "reagent/a2a/remote_agent_tool.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/core/run_to_end.hpp"
#include "run_coro.hpp"
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

// tests/peers/mcp/sdk2_server.mjs (the official SDK v2 server): servers of MCP 2026-07-28 only, which refuse
// the 2025 handshake.
const std::string kSdk2Server = std::string(REAGENT_MCP_PEERS_DIR) + "/sdk2_server.mjs";

// An mcpServers file with the 2026-only SDK v2 server over stdio ("modern") and the one over streamable
// HTTP at `url` ("remote").
std::string writeModernConfig(const reagent::test::TempDir& dir, const std::string& url) {
    const json servers{{"modern", {{"command", REAGENT_NODE}, {"args", {kSdk2Server, "stdio", "reject"}}}},
                       {"remote", {{"url", url}, {"oauth", false}}}};
    const std::string path = (dir.path / "modern.json").string();
    std::ofstream(path) << json{{"mcpServers", servers}}.dump(2);
    return path;
}

// The line of `reagent mcp tools` that starts with `prefix`, or "".
std::string lineStarting(const std::string& text, const std::string& prefix) {
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        if (text.compare(start, prefix.size(), prefix) == 0) {
            return text.substr(start, end - start);
        }
        start = end + 1;
    }
    return "";
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
    CHECK(tools.size() == 13);  // every tool of tests/peers/mcp_fault_server.py
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

TEST_CASE("reagent mcp tools lists the tools of servers of MCP 2026-07-28 only, over stdio and HTTP",
          "[mcp][cli][era]") {
    reagent::test::NodePeer http(kSdk2Server, {"http", "reject"});
    reagent::test::TempDir dir;
    const std::string config = writeModernConfig(dir, http.url("/mcp"));
    auto listed = runCli({"mcp", "tools", "--mcp-config", config});
    INFO(listed.out << listed.err);
    CHECK(listed.status == 0);
    for (const std::string server : {"modern", "remote"}) {
        CHECK(lineStarting(listed.out, server + " (") ==
              server + " (sdk2-peer 2.4.0, protocol 2026-07-28): 3 tools");
        for (const std::string tool : {"echo", "add", "slow"}) {
            CHECK(lineStarting(listed.out, "  " + server + "/" + tool + "  ") != "");
        }
    }
    auto json = runCli({"mcp", "tools", "--mcp-config", config, "--server", "remote", "--json"});
    REQUIRE(json.status == 0);
    const auto tools = nlohmann::json::parse(json.out);
    REQUIRE(tools.is_array());
    REQUIRE(tools.size() == 3);
    CHECK(tools[1]["name"] == "remote/add");
    CHECK(tools[1]["inputSchema"]["properties"].contains("a"));
}

TEST_CASE("reagent mcp call calls the tools of servers of MCP 2026-07-28 only", "[mcp][cli][era]") {
    reagent::test::NodePeer http(kSdk2Server, {"http", "reject"});
    reagent::test::TempDir dir;
    const std::string config = writeModernConfig(dir, http.url("/mcp"));
    for (const std::string server : {"modern", "remote"}) {
        auto sum = runCli({"mcp", "call", server + "/add", R"({"a":40,"b":2})", "--mcp-config", config});
        INFO(server << ": " << sum.err);
        CHECK(sum.status == 0);
        CHECK(sum.out == "42\n");
        auto echoed = runCli(
            {"mcp", "call", server + "/echo", R"({"text":"grüße from the cli"})", "--mcp-config", config});
        CHECK(echoed.status == 0);
        CHECK(echoed.out == "echo: grüße from the cli\n");
        // The server's refusal of bad arguments is the tool's error: status 1.
        auto refused = runCli({"mcp", "call", server + "/add", R"({"a":"forty"})", "--mcp-config", config});
        CHECK(refused.status == 1);
    }
}

TEST_CASE("reagent run --mcp-config lets the model call a tool of a server of MCP 2026-07-28 only",
          "[mcp][cli][era]") {
    using namespace reagent::test;
    NodePeer http(kSdk2Server, {"http", "reject"});
    const json stdioCall = openAiToolCall("modern_add", R"({"a":19,"b":23})", "call_1");
    const json httpCall = openAiToolCall("remote_echo", R"({"text":"relayed by the agent"})", "call_2");
    const json first{
        {"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({stdioCall, httpCall})}};
    const json second{{"role", "assistant"}, {"content", "The servers answered."}};
    const json script{
        {"responses",
         {{{"body", openAiReplyBody(first, "tool_calls")}}, {{"body", openAiReplyBody(second, "stop")}}}}};
    ProviderPeer peer(script);
    TempDir dir;
    const std::string config = writeModernConfig(dir, http.url("/mcp"));
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto run = runCli({"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--mcp-config", config,
                       "--json", "add and echo through MCP"});
    INFO(run.err);
    REQUIRE(run.status == 0);
    const auto result = json::parse(run.out);
    CHECK(result["output"] == "The servers answered.");
    REQUIRE(result["toolCalls"].size() == 2);
    CHECK(result["toolCalls"][0]["name"] == "modern/add");
    CHECK(result["toolCalls"][0]["output"] == "42");
    CHECK(result["toolCalls"][1]["name"] == "remote/echo");
    CHECK(result["toolCalls"][1]["output"] == "echo: relayed by the agent");
    // The model was offered both servers' tools, schemas whole, and got the results back.
    const auto requests = peer.requests();
    REQUIRE(requests.size() == 2);
    const auto body = json::parse(requests[0]["body"].get<std::string>());
    int offered = 0;
    for (const auto& tool : body["tools"]) {
        const auto& function = tool["function"];
        if (function["name"] == "modern_add" || function["name"] == "remote_add") {
            offered += function["parameters"]["properties"].contains("b") ? 1 : 0;
        }
    }
    CHECK(offered == 2);
    const auto answered = json::parse(requests[1]["body"].get<std::string>());
    std::string toolMessages;
    for (const auto& message : answered["messages"]) {
        if (message["role"] == "tool") {
            toolMessages += message["content"].dump();
        }
    }
    CHECK(toolMessages.find("42") != std::string::npos);
    CHECK(toolMessages.find("echo: relayed by the agent") != std::string::npos);
}

TEST_CASE("an image read by reagent's own MCP server reaches the model as an image part",
          "[mcp][cli][attachments]") {
    // reagent run → the loopback OpenAI peer as the model; its tool call goes to `reagent mcp serve
    // --workspace` over stdio, whose file-read returns the PNG as MCP image content; the client gives it to
    // the agent, which sends it to the model in the next request.
    using namespace reagent::test;
    TempDir workspace;
    const std::string png = tinyPng();
    std::ofstream(workspace.file("dot.png"), std::ios::binary) << png;
    const json call = openAiToolCall("ws_file-read", R"({"path":"dot.png"})");
    const json first{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}};
    const json second{{"role", "assistant"}, {"content", "A single pixel."}};
    ProviderPeer peer(json{
        {"responses",
         {{{"body", openAiReplyBody(first, "tool_calls")}}, {{"body", openAiReplyBody(second, "stop")}}}}});
    TempDir dir;
    const std::string config = (dir.path / "mcp.json").string();
    std::ofstream(config)
        << json{{"mcpServers",
                 {{"ws",
                   {{"command", REAGENT_CLI_PATH},
                    {"args", {"mcp", "serve", "--workspace", workspace.path.string(), "--read-only"}}}}}}}
               .dump();
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto run = runCli({"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--mcp-config", config,
                       "--json", "What is in dot.png?"});
    INFO(run.err);
    REQUIRE(run.status == 0);
    CHECK(json::parse(run.out)["output"] == "A single pixel.");
    const auto requests = peer.requests();
    REQUIRE(requests.size() == 2);
    const json body = json::parse(requests[1]["body"].get<std::string>());
    const json& messages = body["messages"];
    // The tool message names the image; a user message after it carries it.
    const json& tool = messages[messages.size() - 2];
    CHECK(tool["role"] == "tool");
    CHECK(tool["content"].get<std::string>().find("[image image/png") != std::string::npos);
    const json& carrier = messages.back();
    CHECK(carrier["role"] == "user");
    REQUIRE(carrier["content"].is_array());
    CHECK(carrier["content"][1]["image_url"]["url"] == "data:image/png;base64," + reagent::base64Encode(png));
}

namespace {

// Every span in an OTLP/JSON lines file (`--trace-file`).
std::vector<json> spansInFile(const std::string& path) {
    std::vector<json> spans;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        const json request = json::parse(line);
        if (!request.contains("resourceSpans")) {
            continue;  // a metrics line
        }
        for (const json& span : request["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
            spans.push_back(span);
        }
    }
    return spans;
}

const json* spanNamed(const std::vector<json>& spans, const std::string& name) {
    for (const json& span : spans) {
        if (span["name"] == name) {
            return &span;
        }
    }
    return nullptr;
}

// The attribute keys and string values, and the metric names, of OTLP/JSON requests (`--trace-file` lines),
// into `names` and `values`, for the check against the semantic conventions.
void collectNames(const json& attributes, std::set<std::string>& names,
                  std::map<std::string, std::set<std::string>>& values) {
    for (const json& attribute : attributes) {
        const std::string key = attribute["key"];
        names.insert(key);
        if (attribute["value"].contains("stringValue")) {
            values[key].insert(attribute["value"]["stringValue"].get<std::string>());
        }
    }
}

void collectFileNames(const std::string& path, std::set<std::string>& names,
                      std::map<std::string, std::set<std::string>>& values) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        const json request = json::parse(line);
        if (request.contains("resourceSpans")) {
            for (const json& span : request["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
                collectNames(span.value("attributes", json::array()), names, values);
            }
        }
        if (request.contains("resourceMetrics")) {
            for (const json& metric : request["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
                names.insert(metric["name"].get<std::string>());
                for (const json& point : metric["histogram"]["dataPoints"]) {
                    collectNames(point.value("attributes", json::array()), names, values);
                }
            }
        }
    }
}

// An mcpServers file in `dir` with one server, "ws": `reagent mcp serve` on `workspace`, read-only, writing
// its spans to `traceFile`.
std::string writeTracedServeConfig(const reagent::test::TempDir& dir, const reagent::test::TempDir& workspace,
                                   const std::string& traceFile) {
    const std::string config = (dir.path / "mcp.json").string();
    const json args{"mcp",         "serve",        "--workspace", workspace.path.string(),
                    "--read-only", "--trace-file", traceFile};
    std::ofstream(config)
        << json{{"mcpServers", {{"ws", {{"command", REAGENT_CLI_PATH}, {"args", args}}}}}}.dump();
    return config;
}

// What tests/peers/otel/semconv_check.mjs says of `names` and `values`: the names (those of reagent's own
// `reagent.*` aside) and enumerated values that OpenTelemetry's pinned semantic conventions do not define.
json semconvVerdict(const std::set<std::string>& names,
                    const std::map<std::string, std::set<std::string>>& values) {
    using namespace std::chrono_literals;
    json input{{"names", json::array()}, {"values", json::object()}};
    for (const auto& name : names) {
        if (name.rfind("reagent.", 0) != 0) {
            input["names"].push_back(name);
        }
    }
    for (const auto& [key, seen] : values) {
        input["values"][key] = seen;
    }
    reagent::SubprocessOptions check;
    check.program = REAGENT_NODE;
    check.args = {REAGENT_SEMCONV_CHECK};
    reagent::RunLimits limits;
    limits.input = input.dump();
    limits.deadline = std::chrono::steady_clock::now() + 30s;
    auto checked = reagent::test::runCoro(reagent::runToEnd(check, limits));
    REQUIRE(checked);
    INFO(checked->stderrText);
    REQUIRE(checked->exitCode == 0);
    return json::parse(checked->stdoutText);
}

}  // namespace

TEST_CASE("a parent agent, its remote A2A agent and that agent's MCP server trace as one tree",
          "[mcp][cli][a2a][telemetry]") {
    // Three processes: this test's agent calls a remote agent (`reagent serve --a2a`, played by the
    // loopback OpenAI peer), whose model calls file-read of `reagent mcp serve` over stdio. The two
    // servers write their spans to trace files; the parent keeps its own in memory.
    using namespace reagent::test;
    using namespace std::chrono_literals;
    TempDir workspace;
    std::ofstream(workspace.file("note.txt")) << "three processes";
    const json call = openAiToolCall("ws_file-read", R"({"path":"note.txt"})");
    const json first{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}};
    const json second{{"role", "assistant"}, {"content", "The note says: three processes."}};
    ProviderPeer peer(json{
        {"responses",
         {{{"body", openAiReplyBody(first, "tool_calls")}}, {{"body", openAiReplyBody(second, "stop")}}}}});
    TempDir dir;
    const std::string serverTrace = (dir.path / "a2a.jsonl").string();
    const std::string mcpTrace = (dir.path / "mcp.jsonl").string();
    const std::string config = writeTracedServeConfig(dir, workspace, mcpTrace);
    CliProcess server({"serve", "--a2a", "--port", "0", "--no-auth", "--provider", "openai", "--base-url",
                       peer.url("/v1"), "--mcp-config", config, "--trace-file", serverTrace},
                      std::nullopt, {"OPENAI_API_KEY=test-key"});
    const std::string started = server.readErrUntil("Ctrl-C stops", 30s);
    std::smatch match;
    INFO(started);
    REQUIRE(std::regex_search(started, match, std::regex(R"(http://127\.0\.0\.1:(\d+))")));

    auto sink = std::make_shared<reagent::telemetry::InMemorySpanSink>();
    auto telemetry =
        std::make_shared<reagent::telemetry::Telemetry>(reagent::telemetry::SamplerConfig{}, sink);
    auto remote = reagent::a2a::remoteAgentTool("reader", "http://127.0.0.1:" + match[1].str());
    REQUIRE(remote);
    auto provider = std::make_shared<reagent::llm::ScriptedProvider>();
    reagent::llm::ModelReply delegate;
    delegate.toolCalls = {reagent::llm::ToolCall{"c1", "reader", json{{"message", "Read note.txt"}}}};
    provider->then(reagent::llm::ScriptedTurn::reply(std::move(delegate)))
        .then(reagent::llm::ScriptedTurn::text("It says three processes."));
    auto agent = reagent::agent::Agent::create()
                     .withName("parent")
                     .withProvider(provider)
                     .withTool(std::move(*remote))
                     .withTelemetry(telemetry)
                     .build();
    REQUIRE(agent);
    const auto result = runCoro(agent->run("What does the note say?"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    server.signal(SIGTERM);
    const auto stopped = server.wait();
    INFO(stopped.err);
    CHECK(stopped.status == 0);

    const auto parentSpans = sink->spans();
    const auto parentCall = std::find_if(parentSpans.begin(), parentSpans.end(),
                                         [](const auto& span) { return span.name == "execute_tool reader"; });
    REQUIRE(parentCall != parentSpans.end());
    const std::string traceId = parentCall->context.traceId.hex();

    const auto served = spansInFile(serverTrace);
    std::string servedNames;
    for (const json& span : served) {
        servedNames += span["name"].get<std::string>() + "; ";
    }
    INFO("the A2A server's spans: " << servedNames);
    INFO("the model's requests: " << peer.requests().size());
    const json* post = spanNamed(served, "POST /a2a/jsonrpc");
    REQUIRE(post != nullptr);
    CHECK((*post)["traceId"] == traceId);
    CHECK((*post)["parentSpanId"] == parentCall->context.spanId.hex());  // the A2A request's traceparent
    const json* remoteRun = spanNamed(served, "invoke_agent reagent");
    REQUIRE(remoteRun != nullptr);
    CHECK((*remoteRun)["parentSpanId"] == (*post)["spanId"]);
    const json* remoteCall = spanNamed(served, "execute_tool ws/file-read");
    REQUIRE(remoteCall != nullptr);
    CHECK((*remoteCall)["parentSpanId"] == (*remoteRun)["spanId"]);

    // The MCP server writes its file as it exits, after the A2A server closed its stdin.
    std::vector<json> mcpSpans;
    for (const auto deadline = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(50ms)) {
        mcpSpans = spansInFile(mcpTrace);
        if (spanNamed(mcpSpans, "tools/call file-read") != nullptr) {
            break;
        }
    }
    const json* toolCall = spanNamed(mcpSpans, "tools/call file-read");
    REQUIRE(toolCall != nullptr);
    CHECK((*toolCall)["traceId"] == traceId);
    CHECK((*toolCall)["parentSpanId"] == (*remoteCall)["spanId"]);  // the MCP request's _meta.traceparent
    CHECK((*toolCall)["kind"] == 2);                                // SERVER

    // Every name the three processes used (their own `reagent.*` aside) is one OpenTelemetry's pinned
    // semantic conventions define, and every enumerated value one of theirs.
    std::set<std::string> names;
    std::map<std::string, std::set<std::string>> values;
    collectFileNames(serverTrace, names, values);
    collectFileNames(mcpTrace, names, values);
    for (const auto& span : parentSpans) {
        for (const auto& attribute : span.attributes) {
            names.insert(attribute.key);
            if (const auto* text = std::get_if<std::string>(&attribute.value)) {
                values[attribute.key].insert(*text);
            }
        }
    }
    for (const auto& metric : telemetry->collectMetrics()) {
        names.insert(metric.name);
    }
    CHECK(names.count("gen_ai.client.operation.duration") == 1);
    CHECK(names.count("mcp.server.operation.duration") == 1);
    CHECK(names.count("http.server.request.duration") == 1);
    CHECK(names.count("http.response.status_code") == 1);
    const json verdict = semconvVerdict(names, values);
    CHECK(verdict["unknownNames"] == json::array());
    // Values the conventions do not enumerate, as they allow for what is newer or custom: the parent's
    // scripted model, and the methods of MCP 2026-07-28 the client opened with (the probe, the listen).
    CHECK(verdict["unknownValues"] ==
          json::array({"gen_ai.system=scripted", "mcp.method.name=server/discover",
                       "mcp.method.name=subscriptions/listen"}));
}

TEST_CASE("reagent mcp call traces its request as a client span that the server continues",
          "[mcp][cli][telemetry]") {
    using namespace std::chrono_literals;
    reagent::test::TempDir workspace;
    std::ofstream(workspace.file("note.txt")) << "traced";
    reagent::test::TempDir dir;
    const std::string clientTrace = (dir.path / "client.jsonl").string();
    const std::string serverTrace = (dir.path / "server.jsonl").string();
    const std::string config = writeTracedServeConfig(dir, workspace, serverTrace);
    auto called = runCli({"mcp", "call", "ws/file-read", R"({"path":"note.txt"})", "--mcp-config", config,
                          "--trace-file", clientTrace});
    INFO(called.err);
    REQUIRE(called.status == 0);
    CHECK(called.out.find("traced") != std::string::npos);
    auto missing = runCli({"mcp", "call", "ws/file-read", R"({"path":"absent.txt"})", "--mcp-config", config,
                           "--trace-file", clientTrace});
    CHECK(missing.status == 1);

    const auto sent = spansInFile(clientTrace);
    std::vector<const json*> calls;
    for (const json& span : sent) {
        if (span["name"] == "tools/call file-read") {
            calls.push_back(&span);
        }
    }
    REQUIRE(calls.size() == 2);
    const json& call = *calls[0];
    CHECK(call["kind"] == 3);  // CLIENT
    CHECK_FALSE(call.contains("parentSpanId"));
    CHECK(calls[1]->dump().find("tool_error") != std::string::npos);  // the tool's own failure

    std::vector<json> served;
    for (const auto deadline = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(50ms)) {
        served = spansInFile(serverTrace);
        if (served.size() >= 2) {
            break;
        }
    }
    const json* servedCall = spanNamed(served, "tools/call file-read");
    REQUIRE(servedCall != nullptr);
    CHECK((*servedCall)["traceId"] == call["traceId"]);
    CHECK((*servedCall)["parentSpanId"] == call["spanId"]);  // the client's span, sent in _meta

    std::set<std::string> names;
    std::map<std::string, std::set<std::string>> values;
    collectFileNames(clientTrace, names, values);
    CHECK(names.count("mcp.client.operation.duration") == 1);
    CHECK(names.count("mcp.method.name") == 1);
    CHECK(names.count("jsonrpc.request.id") == 1);
    const json verdict = semconvVerdict(names, values);
    CHECK(verdict["unknownNames"] == json::array());
    // `tool_error` is the MCP conventions' own value for a result with isError, which the registry's
    // `error.type` leaves open.
    CHECK(verdict["unknownValues"] == json::array({"error.type=tool_error"}));
}

TEST_CASE("reagent run with 200 MCP tools finds the tool it needs and sends a fraction of the schemas",
          "[mcp][cli][find]") {
    using namespace reagent::test;
    const json find = openAiToolCall("find", R"({"query":"create jira issue","kinds":["tools"]})");
    const json create = openAiToolCall("many_jira_create", R"({"title":"Login fails"})");
    const json answer{{"role", "assistant"}, {"content", "Opened."}};
    const auto turn = [](const json& call) {
        return json{{"body", openAiReplyBody(json{{"role", "assistant"},
                                                  {"content", nullptr},
                                                  {"tool_calls", json::array({call})}},
                                             "tool_calls")}};
    };
    TempDir dir;
    const std::string config = (dir.path / "many.json").string();
    std::ofstream(config) << json{{"mcpServers",
                                   {{"many",
                                     {{"command", REAGENT_NODE},
                                      {"args",
                                       {std::string(REAGENT_MCP_PEERS_DIR) + "/many_tools_server.mjs"}}}}}}}
                                 .dump();
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    const auto names = [](const json& body) {
        std::vector<std::string> out;
        for (const auto& tool : body["tools"]) {
            out.push_back(tool["function"]["name"].get<std::string>());
        }
        return out;
    };

    ProviderPeer peer(
        json{{"responses", {turn(find), turn(create), {{"body", openAiReplyBody(answer, "stop")}}}}});
    auto run = runCli({"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--mcp-config", config,
                       "--json", "open a Jira issue 'Login fails'"});
    INFO(run.err);
    REQUIRE(run.status == 0);
    const auto result = json::parse(run.out);
    CHECK(result["output"] == "Opened.");
    REQUIRE(result["toolCalls"].size() == 2);
    CHECK(result["toolCalls"][1]["name"] == "many/jira_create");
    const auto requests = peer.requests();
    REQUIRE(requests.size() == 3);
    const auto first = json::parse(requests[0]["body"].get<std::string>());
    const auto second = json::parse(requests[1]["body"].get<std::string>());
    const auto offeredFirst = names(first);
    CHECK(std::find(offeredFirst.begin(), offeredFirst.end(), "find") != offeredFirst.end());
    CHECK(std::find(offeredFirst.begin(), offeredFirst.end(), "many_jira_create") == offeredFirst.end());
    const auto offeredSecond = names(second);
    CHECK(std::find(offeredSecond.begin(), offeredSecond.end(), "many_jira_create") != offeredSecond.end());

    ProviderPeer everyTool(json{{"responses", {{{"body", openAiReplyBody(answer, "stop")}}}}});
    auto off = runCli({"run", "--provider", "openai", "--base-url", everyTool.url("/v1"), "--mcp-config",
                       config, "--tool-search", "off", "--json", "open a Jira issue 'Login fails'"});
    REQUIRE(off.status == 0);
    const auto full = json::parse(everyTool.requests()[0]["body"].get<std::string>());
    CHECK(full["tools"].size() > 200);
    const std::size_t onDemandBytes = requests[1]["body"].get<std::string>().size();
    const std::size_t fullBytes = everyTool.requests()[0]["body"].get<std::string>().size();
    std::printf(
        "OpenAI request body with 200 MCP tools: %zu bytes with every tool, %zu with tools on demand "
        "(after find)\n",
        fullBytes, onDemandBytes);
    CHECK(onDemandBytes * 4 < fullBytes);
}
