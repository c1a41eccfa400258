#pragma once
// WorkspaceRoot: the confinement rules of a local workspace. A path is checked once by resolving it to a
// real path under the root; it is then opened one component at a time from a descriptor of the root,
// never following a symbolic link, so that what was checked is what is used.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/builtins/workspace_error.hpp"
#include "reagent/core/expected.hpp"
#include "workspace/unique_fd.hpp"

namespace reagent::builtins::detail {

/// A path checked to lie inside the workspace.
struct ResolvedPath {
    /// The real path (symbolic links of the existing part resolved).
    std::filesystem::path absolute;
    /// Relative to the root, `/`-separated; `.` for the root itself.
    std::string relative;
    /// The components of `relative` (empty for the root).
    std::vector<std::string> components;
};

/// A directory inside the workspace: its checked path and the directory, open.
struct OpenedDirectory {
    ResolvedPath path;
    UniqueFd fd;
};

class WorkspaceRoot {
  public:
    /// Opens the root: `not_found`, `not_a_directory` or `io_error` when it cannot be used.
    [[nodiscard]] static expected<WorkspaceRoot, WorkspaceError> open(const std::string& root);

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    /// Checks `given` (relative to the root, or absolute) against the confinement rules.
    [[nodiscard]] expected<ResolvedPath, WorkspaceError> resolve(std::string_view given) const;

    /// Opens the directory made of the first `count` components of `path`, one component at a time with
    /// O_NOFOLLOW (O_RDONLY, so that it can be listed); with `create`, missing ones are made.
    [[nodiscard]] expected<UniqueFd, WorkspaceError> openDirectory(const ResolvedPath& path,
                                                                   std::size_t count, bool create) const;

    /// `resolve(given)`, then the whole of it opened with `openDirectory` (nothing created).
    [[nodiscard]] expected<OpenedDirectory, WorkspaceError> openResolvedDirectory(
        std::string_view given) const;

    /// True when `candidate` (normalised, absolute) is the root or lies under it, component by component.
    [[nodiscard]] bool contains(const std::filesystem::path& candidate) const;

  private:
    WorkspaceRoot(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}

    std::string path_;
    UniqueFd fd_;
};

/// `outside_workspace` when `path` lies in a `.git` directory: the file tools do not write there, since a
/// repository's configuration, attributes and hooks can name programs that git (and git-cli's calls that
/// run without approval) would then start.
[[nodiscard]] expected<void, WorkspaceError> refuseGitDirectory(const ResolvedPath& path);

/// `'<relative>'`: how messages name a path.
[[nodiscard]] std::string quotedPath(std::string_view path);

/// An `io_error` (or `not_found` for ENOENT) naming what failed, the path and the system's reason.
[[nodiscard]] WorkspaceError systemError(std::string_view what, std::string_view relative, int error);

/// The error for a component that turned into a symbolic link after the path was checked.
[[nodiscard]] WorkspaceError swappedForLink(std::string_view relative);

}  // namespace reagent::builtins::detail
