#pragma once
/// \file
/// \brief `WorkspaceError`: why a workspace operation (a file, a listing, a command, a checkpoint) failed.

#include <boost/describe/enum.hpp>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::builtins {

/// \brief The reason an `ExecutionAdapter` operation failed. Messages name the path relative to the
/// workspace root (or as given, when it lies outside) and the rule that refused it. A failed operation
/// changes nothing, except where a code says otherwise.
enum class WorkspaceErrc {
    /// A request is malformed: an empty path, search text or glob pattern, both or neither of `argv` and
    /// `shell`, a non-positive timeout, an environment entry without `=`, a line offset past the end of
    /// the file, a checkpoint directory inside the workspace.
    invalid_argument,
    /// The path leaves the workspace: `..` climbing above the root, an absolute path elsewhere (a
    /// sibling such as `<root>-evil` included), a symbolic link whose target is outside, a component
    /// that turned into a symbolic link between the check and the use, a glob pattern that is absolute
    /// or climbs with `..`; a file write or edit inside a `.git` directory (git's configuration can name
    /// programs to run).
    outside_workspace,
    /// The path (or, for `create`, the workspace root) does not exist; a checkpoint id that is unknown.
    not_found,
    /// A file was expected and the path is a directory or a special file (device, socket, FIFO).
    not_a_file,
    /// A directory was expected (a listing, a working directory, a parent) and the path is not one.
    not_a_directory,
    /// `writeFile` with `overwrite = false` and the file exists.
    already_exists,
    /// The file is larger than the limit of the operation (`maxBytes`, `maxFileBytes`); the message gives
    /// both sizes and how to read a part.
    too_large,
    /// `editFile`: the search text matched zero times, or more than once without `replaceAll`; the
    /// message says how many times.
    match_count,
    /// The file looks binary (a NUL byte in its first 8 KiB): text operations refuse it.
    binary_file,
    /// A helper command (git) did not finish within its time limit and was killed. A command run by
    /// `execute` that times out is a result (`CommandResult::timedOut`), not this error.
    timeout,
    /// The operation was cancelled by the caller; a command was killed with its process group.
    cancelled,
    /// A command could not be started: the program is missing or not executable; the message says why.
    spawn_failed,
    /// `gitInfo`: the workspace is not inside a git repository.
    not_a_repository,
    /// A checkpoint could not be recorded or restored (git failed); the message carries git's error.
    checkpoint_failed,
    /// The system refused a file operation (permission, disk full, ...); the message names it and why.
    io_error,
};
BOOST_DESCRIBE_ENUM(WorkspaceErrc, invalid_argument, outside_workspace, not_found, not_a_file,
                    not_a_directory, already_exists, too_large, match_count, binary_file, timeout, cancelled,
                    spawn_failed, not_a_repository, checkpoint_failed, io_error)

/// \brief The code's name as shown to the model and in logs (`"outside_workspace"`, ...).
[[nodiscard]] std::string_view toString(WorkspaceErrc code) noexcept;

/// \brief A failed workspace operation: a code and a message a person (or a model) can act on.
using WorkspaceError = reagent::Error<WorkspaceErrc>;

}  // namespace reagent::builtins
