#include "reagent/core/glob_pattern.hpp"

#include <fnmatch.h>

#include <cstddef>

namespace reagent {
namespace {

/// Enough for any pattern a person writes; a pathological one is cut rather than exploding.
constexpr std::size_t kMaxAlternatives = 1024;

// "{a,b}x{c,d}" -> "axc", "axd", "bxc", "bxd"; nested braces expand from the outermost.
void expandBraces(const std::string& pattern, std::vector<std::string>& out) {
    std::size_t open = std::string::npos;
    int depth = 0;
    std::vector<std::size_t> commas;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\') {
            ++i;
        } else if (c == '{') {
            if (depth++ == 0) {
                open = i;
                commas.clear();
            }
        } else if (c == ',' && depth == 1) {
            commas.push_back(i);
        } else if (c == '}' && depth > 0 && --depth == 0) {
            const std::string head = pattern.substr(0, open);
            const std::string tail = pattern.substr(i + 1);
            std::size_t start = open + 1;
            commas.push_back(i);
            for (const std::size_t end : commas) {
                if (out.size() >= kMaxAlternatives) {
                    return;
                }
                expandBraces(head + pattern.substr(start, end - start) + tail, out);
                start = end + 1;
            }
            return;
        }
    }
    if (out.size() < kMaxAlternatives) {
        out.push_back(pattern);  // no (balanced) braces left
    }
}

std::vector<std::string> splitComponents(std::string_view path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) {
            end = path.size();
        }
        const std::string_view part = path.substr(start, end - start);
        // "**/**" is "**"; empty and "." components mean nothing.
        if (!part.empty() && part != "." && !(part == "**" && !parts.empty() && parts.back() == "**")) {
            parts.emplace_back(part);
        }
        start = end + 1;
    }
    return parts;
}

bool matchFrom(const std::vector<std::string>& pattern, std::size_t i, const std::vector<std::string>& path,
               std::size_t j) {
    for (; i < pattern.size(); ++i, ++j) {
        if (pattern[i] == "**") {
            for (std::size_t k = j; k <= path.size(); ++k) {
                if (matchFrom(pattern, i + 1, path, k)) {
                    return true;
                }
            }
            return false;
        }
        if (j == path.size() || ::fnmatch(pattern[i].c_str(), path[j].c_str(), 0) != 0) {
            return false;
        }
    }
    return j == path.size();
}

// Whether some path below `directory` can still match, once the directory's components are consumed.
bool prefixMatches(const std::vector<std::string>& pattern, std::size_t i,
                   const std::vector<std::string>& directory, std::size_t j) {
    for (; j < directory.size(); ++i, ++j) {
        if (i == pattern.size()) {
            return false;
        }
        if (pattern[i] == "**") {
            return true;
        }
        if (::fnmatch(pattern[i].c_str(), directory[j].c_str(), 0) != 0) {
            return false;
        }
    }
    return i < pattern.size();
}

}  // namespace

GlobPattern::GlobPattern(std::string_view pattern) : text_(pattern) {
    std::vector<std::string> expanded;
    expandBraces(text_, expanded);
    for (const std::string& alternative : expanded) {
        alternatives_.push_back(splitComponents(alternative));
    }
}

bool GlobPattern::matches(std::string_view path) const {
    const std::vector<std::string> components = splitComponents(path);
    for (const auto& alternative : alternatives_) {
        if (matchFrom(alternative, 0, components, 0)) {
            return true;
        }
    }
    return false;
}

bool GlobPattern::mayMatchUnder(std::string_view directory) const {
    const std::vector<std::string> components = splitComponents(directory);
    for (const auto& alternative : alternatives_) {
        if (prefixMatches(alternative, 0, components, 0)) {
            return true;
        }
    }
    return false;
}

}  // namespace reagent
