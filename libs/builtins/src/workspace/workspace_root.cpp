#include "workspace/workspace_root.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace reagent::builtins::detail {

namespace fs = std::filesystem;

expected<void, WorkspaceError> refuseGitDirectory(const ResolvedPath& path) {
    for (const std::string& component : path.components) {
        if (component == ".git") {
            return fail(WorkspaceError{
                WorkspaceErrc::outside_workspace,
                quotedPath(path.relative) +
                    " is inside a .git directory: the file tools do not write there (a repository's "
                    "configuration and hooks can name programs for git to run); use git-cli to change the "
                    "repository"});
        }
    }
    return {};
}

std::string quotedPath(std::string_view path) {
    return "'" + std::string(path) + "'";
}

WorkspaceError systemError(std::string_view what, std::string_view relative, int error) {
    const WorkspaceErrc code = error == ENOENT ? WorkspaceErrc::not_found : WorkspaceErrc::io_error;
    return {code, std::string(what) + " " + quotedPath(relative) + ": " + std::strerror(error)};
}

WorkspaceError swappedForLink(std::string_view relative) {
    return {WorkspaceErrc::outside_workspace,
            quotedPath(relative) +
                " is a symbolic link the check did not resolve (a dangling link, or one made after the path "
                "was checked); symbolic links are followed only while a path is checked against the "
                "workspace root"};
}

expected<WorkspaceRoot, WorkspaceError> WorkspaceRoot::open(const std::string& root) {
    if (root.empty()) {
        return fail(WorkspaceError{WorkspaceErrc::invalid_argument, "no workspace root given"});
    }
    std::error_code ec;
    const fs::path real = fs::canonical(root, ec);
    if (ec) {
        const WorkspaceErrc code =
            ec == std::errc::no_such_file_or_directory ? WorkspaceErrc::not_found : WorkspaceErrc::io_error;
        return fail(WorkspaceError{
            code, "the workspace root " + quotedPath(root) + " cannot be used: " + ec.message()});
    }
    const int fd = ::open(real.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        const WorkspaceErrc code =
            error == ENOTDIR ? WorkspaceErrc::not_a_directory : WorkspaceErrc::io_error;
        return fail(WorkspaceError{
            code, "the workspace root " + quotedPath(root) + " cannot be opened: " + std::strerror(error)});
    }
    return WorkspaceRoot(real.string(), UniqueFd(fd));
}

bool WorkspaceRoot::contains(const fs::path& candidate) const {
    const std::string text = candidate.string();
    if (path_ == "/") {
        return !text.empty() && text.front() == '/';
    }
    // By component: `<root>-evil` shares the root's characters but not its last component.
    return text == path_ || (text.size() > path_.size() && text.compare(0, path_.size(), path_) == 0 &&
                             text[path_.size()] == '/');
}

expected<ResolvedPath, WorkspaceError> WorkspaceRoot::resolve(std::string_view given) const {
    if (given.empty()) {
        return fail(WorkspaceError{WorkspaceErrc::invalid_argument, "the path is empty"});
    }
    if (given.find('\0') != std::string_view::npos) {
        return fail(WorkspaceError{WorkspaceErrc::invalid_argument, "the path contains a NUL character"});
    }
    const fs::path asGiven(given);
    const fs::path candidate = asGiven.is_absolute() ? asGiven : fs::path(path_) / asGiven;
    // The lexical check only names the rule; the real path below decides.
    fs::path lexical = candidate.lexically_normal();
    if (!lexical.empty() && !lexical.has_filename()) {
        lexical = lexical.parent_path();  // "dir/" -> "dir"
    }
    if (!contains(lexical)) {
        if (asGiven.is_absolute()) {
            return fail(WorkspaceError{WorkspaceErrc::outside_workspace,
                                       quotedPath(given) +
                                           " is an absolute path outside the workspace root " +
                                           quotedPath(path_) + "; paths must lie inside the root"});
        }
        return fail(WorkspaceError{WorkspaceErrc::outside_workspace,
                                   quotedPath(given) +
                                       " climbs out of the workspace root with '..'; paths must "
                                       "stay inside the root"});
    }
    std::error_code ec;
    // For a path that does not exist yet: its deepest existing ancestor is resolved, the rest is lexical.
    fs::path real = fs::weakly_canonical(candidate, ec);
    if (ec) {
        return fail(systemError("cannot resolve", given, ec.value()));
    }
    if (!real.empty() && !real.has_filename()) {
        real = real.parent_path();
    }
    if (!contains(real)) {
        return fail(WorkspaceError{WorkspaceErrc::outside_workspace,
                                   quotedPath(given) +
                                       " goes through a symbolic link that points outside the "
                                       "workspace root (it resolves to " +
                                       quotedPath(real.string()) +
                                       "); links may only point inside the root"});
    }
    ResolvedPath resolved;
    resolved.absolute = real;
    const fs::path relative = real.lexically_relative(path_);
    for (const fs::path& part : relative) {
        const std::string name = part.string();
        if (!name.empty() && name != ".") {
            resolved.components.push_back(name);
        }
    }
    for (const std::string& name : resolved.components) {
        resolved.relative += (resolved.relative.empty() ? "" : "/") + name;
    }
    if (resolved.relative.empty()) {
        resolved.relative = ".";
    }
    return resolved;
}

expected<OpenedDirectory, WorkspaceError> WorkspaceRoot::openResolvedDirectory(std::string_view given) const {
    auto path = resolve(given);
    if (!path) {
        return fail(std::move(path.error()));
    }
    auto directory = openDirectory(*path, path->components.size(), false);
    if (!directory) {
        return fail(std::move(directory.error()));
    }
    return OpenedDirectory{std::move(*path), std::move(*directory)};
}

expected<UniqueFd, WorkspaceError> WorkspaceRoot::openDirectory(const ResolvedPath& path, std::size_t count,
                                                                bool create) const {
    UniqueFd current(::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!current.valid()) {
        return fail(systemError("cannot open the workspace root", ".", errno));
    }
    std::string prefix;
    for (std::size_t i = 0; i < count && i < path.components.size(); ++i) {
        const std::string& name = path.components[i];
        prefix += (prefix.empty() ? "" : "/") + name;
        constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        int next = ::openat(current.get(), name.c_str(), kFlags);
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(current.get(), name.c_str(), 0777) != 0 && errno != EEXIST) {
                return fail(systemError("cannot create the directory", prefix, errno));
            }
            next = ::openat(current.get(), name.c_str(), kFlags);
        }
        if (next < 0) {
            const int error = errno;
            struct stat info {};
            if (error == ELOOP || error == ENOTDIR) {
                if (::fstatat(current.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISLNK(info.st_mode)) {
                    return fail(swappedForLink(prefix));
                }
                return fail(WorkspaceError{WorkspaceErrc::not_a_directory,
                                           quotedPath(prefix) + " is not a directory"});
            }
            return fail(systemError("cannot open the directory", prefix, error));
        }
        current.reset(next);
    }
    return current;
}

}  // namespace reagent::builtins::detail
