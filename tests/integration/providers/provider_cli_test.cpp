// The `reagent` CLI against the provider peer: `reagent run --provider openai` streams the answer; with
// `--skills` the model loads a skill and reads its file.

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "provider_test_support.hpp"
#include "temp_dir.hpp"

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

// A streamed OpenAI reply calling `tool` with `arguments`.
json streamedCall(const std::string& tool, const std::string& arguments, const std::string& id) {
    const json delta = {{"tool_calls",
                         {{{"index", 0},
                           {"id", id},
                           {"type", "function"},
                           {"function", {{"name", tool}, {"arguments", arguments}}}}}}};
    return streamResponse(openAiChunk(delta) + openAiChunk(json::object(), "tool_calls") +
                          "data: [DONE]\n\n");
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

TEST_CASE("reagent run --skills: the model loads a skill, and its instructions and file reach it",
          "[integration][providers][cli][skills]") {
    const TempDir dir;
    const std::filesystem::path skill = dir.path / "skills" / "release-notes";
    std::filesystem::create_directories(skill / "references");
    std::ofstream(skill / "SKILL.md")
        << "---\nname: release-notes\ndescription: Writes release notes. Use for "
           "changelogs.\n---\nGroup the changes under Added and Fixed; read "
           "references/format.md first.\n";
    std::ofstream(skill / "references" / "format.md") << "One line per change, past tense.\n";
    const auto callSkill = [](const std::string& arguments, const std::string& id) {
        return streamedCall("skill", arguments, id);
    };
    const std::string answer = openAiChunk(json{{"content", "## 2.1.0\nAdded skills."}}) +
                               openAiChunk(json::object(), "stop") + "data: [DONE]\n\n";
    ProviderPeer peer(json{{"responses",
                            {callSkill(R"({"name":"release-notes"})", "call_1"),
                             callSkill(R"({"name":"release-notes","file":"references/format.md"})", "call_2"),
                             streamResponse(answer)}}});
    const auto ran = runShell(kCleanEnv + "OPENAI_API_KEY=test-key OPENAI_BASE_URL=" + peer.url("/v1") + " " +
                              REAGENT_CLI_PATH + " run --provider openai --model gpt-test --skills " +
                              (dir.path / "skills").string() + " 'Release notes for 2.1.0'");
    INFO(ran.output);
    CHECK(ran.status == 0);
    CHECK(ran.output.find("Added skills.") != std::string::npos);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 3);
    const json first = json::parse(recorded[0]["body"].get<std::string>());
    bool offered = false;
    for (const json& tool : first["tools"]) {
        offered = offered || (tool["function"]["name"] == "skill" &&
                              tool["function"]["description"].get<std::string>().find(
                                  "- release-notes: Writes release notes.") != std::string::npos);
    }
    CHECK(offered);
    // The instructions reached the model with the second request, the file with the third.
    CHECK(recorded[1]["body"].get<std::string>().find("Group the changes under Added and Fixed") !=
          std::string::npos);
    CHECK(recorded[2]["body"].get<std::string>().find("One line per change, past tense.") !=
          std::string::npos);

    // A malformed skill stops the run before any request, naming the file.
    std::ofstream(skill / "SKILL.md") << "---\nname: release-notes\n---\n";
    const auto refused = runShell(kCleanEnv + "OPENAI_API_KEY=test-key OPENAI_BASE_URL=" + peer.url("/v1") +
                                  " " + REAGENT_CLI_PATH + " run --provider openai --skills " +
                                  (dir.path / "skills").string() + " 'again'");
    CHECK(refused.status != 0);
    CHECK(refused.output.find("release-notes/SKILL.md") != std::string::npos);
    CHECK(refused.output.find("no 'description'") != std::string::npos);
    CHECK(peer.requests().size() == 3);
}

TEST_CASE("reagent run --docs: the model finds a passage of an indexed file and cites it",
          "[integration][providers][cli][docs]") {
    const TempDir dir;
    std::filesystem::create_directories(dir.path / "kb");
    std::ofstream(dir.path / "kb" / "oncall.md")
        << "# On-call\n\n## Handover\n\nThe handover is on Monday at 10:00 in the incident channel.\n";
    const std::string index = (dir.path / "kb.db").string();
    const auto ingested = runShell(std::string(REAGENT_CLI_PATH) + " docs ingest " +
                                   (dir.path / "kb").string() + " --index " + index);
    INFO(ingested.output);
    REQUIRE(ingested.status == 0);
    const std::string answer = openAiChunk(json{{"content", "Monday at 10:00 [kb/oncall.md]."}}) +
                               openAiChunk(json::object(), "stop") + "data: [DONE]\n\n";
    ProviderPeer peer(
        json{{"responses",
              {streamedCall("find", R"({"query":"on-call handover","kinds":["documents"]})", "call_1"),
               streamResponse(answer)}}});
    const auto ran = runShell(kCleanEnv + "OPENAI_API_KEY=test-key OPENAI_BASE_URL=" + peer.url("/v1") + " " +
                              REAGENT_CLI_PATH + " run --provider openai --model gpt-test --docs " + index +
                              " 'When is the on-call handover?'");
    INFO(ran.output);
    CHECK(ran.status == 0);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    const json first = json::parse(recorded[0]["body"].get<std::string>());
    bool findOffered = false;
    for (const json& tool : first["tools"]) {
        findOffered = findOffered || tool["function"]["name"] == "find";
    }
    CHECK(findOffered);
    // The passage reached the model with its citation: the file, its lines and its heading.
    const std::string second = recorded[1]["body"].get<std::string>();
    CHECK(second.find("oncall.md:3-5 (On-call > Handover)") != std::string::npos);
    CHECK(second.find("The handover is on Monday at 10:00") != std::string::npos);

    const auto missing =
        runShell(kCleanEnv + REAGENT_CLI_PATH + " run --docs " + (dir.path / "none.db").string() + " hi");
    CHECK(missing.status == 2);
}

#endif
