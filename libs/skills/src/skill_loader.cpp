// `loadSkills`: the skills in folders, each checked, none sharing a name.

#include <algorithm>
#include <map>
#include <system_error>

#include "reagent/skills/skill.hpp"
#include "skill_files.hpp"

namespace reagent::skills {

namespace fs = std::filesystem;

namespace {

// The skill whose SKILL.md is in `directory`.
expected<Skill, SkillError> loadOne(const fs::path& directory, const SkillLimits& limits) {
    Skill skill;
    std::error_code ec;
    skill.directory = fs::absolute(directory, ec).lexically_normal();
    skill.file = skill.directory / "SKILL.md";
    const std::string file = skill.file.string();
    auto text = detail::readText(skill.file, limits.maxSkillBytes, file);
    if (!text) {
        return unexpected(text.error());
    }
    auto parsed = parseSkill(*text, file);
    if (!parsed) {
        return unexpected(parsed.error());
    }
    skill.info = std::move(parsed->info);
    const std::string folder = skill.directory.filename().string();
    if (skill.info.name != folder) {
        return unexpected(SkillError{SkillErrc::invalid_skill, file + ": the name '" + skill.info.name +
                                                                   "' is not its folder's ('" + folder +
                                                                   "'); a skill is named after its folder"});
    }
    return skill;
}

}  // namespace

expected<std::vector<Skill>, SkillError> loadSkills(const std::vector<fs::path>& folders,
                                                    SkillLimits limits) {
    std::vector<Skill> skills;
    std::map<std::string, fs::path> byName;
    const auto add = [&](const fs::path& directory) -> expected<void, SkillError> {
        auto skill = loadOne(directory, limits);
        if (!skill) {
            return unexpected(skill.error());
        }
        const auto [there, added] = byName.emplace(skill->info.name, skill->file);
        if (!added) {
            return unexpected(SkillError{SkillErrc::duplicate_skill,
                                         "two skills are named '" + skill->info.name + "': " +
                                             there->second.string() + " and " + skill->file.string()});
        }
        skills.push_back(std::move(*skill));
        return {};
    };
    for (const fs::path& folder : folders) {
        std::error_code ec;
        if (!fs::is_directory(folder, ec)) {
            return unexpected(SkillError{SkillErrc::not_found,
                                         "skills folder '" + folder.string() + "' is not a directory"});
        }
        if (fs::exists(folder / "SKILL.md", ec)) {
            if (auto added = add(folder); !added) {
                return unexpected(added.error());
            }
            continue;
        }
        std::vector<fs::path> found;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
            std::error_code entryError;
            if (it->is_directory(entryError) && fs::exists(it->path() / "SKILL.md", entryError)) {
                found.push_back(it->path());
            }
        }
        if (ec) {
            return unexpected(SkillError{SkillErrc::unreadable, "skills folder '" + folder.string() +
                                                                    "' cannot be read: " + ec.message()});
        }
        std::sort(found.begin(), found.end());
        for (const fs::path& directory : found) {
            if (auto added = add(directory); !added) {
                return unexpected(added.error());
            }
        }
    }
    return skills;
}

}  // namespace reagent::skills
