#pragma once
// Private to libs/skills: reading a skill's files within limits, and keeping paths inside its folder.

#include <filesystem>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/skills/skill.hpp"

namespace reagent::skills::detail {

/// The text of the regular file `path`, refused `too_large` past `limit` bytes and `unreadable` when it
/// cannot be read or holds a NUL byte (not text). `what` names it in errors.
[[nodiscard]] expected<std::string, SkillError> readText(const std::filesystem::path& path,
                                                         std::uintmax_t limit, const std::string& what);

/// `relative` (as the model wrote it) under `directory`: refused `outside_skill` when absolute, when it
/// climbs out (`..`), or when a link takes it out; `not_found` when there is no such file.
[[nodiscard]] expected<std::filesystem::path, SkillError> insideSkill(const std::filesystem::path& directory,
                                                                      const std::string& relative);

}  // namespace reagent::skills::detail
