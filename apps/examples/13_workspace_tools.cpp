// 13 — The built-in workspace tools: list, read, write, edit and search files, then undo the changes.
//
// withTools(cfg) with cfg.workspace registers the built-in file tools, confined to that directory: a path
// that climbs out of it (`..`, an absolute path, a link pointing out) is refused. cfg.include picks the
// tools by name. file-write asks the approval handler first; file-write and file-edit record a checkpoint
// of the workspace before they change it (in a shadow git repository outside it), listed in
// RunResult::checkpoints, and agent.rollback(id) puts the files back as they were. cfg.readOnly leaves out
// every tool that changes the workspace.
//
// The workspace is a temporary directory that the example makes and removes. Checkpoints need `git` on
// PATH: without it the example says so and exits with 77, which CTest reports as skipped.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;
namespace fs = std::filesystem;

// A directory of its own under the system's temporary directory, removed with everything in it.
struct TemporaryDirectory {
    fs::path path;
    TemporaryDirectory() {
        std::string pattern = (fs::temp_directory_path() / "reagent-example-13-XXXXXX").string();
        examples::check(::mkdtemp(pattern.data()) != nullptr, "a temporary directory is made");
        path = pattern;
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

std::string readText(const fs::path& file) {
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// 1. The approval handler: file-write requires approval (the other tools used here do not). It sees the
//    validated arguments; here it allows writes to Markdown files only.
Task<bool> approve(tools::ToolCallRequest request, tools::ToolDefinition definition) {
    const std::string path = request.arguments.value("path", "");
    const bool allowed = path.ends_with(".md");
    std::cout << "  approval for " << definition.name << "(" << path
              << "): " << (allowed ? "granted" : "denied") << "\n";
    co_return allowed;
}

// The last turn reads the grep result, as a real model would.
expected<llm::ModelReply, llm::ProviderError> summarise(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.text = "Where 'mode' is set now:\n" + request.messages.back().text;
    return reply;
}

int main() {
    if (std::system("git --version > /dev/null 2>&1") != 0) {
        std::cout << "git is not on PATH: checkpoints need it; skipped\n";
        return 77;
    }

    // 2. The workspace: a temporary directory holding one file.
    const TemporaryDirectory workspace;
    fs::create_directories(workspace.path / "src");
    std::ofstream(workspace.path / "src/app.cfg") << "mode = slow\nretries = 3\n";

    // 3. The model's script: look around, write notes and edit them, try to overwrite the settings (the
    //    handler refuses), edit the setting instead, check. Each turn after the first expects the previous
    //    tool's result in the request, so a wrong result stops the run.
    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::toolCall("ls", json{{"path", "src"}}, "c1"));
    model->then(llm::ScriptedTurn::toolCall("file-read", json{{"path", "src/app.cfg"}}, "c2")
                    .expectLastMessageContains("app.cfg"));
    model->then(llm::ScriptedTurn::toolCall(
                    "file-write", json{{"path", "NOTES.md"}, {"content", "# Notes\nmode was slow\n"}}, "c3")
                    .expectLastMessageContains("mode = slow"));
    model->then(llm::ScriptedTurn::toolCall(
                    "file-edit",
                    json{{"path", "NOTES.md"}, {"searchCode", "was slow"}, {"replaceCode", "is fast"}}, "c4")
                    .expectLastMessageContains("(a new file)"));
    model->then(llm::ScriptedTurn::toolCall("file-write",
                                            json{{"path", "src/app.cfg"}, {"content", "mode = fast\n"}}, "c5")
                    .expectLastMessageContains("replaced 1 occurrence"));
    model->then(
        llm::ScriptedTurn::toolCall(
            "file-edit",
            json{{"path", "src/app.cfg"}, {"searchCode", "mode = slow"}, {"replaceCode", "mode = fast"}},
            "c6")
            .expectLastMessageContains("denied"));
    model->then(
        llm::ScriptedTurn::toolCall("grep", json{{"pattern", "mode"}, {"output_mode", "content"}}, "c7")
            .expectLastMessageContains("replaced 1 occurrence"));
    model->then(llm::ScriptedTurn::respond(summarise).expectLastMessageContains("src/app.cfg:1:mode = fast"));

    // 4. The agent: five built-in tools on the workspace, and the approval handler.
    ToolsConfig config;
    config.workspace = workspace.path.string();
    config.include = std::vector<std::string>{"file-read", "file-write", "file-edit", "grep", "ls"};
    auto agent = reagent::Agent::create()
                     .withName("editor")
                     .withProvider(model)
                     .withTools(config)
                     .withApprovalHandler(approve)
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    const agent::RunResult result = examples::runTask(agent->run("Make the app fast, and keep notes."));
    std::cout << "calls:\n";
    for (const tools::ToolCallRecord& call : result.toolCalls) {
        const std::string text = call.succeeded() ? *call.outcome : call.outcome.error().describe();
        std::cout << "  " << call.name << "(" << call.input.value("path", ".")
                  << "): " << text.substr(0, text.find('\n')) << "\n";
    }
    std::cout << "answer: " << result.output << "\n";

    examples::check(result.success(), "the run answered");
    examples::check(result.toolCalls.size() == 7, "seven tool calls");
    examples::check(!result.toolCalls[4].succeeded() &&
                        result.toolCalls[4].outcome.error().code == tools::ToolErrc::approval_denied,
                    "the handler refused to overwrite the settings file");
    examples::check(readText(workspace.path / "src/app.cfg") == "mode = fast\nretries = 3\n",
                    "the setting was edited");
    examples::check(readText(workspace.path / "NOTES.md") == "# Notes\nmode is fast\n",
                    "the notes were written, then edited");
    examples::check(result.output.find("NOTES.md:2:mode is fast") != std::string::npos,
                    "grep found the new text in both files");

    // 5. The checkpoints: one before each change, in call order, each naming its call.
    for (const agent::CheckpointMark& mark : result.checkpoints) {
        std::cout << "  checkpoint " << mark.id.substr(0, 12) << " before " << mark.toolName << " ("
                  << mark.toolCallId << ")\n";
    }
    examples::check(result.checkpoints.size() == 3 && result.checkpoints[0].toolName == "file-write" &&
                        result.checkpoints[2].toolCallId == "c6",
                    "three checkpoints: the write and the two edits; none for the refused write");

    // 6. Roll back to the first one, taken before the write: the notes are gone, the setting is slow
    //    again. The line returned names a checkpoint that undoes the rollback.
    auto rollingBack = agent->rollback(result.checkpoints[0].id);
    const auto rolled = examples::runTask(std::move(rollingBack));
    examples::check(rolled.has_value(), "the rollback succeeds");
    std::cout << "rollback: " << *rolled << "\n";
    examples::check(readText(workspace.path / "src/app.cfg") == "mode = slow\nretries = 3\n",
                    "the setting is restored");
    examples::check(!fs::exists(workspace.path / "NOTES.md"), "the file written by the run is removed");
    // The conversation as it stood before the model asked for the write, to continue from there.
    const auto before = result.messagesBefore(result.checkpoints[0].id);
    examples::check(before.has_value() && before->size() == 5, "the prompt and the first two calls");

    // 7. Read-only: the tools that change the workspace are left out, and naming one is an error that
    //    build() reports, with a message a person can act on.
    ToolsConfig readOnly;
    readOnly.workspace = workspace.path.string();
    readOnly.readOnly = true;
    readOnly.include = std::vector<std::string>{"file-read", "file-write"};
    auto refused = reagent::Agent::create().withProvider(model).withTools(readOnly).build();
    examples::check(!refused.has_value(), "a write tool in read-only mode is refused at build");
    std::cout << "read-only with file-write: " << refused.error().describe() << "\n";
    examples::check(refused.error().code == agent::AgentErrc::invalid_config &&
                        refused.error().message.find("read-only") != std::string::npos,
                    "the error says why");

    readOnly.include.reset();  // the defaults: with read-only, no tool that writes
    auto reader = reagent::Agent::create().withProvider(model).withTools(readOnly).build();
    examples::check(reader.has_value(), "the read-only agent builds");
    bool writes = false;
    for (const llm::ToolSpec& spec : reader->toolSpecs()) {
        writes = writes || spec.name == "file-write" || spec.name == "file-edit";
    }
    examples::check(!writes, "the read-only agent has no tool that writes");
    return 0;
}
