#pragma once
/// \file
/// \brief `ExecutionAdapter`: the operations file and shell tools perform on a workspace.

#include <string>

#include "reagent/builtins/checkpoint.hpp"
#include "reagent/builtins/command.hpp"
#include "reagent/builtins/directory_map.hpp"
#include "reagent/builtins/edit_file.hpp"
#include "reagent/builtins/file_entry.hpp"
#include "reagent/builtins/git_repository_info.hpp"
#include "reagent/builtins/glob_request.hpp"
#include "reagent/builtins/read_file.hpp"
#include "reagent/builtins/workspace_error.hpp"
#include "reagent/builtins/write_file.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent::builtins {

/// \brief A workspace an agent works in: files under a root and commands run there.
///
/// Every path an operation takes is relative to the workspace root (absolute paths are accepted when
/// they lie inside it); results give paths relative to the root. Implementations confine every path to
/// the root and say which rule refused one (`outside_workspace`). `LocalWorkspace` is the local one; a
/// remote or containerised workspace implements the same interface, and the built-in tools use nothing
/// else.
///
/// \par Errors
/// Each operation returns a `WorkspaceError` (see `WorkspaceErrc` for when each code occurs); no
/// operation throws, cancellation included (it becomes `cancelled`).
///
/// \par Cancellation
/// Operations that wait (commands, git) stop when the awaiting coroutine is cancelled: a command's whole
/// process group is killed and reaped before the operation returns `cancelled`.
///
/// \par Thread safety
/// Use from one strand. Mutating operations and checkpoints must not overlap one another (the tool
/// executor runs side-effect tools one at a time).
class ExecutionAdapter {
  public:
    virtual ~ExecutionAdapter() = default;

    /// \brief The workspace root as shown to people (an absolute path for the local workspace).
    [[nodiscard]] virtual std::string rootDisplay() const = 0;

    /// \brief Runs a command in the workspace (see `CommandRequest`).
    [[nodiscard]] virtual Task<expected<CommandResult, WorkspaceError>> execute(CommandRequest request) = 0;

    /// \brief Reads lines of a text file; refuses directories, binary files and selections over the cap.
    [[nodiscard]] virtual Task<expected<FileContent, WorkspaceError>> readFile(ReadFileRequest request) = 0;

    /// \brief Replaces text that must occur exactly once (or every occurrence with `replaceAll`).
    [[nodiscard]] virtual Task<expected<EditResult, WorkspaceError>> editFile(EditFileRequest request) = 0;

    /// \brief Writes a whole file, creating its parent directories inside the workspace.
    [[nodiscard]] virtual Task<expected<WriteResult, WorkspaceError>> writeFile(WriteFileRequest request) = 0;

    /// \brief Lists one directory.
    [[nodiscard]] virtual Task<expected<DirectoryListing, WorkspaceError>> list(ListRequest request) = 0;

    /// \brief Finds paths matching a glob pattern.
    [[nodiscard]] virtual Task<expected<GlobResult, WorkspaceError>> glob(GlobRequest request) = 0;

    /// \brief An indented outline of a directory tree to a depth (see `DirectoryMapRequest`).
    [[nodiscard]] virtual Task<expected<std::string, WorkspaceError>> directoryMap(
        DirectoryMapRequest request) = 0;

    /// \brief The git repository that holds the workspace root; `not_a_repository` when there is none.
    [[nodiscard]] virtual Task<expected<GitRepositoryInfo, WorkspaceError>> gitInfo() = 0;

    /// \brief Records the current state of the workspace's files and returns its id.
    [[nodiscard]] virtual Task<expected<Checkpoint, WorkspaceError>> checkpoint(std::string label) = 0;

    /// \brief Restores the files to checkpoint `id`: files created since are removed, modified ones
    /// restored, deleted ones recreated. Later checkpoints stay valid, and the state just before the
    /// rollback is recorded too (`RollbackResult::undoId`).
    [[nodiscard]] virtual Task<expected<RollbackResult, WorkspaceError>> rollback(std::string id) = 0;
};

}  // namespace reagent::builtins
