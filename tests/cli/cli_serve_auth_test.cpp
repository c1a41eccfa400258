// `reagent mcp serve --http` and `reagent serve --a2a` as real processes: a bearer token is required by
// default (generated and printed, or from --token-file or the environment), --no-auth serves anyone.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <regex>
#include <string>

#include "cli_process.hpp"
#include "loopback_http.hpp"
#include "temp_dir.hpp"

using reagent::test::CliProcess;
using reagent::test::portOf;
using reagent::test::request;
using reagent::test::TempDir;
using namespace std::chrono_literals;

namespace {

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}})";

std::string tokenOf(const std::string& err) {
    std::smatch match;
    const std::regex pattern(R"(Authorization: Bearer ([A-Za-z0-9_-]+))");
    return std::regex_search(err, match, pattern) ? std::string(match[1]) : std::string();
}

// SIGTERM, then the outcome: the servers stop gracefully with status 0.
reagent::test::CliOutcome stop(CliProcess& server) {
    server.signal(SIGTERM);
    auto outcome = server.wait();
    CHECK(outcome.status == 0);
    return outcome;
}

}  // namespace

TEST_CASE("mcp serve --http requires the bearer token it generated and printed", "[cli][serve][auth]") {
    TempDir workspace;
    CliProcess server({"mcp", "serve", "--workspace", workspace.path.string(), "--http", "127.0.0.1:0"});
    const int port = portOf(server, "/mcp\n");
    const std::string token = tokenOf(server.readErrUntil("/mcp\n", 1s));
    REQUIRE(token.size() == 43);

    const auto anonymous = request(port, "POST", "/mcp", kInitialize);
    CHECK(anonymous.status == 401);
    CHECK(anonymous.head.find("WWW-Authenticate: Bearer") != std::string::npos);
    CHECK(request(port, "POST", "/mcp", kInitialize, "Bearer wrong").status == 401);
    const auto served = request(port, "POST", "/mcp", kInitialize, "Bearer " + token);
    CHECK(served.status == 200);
    CHECK(served.body.find("\"serverInfo\"") != std::string::npos);
    const auto outcome = stop(server);
    // Printed once, at start, and nowhere else (the refusals do not quote it).
    std::size_t count = 0;
    for (auto at = outcome.err.find(token); at != std::string::npos; at = outcome.err.find(token, at + 1)) {
        ++count;
    }
    CHECK(count == 1);
}

TEST_CASE("mcp serve --http takes its token from --token-file or REAGENT_MCP_SERVE_TOKEN",
          "[cli][serve][auth]") {
    TempDir workspace;
    TempDir secrets;
    const std::string file = secrets.file("token");
    std::ofstream(file) << "file-token-123\n";
    ::chmod(file.c_str(), 0600);
    {
        CliProcess server({"mcp", "serve", "--workspace", workspace.path.string(), "--http", "127.0.0.1:0",
                           "--token-file", file});
        const int port = portOf(server, "/mcp\n");
        CHECK(request(port, "POST", "/mcp", kInitialize).status == 401);
        CHECK(request(port, "POST", "/mcp", kInitialize, "Bearer file-token-123").status == 200);
        const auto outcome = stop(server);
        CHECK(outcome.err.find("file-token-123") == std::string::npos);  // a chosen token is not printed
        CHECK(outcome.err.find("--token-file " + file) != std::string::npos);
    }
    {
        CliProcess server({"mcp", "serve", "--workspace", workspace.path.string(), "--http", "127.0.0.1:0"},
                          std::nullopt, {"REAGENT_MCP_SERVE_TOKEN=env-token-456"});
        const int port = portOf(server, "/mcp\n");
        CHECK(request(port, "POST", "/mcp", kInitialize, "Bearer env-token-456").status == 200);
        CHECK(request(port, "POST", "/mcp", kInitialize, "Bearer file-token-123").status == 401);
        const auto outcome = stop(server);
        CHECK(outcome.err.find("env-token-456") == std::string::npos);
    }
    // A token file others can read is served, with a warning.
    ::chmod(file.c_str(), 0644);
    {
        CliProcess server({"mcp", "serve", "--workspace", workspace.path.string(), "--http", "127.0.0.1:0",
                           "--token-file", file});
        (void)portOf(server, "/mcp\n");
        const auto outcome = stop(server);
        CHECK(outcome.err.find("can be read by other users") != std::string::npos);
    }
}

TEST_CASE("mcp serve --http --no-auth serves anyone, bad token options are usage errors",
          "[cli][serve][auth]") {
    TempDir workspace;
    {
        CliProcess server(
            {"mcp", "serve", "--workspace", workspace.path.string(), "--http", "127.0.0.1:0", "--no-auth"});
        const int port = portOf(server, "/mcp\n");
        CHECK(request(port, "POST", "/mcp", kInitialize).status == 200);
        const auto outcome = stop(server);
        CHECK(outcome.err.find("warning: --no-auth") != std::string::npos);
        CHECK(tokenOf(outcome.err).empty());
    }
    TempDir secrets;
    const std::string empty = secrets.file("empty");
    std::ofstream(empty) << "\n";
    const std::string spaced = secrets.file("spaced");
    std::ofstream(spaced) << "two words\n";
    const std::vector<std::vector<std::string>> wrong = {
        {"--token-file", empty},
        {"--token-file", spaced},
        {"--token-file", secrets.file("missing")},
        {"--token-file", empty, "--no-auth"},
    };
    for (const auto& extra : wrong) {
        std::vector<std::string> args = {"mcp",    "serve",      "--workspace", workspace.path.string(),
                                         "--http", "127.0.0.1:0"};
        args.insert(args.end(), extra.begin(), extra.end());
        INFO(extra[1]);
        const auto outcome = reagent::test::runCli(args);
        CHECK(outcome.status == 2);
        CHECK(outcome.err.find("two words") == std::string::npos);  // a file's content is never quoted
    }
}

TEST_CASE("serve --a2a requires its bearer token for the card and the tasks, --no-auth does not",
          "[cli][serve][auth][a2a]") {
    {
        CliProcess server({"serve", "--a2a", "--port", "0", "--provider", "demo"});
        const int port = portOf(server, "Ctrl-C stops");
        const std::string token = tokenOf(server.readErrUntil("Ctrl-C stops", 1s));
        REQUIRE(token.size() == 43);
        const auto anonymous = request(port, "GET", "/.well-known/agent-card.json", "");
        CHECK(anonymous.status == 401);
        CHECK(anonymous.head.find("WWW-Authenticate: Bearer") != std::string::npos);
        const std::string send =
            R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message",)"
            R"("messageId":"m","role":"user","parts":[{"kind":"text","text":"What is 6*7?"}]}}})";
        CHECK(request(port, "POST", "/a2a/jsonrpc", send).status == 401);
        CHECK(request(port, "GET", "/.well-known/agent-card.json", "", "Bearer " + token).status == 200);
        const auto answered = request(port, "POST", "/a2a/jsonrpc", send, "Bearer " + token);
        CHECK(answered.status == 200);
        CHECK(answered.body.find("42") != std::string::npos);
        (void)stop(server);
    }
    {
        CliProcess server({"serve", "--a2a", "--port", "0", "--provider", "demo"}, std::nullopt,
                          {"REAGENT_A2A_SERVE_TOKEN=a2a-env-token"});
        const int port = portOf(server, "Ctrl-C stops");
        CHECK(request(port, "GET", "/.well-known/agent-card.json", "", "Bearer a2a-env-token").status == 200);
        const auto outcome = stop(server);
        CHECK(outcome.err.find("a2a-env-token") == std::string::npos);
    }
    {
        CliProcess server({"serve", "--a2a", "--port", "0", "--provider", "demo", "--no-auth"});
        const int port = portOf(server, "Ctrl-C stops");
        CHECK(request(port, "GET", "/.well-known/agent-card.json", "").status == 200);
        const auto outcome = stop(server);
        CHECK(outcome.err.find("warning: --no-auth") != std::string::npos);
    }
}
