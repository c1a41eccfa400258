#pragma once
/// \file
/// \brief Agent Skills: a folder with a `SKILL.md` (YAML front matter `name` and `description`, then
/// instructions) and the files it refers to. `parseSkill` reads one `SKILL.md`; `loadSkills` finds the
/// skills in folders; `skillTool` offers them to a model, their descriptions up front and their
/// instructions and files when it asks. See docs/skills.md.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/skills/skill_error.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::skills {

/// \brief A skill's front matter, as the Agent Skills specification defines it.
struct SkillInfo {
    /// 1–64 characters: lowercase letters, digits and single hyphens, not first or last. Matches the folder.
    std::string name;
    /// What the skill does and when to use it: 1–1024 characters. What the model reads to choose it.
    std::string description;
    std::string license;
    /// Environment requirements, at most 500 characters; empty when none.
    std::string compatibility;
    /// String keys to string values.
    std::map<std::string, std::string> metadata;
    /// `allowed-tools` (experimental in the specification): the tools the skill means to use. Shown to the
    /// model with the instructions; it approves nothing.
    std::vector<std::string> allowedTools;
};

/// \brief One `SKILL.md` read: its front matter, and its body (the instructions).
struct ParsedSkill {
    SkillInfo info;
    std::string body;
};

/// \brief A skill found on disk.
struct Skill {
    SkillInfo info;
    /// The skill's folder and its `SKILL.md`, absolute.
    std::filesystem::path directory;
    std::filesystem::path file;
};

/// \brief How much of a skill is read.
struct SkillLimits {
    /// Largest `SKILL.md` (default 256 KiB; the specification recommends under 500 lines).
    std::uintmax_t maxSkillBytes = 256U * 1024U;
    /// Largest file of a skill read for the model (default 1 MiB).
    std::uintmax_t maxFileBytes = 1024U * 1024U;
    /// Files of a skill listed when it is loaded (default 200; the rest are counted).
    std::size_t maxListedFiles = 200;
};

/// \brief Reads `text`, the content of the `SKILL.md` at `file` (named in errors): front matter between
/// `---` lines, in the YAML the specification's fields need (plain, quoted and block scalars, a map of
/// strings, a list of strings; other keys are kept out), then the body.
///
/// \par Errors
/// `invalid_skill` naming the file and the line.
[[nodiscard]] expected<ParsedSkill, SkillError> parseSkill(std::string_view text, const std::string& file);

/// \brief The skills in `folders`: each folder holding a `SKILL.md` is a skill, and so is each of its
/// subfolders holding one (other subfolders are passed over). Read in name order; checked whole.
///
/// \par Errors
/// `not_found` for a folder that does not exist; `invalid_skill` (a bad `SKILL.md`, or a `name` that is
/// not its folder's); `duplicate_skill`; `too_large`; `unreadable`. Each names the file.
[[nodiscard]] expected<std::vector<Skill>, SkillError> loadSkills(
    const std::vector<std::filesystem::path>& folders, SkillLimits limits = {});

/// \brief The `skill` tool: its description lists every skill (name and description); called with a
/// `name` it returns the skill's instructions, its folder and the files in it; with a `name` and a `file`
/// (relative to the folder) the file's text. Paths leaving the folder are refused. Scripts are not run by
/// this tool: the agent runs them with its shell tool, by their paths (so they run confined as every
/// command does).
///
/// \par Errors
/// `ToolErrc::invalid_definition` for no skills or two with one name.
[[nodiscard]] expected<tools::Tool, tools::ToolError> skillTool(std::vector<Skill> skills,
                                                                SkillLimits limits = {});

}  // namespace reagent::skills
