// The CLI's built-in workspace tools: what `tools --workspace` lists, and a run whose model (the loopback
// provider peer) writes, reads and edits files, with approvals refused without a terminal unless --yes.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_process.hpp"
#include "provider_test_support.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::runCli;

namespace {

std::vector<std::string> toolNames(const std::string& listing) {
    std::vector<std::string> names;
    for (const auto& tool : json::parse(listing)) {
        names.push_back(tool["name"]);
    }
    return names;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A model that writes notes.txt, reads it back, then answers.
json writeThenReadScript() {
    using namespace reagent::test;
    const json write =
        openAiToolCall("file-write", R"({"path":"notes.txt","content":"from the agent\n"})", "c1");
    const json read = openAiToolCall("file-read", R"({"path":"notes.txt"})", "c2");
    const json first{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({write})}};
    const json second{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({read})}};
    const json done{{"role", "assistant"}, {"content", "Done."}};
    return {{"responses",
             {{{"body", openAiReplyBody(first, "tool_calls")}},
              {{"body", openAiReplyBody(second, "tool_calls")}},
              {{"body", openAiReplyBody(done, "stop")}}}}};
}

}  // namespace

TEST_CASE("reagent tools --workspace lists the built-in tools and --read-only hides the mutating ones",
          "[cli][builtins]") {
    reagent::test::TempDir dir;
    auto all = runCli({"tools", "--workspace", dir.path.string(), "--json"});
    REQUIRE(all.status == 0);
    const auto names = toolNames(all.out);
    for (const char* tool :
         {"file-read", "file-write", "file-edit", "ls", "glob", "grep", "code-execute", "shell-execute",
          "git-cli", "gh-cli", "gws-cli", "http-get", "web-search", "crypto-price"}) {
        CHECK(has(names, tool));
    }
    auto readOnly = runCli({"tools", "--workspace", dir.path.string(), "--read-only", "--json"});
    REQUIRE(readOnly.status == 0);
    const auto fewer = toolNames(readOnly.out);
    CHECK(has(fewer, "file-read"));
    CHECK(has(fewer, "grep"));
    for (const char* tool : {"file-write", "file-edit", "shell-execute", "git-cli"}) {
        CHECK_FALSE(has(fewer, tool));
    }
    auto plain = runCli({"tools", "--json"});
    CHECK_FALSE(has(toolNames(plain.out), "file-read"));
    auto missing = runCli({"tools", "--workspace", (dir.path / "absent").string()});
    CHECK(missing.status == 2);
}

TEST_CASE("reagent run --workspace writes and reads files with approval from --yes", "[cli][builtins]") {
    reagent::test::TempDir dir;
    reagent::test::ProviderPeer peer(writeThenReadScript());
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto run = runCli({"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--workspace",
                       dir.path.string(), "--yes", "--json", "take a note"},
                      std::string());
    INFO(run.err);
    REQUIRE(run.status == 0);
    const auto result = json::parse(run.out);
    REQUIRE(result["toolCalls"].size() == 2);
    CHECK(result["toolCalls"][0]["name"] == "file-write");
    CHECK(result["toolCalls"][1]["output"].get<std::string>().find("from the agent") != std::string::npos);
    CHECK(readFile(dir.path / "notes.txt") == "from the agent\n");
}

TEST_CASE("reagent run --workspace refuses approvals when stdin is not a terminal", "[cli][builtins]") {
    reagent::test::TempDir dir;
    reagent::test::ProviderPeer peer(writeThenReadScript());
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto run = runCli({"run", "--provider", "openai", "--base-url", peer.url("/v1"), "--workspace",
                       dir.path.string(), "--json", "take a note"},
                      std::string());
    INFO(run.err);
    REQUIRE(run.status == 0);
    CHECK(run.err.find("file-write needs approval and stdin is not a terminal") != std::string::npos);
    const auto result = json::parse(run.out);
    CHECK(result["toolCalls"][0]["error"]["code"] == "approval_denied");
    CHECK_FALSE(std::filesystem::exists(dir.path / "notes.txt"));
}
