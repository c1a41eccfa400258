// The `reagent` CLI against the provider peer: `reagent run --provider openai` streams the answer.

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "provider_test_support.hpp"

using namespace reagent::test;

#ifdef REAGENT_CLI_PATH

namespace {

struct Ran {
    int status = -1;
    std::string output;
};

// Runs `command` through the shell, stdout and stderr together.
Ran runShell(const std::string& command) {
    Ran ran;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) {
        ran.output += buffer.data();
    }
    const int status = ::pclose(pipe);
    ran.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return ran;
}

const std::string kCleanEnv =
    "env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u OLLAMA_HOST -u http_proxy -u HTTP_PROXY -u all_proxy "
    "-u ALL_PROXY ";

}  // namespace

TEST_CASE("reagent run --provider openai prints the streamed answer", "[integration][providers][cli]") {
    ProviderPeer peer(
        json{{"rules", {{{"match", ""}, {"response", streamResponse(fixture("openai/text.sse"))}}}}});
    const auto ran =
        runShell(kCleanEnv + "OPENAI_API_KEY=test-key OPENAI_BASE_URL=" + peer.url("/v1") + " " +
                 REAGENT_CLI_PATH + " run --provider openai --model gpt-test 'What is the capital?'");
    INFO(ran.output);
    CHECK(ran.status == 0);
    // The trace shows the turn's text as it streamed, then the answer on stdout.
    CHECK(ran.output.find("model turn 1: Hello! The capital of France is Paris.") != std::string::npos);
    CHECK(ran.output.find("no provider configured") == std::string::npos);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() >= 1);
    const json body = json::parse(recorded[0]["body"].get<std::string>());
    CHECK(body["model"] == "gpt-test");
    CHECK(body["stream"] == true);
}

TEST_CASE("reagent run --provider openai without a key is a usage error naming the variable",
          "[integration][providers][cli]") {
    const auto ran =
        runShell(kCleanEnv + "-u OPENAI_API_KEY " + REAGENT_CLI_PATH + " run --provider openai hi");
    INFO(ran.output);
    CHECK(ran.status == 2);
    CHECK(ran.output.find("OPENAI_API_KEY") != std::string::npos);
}

#endif
