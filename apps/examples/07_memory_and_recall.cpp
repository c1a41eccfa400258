// 07 — Memory: an oversized tool result reaches the model as a preview, the full text waits in working
// memory for `recall`, a `_transform` (jq) picks out just what is needed, and episodic memory keeps
// every tool result in SQLite for later runs.

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// Stands for a GitHub API call: 30 commits, about 16 KB of JSON.
Task<tools::ToolResult> listCommits(json, tools::ToolContext) {
    json commits = json::array();
    for (int i = 0; i < 30; ++i) {
        commits.push_back(
            {{"sha", std::to_string(4000000 + i) + "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"},
             {"commit", {{"message", "step " + std::to_string(i) + ": " + std::string(400, '.')}}},
             {"author", {{"login", "ada"}}}});
    }
    co_return commits.dump();
}

// Prints what the model read for each tool call of the request.
void showToolMessages(const llm::ModelRequest& request) {
    for (const auto& message : request.messages) {
        if (message.role == llm::Role::tool) {
            std::cout << "--- the model reads (" << message.toolName << "):\n"
                      << message.text.substr(0, 700) << (message.text.size() > 700 ? "\n[...]" : "") << "\n";
        }
    }
}

void run(const std::string& dbPath) {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    // Turn 1: the big call. Turn 2: the same call with a jq transform, plus a recall of the stored result.
    provider->then(llm::ScriptedTurn::toolCall("list_commits", json{{"repo", "acme/reagent"}}));
    provider->then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
        showToolMessages(request);
        llm::ModelReply reply;
        reply.toolCalls.push_back(
            {"t", "list_commits", json{{"repo", "acme/reagent"}, {"_transform", ".[0:3] | map(.sha[0:7])"}}});
        reply.toolCalls.push_back({"r", "recall", json{{"key", "_tool_result_1"}, {"full", true}}});
        return expected<llm::ModelReply, llm::ProviderError>(reply);
    }));
    provider->then(llm::ScriptedTurn::text("The three newest commits are listed above."));

    auto commitsTool = tools::ToolBuilder::create("list_commits")
                           .description("List the commits of a repository")
                           .param("repo", "string", "owner/name")
                           .handler(listCommits)
                           .build();
    agent::MemoryConfig memory;
    memory.path = dbPath;
    auto built = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(commitsTool))
                     .withMemory(memory)
                     .build();
    examples::check(built.has_value(), "the agent builds");
    const agent::Agent& agent = *built;

    const agent::RunResult result = examples::runTask(agent.run("What are the newest commits?"));
    examples::check(result.success(), "the run succeeds");
    examples::check(result.toolCalls[0].memoryKey == "_tool_result_1", "the big result is stored");
    std::cout << "--- transform output: " << *result.toolCalls[1].outcome << "\n";
    examples::check(*result.toolCalls[1].outcome == R"(["4000000","4000001","4000002"])",
                    "jq picked the shas");
    examples::check(result.toolCalls[2].outcome->size() > 10000, "recall returned the full value");

    // Working memory is readable by the program after the run...
    const auto full = agent.workingMemory().read("_tool_result_1");
    std::cout << "--- working memory holds " << full->size() << " bytes under _tool_result_1\n";
    // ... and episodic memory outlives the agent: another agent (or process) can search it.
    auto hits = agent.episodicMemory()->search("step 29", 5);
    examples::check(hits && hits->size() == 2, "both list_commits calls were logged");
    std::cout << "--- episodic memory: " << hits->size() << " episodes mention \"step 29\" in " << dbPath
              << "\n";
}

int main() {
    const auto dir = std::filesystem::temp_directory_path() / "reagent-example-07";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    run((dir / "memory.db").string());
    std::filesystem::remove_all(dir);  // after the agent closed the database
    return 0;
}
