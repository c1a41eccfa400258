// The `skill` tool: the skills' descriptions up front, a skill's instructions and files when asked.

#include <algorithm>
#include <map>
#include <memory>
#include <system_error>

#include "reagent/skills/skill.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "skill_files.hpp"

namespace reagent::skills {

namespace fs = std::filesystem;
using nlohmann::json;
using tools::ToolContext;
using tools::ToolErrc;
using tools::ToolError;
using tools::ToolResult;

namespace {

struct Catalog {
    std::map<std::string, Skill, std::less<>> skills;
    SkillLimits limits;
};

ToolError toToolError(const SkillError& error) {
    const bool theirs = error.code == SkillErrc::outside_skill || error.code == SkillErrc::not_found;
    return ToolError{theirs ? ToolErrc::invalid_arguments : ToolErrc::failed, error.message};
}

// The files of a skill's folder, relative, sorted; hidden ones and SKILL.md left out.
std::string fileList(const Skill& skill, std::size_t limit) {
    std::vector<std::string> files;
    std::size_t more = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(skill.directory, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code typeError;
        if (!name.empty() && name.front() == '.') {
            if (it->is_directory(typeError)) {
                it.disable_recursion_pending();
            }
            continue;
        }
        if (!it->is_regular_file(typeError) || it->path() == skill.file) {
            continue;
        }
        if (files.size() < limit) {
            files.push_back(fs::relative(it->path(), skill.directory, typeError).generic_string());
        } else {
            ++more;
        }
    }
    std::sort(files.begin(), files.end());
    std::string out;
    for (const auto& file : files) {
        out += "- " + file + "\n";
    }
    if (more > 0) {
        out += "- ... and " + std::to_string(more) + " more\n";
    }
    return out;
}

std::string activation(const Skill& skill, const std::string& body, std::size_t listed) {
    std::string out = "# Skill: " + skill.info.name + "\n\nFolder: " + skill.directory.string() + "\n";
    if (!skill.info.compatibility.empty()) {
        out += "Needs: " + skill.info.compatibility + "\n";
    }
    if (!skill.info.allowedTools.empty()) {
        std::string tools;
        for (const auto& tool : skill.info.allowedTools) {
            tools += (tools.empty() ? "" : " ") + tool;
        }
        out += "Tools it means to use: " + tools + "\n";
    }
    out += "\n" + body;
    const std::string files = fileList(skill, listed);
    if (!files.empty()) {
        out +=
            "\n\nFiles of this skill (read one with this tool's `file`; run a script with the shell tool, "
            "by its path under the folder above):\n" +
            files;
    }
    return out;
}

Task<ToolResult> useSkill(std::shared_ptr<const Catalog> catalog, json args, ToolContext) {
    const std::string name = args.value("name", std::string());
    const auto found = catalog->skills.find(name);
    if (found == catalog->skills.end()) {
        std::string names;
        for (const auto& [known, skill] : catalog->skills) {
            names += (names.empty() ? "" : ", ") + known;
        }
        co_return unexpected(
            ToolError{ToolErrc::invalid_arguments, "no skill '" + name + "'; the skills are: " + names});
    }
    const Skill& skill = found->second;
    if (const auto file = args.find("file"); file != args.end() && file->is_string() && !file->empty()) {
        auto path = detail::insideSkill(skill.directory, file->get<std::string>());
        if (!path) {
            co_return unexpected(toToolError(path.error()));
        }
        auto text = detail::readText(*path, catalog->limits.maxFileBytes,
                                     "'" + file->get<std::string>() + "' of skill " + name);
        if (!text) {
            co_return unexpected(toToolError(text.error()));
        }
        co_return std::move(*text);
    }
    // The instructions are read when asked for, as they are now.
    auto text = detail::readText(skill.file, catalog->limits.maxSkillBytes, skill.file.string());
    if (!text) {
        co_return unexpected(toToolError(text.error()));
    }
    auto parsed = parseSkill(*text, skill.file.string());
    if (!parsed) {
        co_return unexpected(toToolError(parsed.error()));
    }
    co_return activation(skill, parsed->body, catalog->limits.maxListedFiles);
}

}  // namespace

expected<tools::Tool, ToolError> skillTool(std::vector<Skill> skills, SkillLimits limits) {
    if (skills.empty()) {
        return unexpected(ToolError{ToolErrc::invalid_definition, "the skill tool needs at least one skill"});
    }
    auto catalog = std::make_shared<Catalog>();
    catalog->limits = limits;
    std::string list;
    std::vector<json> names;
    for (Skill& skill : skills) {
        list += "\n- " + skill.info.name + ": " + skill.info.description;
        names.emplace_back(skill.info.name);
        const std::string name = skill.info.name;
        if (!catalog->skills.emplace(name, std::move(skill)).second) {
            return unexpected(ToolError{ToolErrc::invalid_definition, "two skills are named '" + name + "'"});
        }
    }
    tools::ParamOptions named;
    named.required = true;
    named.enumValues = std::move(names);
    return tools::ToolBuilder::create("skill")
        .description(
            "Load a skill: packaged instructions (and files) for a kind of task. Call it with a "
            "skill's name before doing a task it fits, then follow what it says; call it with `file` "
            "to read one of the skill's files. Skills:" +
            list)
        .param("name", "string", "The skill's name", std::move(named))
        .param("file", "string",
               "A file of the skill to read, relative to its folder (as its instructions name it)")
        .category("skills")
        .action([](const json& args) { return "Loading skill " + args.value("name", std::string()); })
        .handler([catalog](json args, ToolContext context) {
            return useSkill(catalog, std::move(args), std::move(context));
        })
        .build();
}

}  // namespace reagent::skills
