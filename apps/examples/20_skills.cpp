// 20 — Agent Skills: instructions packaged in a folder, loaded when the model needs them.
//
// A skill is a folder with a SKILL.md: YAML front matter naming it and saying what it is for, then the
// instructions, and any files they mention (references, scripts, templates). `withSkills` offers the skills
// through one tool, `skill`: the model sees every skill's name and description up front, and loads a
// skill's instructions (and later its files) only when a task calls for it, so a hundred skills cost a
// hundred lines of the tool's description, not a hundred documents in every request.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

namespace {

// The scripted model: it loads the skill that fits, reads the file the skill points to, then answers in
// the skill's format.
expected<llm::ModelReply, llm::ProviderError> writer(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    const llm::Message& last = request.messages.back();
    if (last.role == llm::Role::user) {
        reply.toolCalls.push_back({"call_1", "skill", json{{"name", "release-notes"}}});
    } else if (last.text.find("# Skill: release-notes") != std::string::npos) {
        reply.toolCalls.push_back(
            {"call_2", "skill", json{{"name", "release-notes"}, {"file", "references/format.md"}}});
    } else {
        reply.text = "## 2.1.0\n### Added\n- Skills\n";
    }
    return reply;
}

}  // namespace

int main() {
    const auto library = std::filesystem::temp_directory_path() / "reagent-example-skills";
    std::filesystem::remove_all(library);
    examples::writeFile(
        library / "release-notes" / "SKILL.md",
        "---\n"
        "name: release-notes\n"
        "description: Writes release notes from a list of changes. Use when asked for release notes or a "
        "changelog entry.\n"
        "---\n"
        "# Release notes\n\n"
        "1. Read references/format.md for the format.\n"
        "2. Group the changes under Added, Changed and Fixed.\n");
    examples::writeFile(
        library / "release-notes" / "references" / "format.md",
        "Headings: `## VERSION`, then `### Added` / `### Changed` / `### Fixed`; one line per change.\n");

    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::respond(writer)).loop(true);
    auto agent = Agent::create().withProvider(model).withSkills({library}).build();
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 1;
    }
    const agent::RunResult result =
        examples::runTask(agent->run("Release notes for 2.1.0: we added skills."));
    std::cout << result.output;

    // Up front the model saw one line per skill; the instructions and the file came when it asked.
    const auto& first = model->requests().front();
    std::string offered;
    for (const auto& tool : first.tools) {
        if (tool.name == "skill") {
            offered = tool.description;
        }
    }
    std::cout << "\nThe skill tool's description:\n" << offered << "\n";
    examples::check(result.success(), "the run succeeded");
    examples::check(offered.find("- release-notes: Writes release notes") != std::string::npos,
                    "the skill was offered by its description");
    examples::check(model->requests().size() == 3,
                    "the skill and its file were loaded, then the answer came");
    examples::check(model->requests()[2].messages.back().text.find("### Added") != std::string::npos,
                    "the skill's file reached the model");
    std::filesystem::remove_all(library);
    return 0;
}
