#pragma once
/// \file
/// \brief `GlobRequest` and `GlobResult`: finding files by a glob pattern.

#include <cstddef>
#include <string>
#include <vector>

namespace reagent::builtins {

/// \brief Which files to find: paths under `base` matching `pattern` (see `GlobPattern`).
struct GlobRequest {
    /// Relative to `base`; must not be absolute nor contain a `..` component.
    std::string pattern;
    /// The directory searched, relative to the workspace root. Default: the root.
    std::string base = ".";
    /// Descend into and match entries whose name starts with `.` (`.git` included).
    bool includeHidden = false;
    /// Also return directories that match (by default only files and symbolic links).
    bool includeDirectories = false;
    /// The most matches returned; further matches are counted in `GlobResult::omitted`.
    std::size_t maxResults = 1000;
};

/// \brief The matching paths, relative to the workspace root, sorted. Symbolic links are matched as
/// entries but never followed.
struct GlobResult {
    std::vector<std::string> paths;
    /// Matches left out beyond `maxResults`.
    std::size_t omitted = 0;
    /// True when the walk stopped at the workspace's entry limit before seeing the whole tree.
    bool incomplete = false;
};

}  // namespace reagent::builtins
