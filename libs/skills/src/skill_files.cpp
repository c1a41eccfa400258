#include "skill_files.hpp"

#include <algorithm>
#include <iterator>
#include <system_error>

#include "reagent/core/file_read.hpp"

namespace reagent::skills::detail {

namespace fs = std::filesystem;

expected<std::string, SkillError> readText(const fs::path& path, std::uintmax_t limit,
                                           const std::string& what) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        return unexpected(SkillError{SkillErrc::not_found, what + " is not a file"});
    }
    auto read = readFileUpTo(path, limit);
    if (!read) {
        const FileReadFailure& failure = read.error();
        if (failure.tooLarge) {
            return unexpected(SkillError{SkillErrc::too_large, what + " is " + std::to_string(failure.size) +
                                                                   " bytes; a skill's files are read up to " +
                                                                   std::to_string(limit)});
        }
        return unexpected(SkillError{SkillErrc::unreadable,
                                     failure.reason.empty() ? what + " cannot be opened"
                                                            : what + " cannot be read: " + failure.reason});
    }
    std::string text = std::move(*read);
    if (text.find('\0') != std::string::npos) {
        return unexpected(SkillError{SkillErrc::unreadable, what + " is not text (it holds NUL bytes)"});
    }
    return text;
}

expected<fs::path, SkillError> insideSkill(const fs::path& directory, const std::string& relative) {
    const fs::path asked(relative);
    if (relative.empty() || asked.is_absolute()) {
        return unexpected(SkillError{SkillErrc::outside_skill,
                                     "'" + relative + "': give a path relative to the skill's folder"});
    }
    for (const auto& part : asked) {
        if (part == "..") {
            return unexpected(
                SkillError{SkillErrc::outside_skill, "'" + relative + "' leaves the skill's folder ('..')"});
        }
    }
    std::error_code ec;
    const fs::path root = fs::canonical(directory, ec);
    if (ec) {
        return unexpected(SkillError{SkillErrc::not_found, "the skill's folder is gone: " + ec.message()});
    }
    const fs::path real = fs::canonical(root / asked, ec);
    if (ec) {
        return unexpected(SkillError{SkillErrc::not_found, "the skill has no file '" + relative + "'"});
    }
    // A link may point anywhere: what it resolves to must still be in the folder.
    const auto [rootEnd, realAt] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    if (rootEnd != root.end()) {
        return unexpected(SkillError{SkillErrc::outside_skill,
                                     "'" + relative + "' is a link to a file outside the skill's folder"});
    }
    return real;
}

}  // namespace reagent::skills::detail
