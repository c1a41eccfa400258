#pragma once
/// \file
/// \brief `SkillError`: why a skill could not be loaded or used.

#include <boost/describe/enum.hpp>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::skills {

enum class SkillErrc {
    /// A `SKILL.md` that breaks the Agent Skills format: no front matter, YAML this reader does not take, a
    /// missing or invalid `name` or `description`. The message names the file (and the line).
    invalid_skill,
    /// Two skills with one name; the message names both files.
    duplicate_skill,
    /// A `SKILL.md` or a skill's file larger than the limit (`SkillLimits`); the message gives both sizes.
    too_large,
    /// No such skill, folder or file.
    not_found,
    /// A path that leaves the skill's folder (`..`, an absolute path, a link pointing out).
    outside_skill,
    /// The file system refused (permissions, a file that is not text).
    unreadable,
};
BOOST_DESCRIBE_ENUM(SkillErrc, invalid_skill, duplicate_skill, too_large, not_found, outside_skill,
                    unreadable)

[[nodiscard]] std::string_view toString(SkillErrc code) noexcept;

using SkillError = reagent::Error<SkillErrc>;

}  // namespace reagent::skills
