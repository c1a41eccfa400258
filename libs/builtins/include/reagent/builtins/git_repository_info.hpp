#pragma once
/// \file
/// \brief `GitRepositoryInfo`: the git repository holding the workspace.

#include <optional>
#include <string>

namespace reagent::builtins {

/// \brief The state of the git repository that contains the workspace root.
struct GitRepositoryInfo {
    /// The repository's top-level directory (absolute; may be above the workspace root).
    std::string rootPath;
    /// The current branch; `HEAD` when detached.
    std::string currentBranch;
    /// The full SHA-1 of `HEAD`; empty in a repository without commits.
    std::string commitSha;
    /// True when `git status` reports changes (untracked files included).
    bool isDirty = false;
    /// The URL of the remote `origin`, if there is one.
    std::optional<std::string> remoteUrl;
};

}  // namespace reagent::builtins
