#pragma once
/// \file
/// \brief `LocalWorkspace`: the execution adapter for a directory of this machine.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/builtins/execution_adapter.hpp"

namespace reagent::builtins {

/// \brief How a local workspace is set up; plain values, each with its default.
struct LocalWorkspaceConfig {
    /// The workspace root: an existing directory (symbolic links in it are resolved once, here).
    std::string root;
    /// The environment commands start from (`NAME=value` entries); empty optional: this process's, less
    /// the variables that look like credentials (a `_`-separated word of the name is KEY, TOKEN, SECRET,
    /// PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL(S), AUTH, COOKIE or PAT, in any case: `OPENAI_API_KEY`,
    /// `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, ...) unless named in `passEnvironment`.
    /// `CommandRequest::environment` is merged over it.
    std::optional<std::vector<std::string>> environment;
    /// Names of credential variables commands still inherit (`reagent run --pass-env NAME`). Ignored when
    /// `environment` is set.
    std::vector<std::string> passEnvironment;
    /// The largest file read, edited or written, in bytes. Default 16 MiB.
    std::size_t maxFileBytes = 16 * 1024 * 1024;
    /// The most entries a glob or directory map walks before it stops (`GlobResult::incomplete`).
    std::size_t maxWalkEntries = 200'000;
    /// Where the shadow git repository of checkpoints lives; it must be outside the root. Empty: a
    /// private temporary directory made at the first checkpoint and removed with the workspace.
    std::string checkpointDirectory;
    /// The limit for each git command (`gitInfo`, checkpoints, rollbacks). Default 30 s.
    std::chrono::milliseconds gitTimeout{30'000};
};

/// \brief A workspace confined to a directory of this machine.
///
/// \par Confinement
/// Each path is resolved to a real path (symbolic links followed, `..` applied; for a path that does not
/// exist yet, its deepest existing ancestor) and must lie under the root component by component, so a
/// sibling `<root>-evil` is outside. Files and directories are then opened one component at a time from
/// a descriptor of the root with `O_NOFOLLOW`, so a component swapped for a symbolic link after the check
/// is refused instead of followed. Commands are not confined: they run with this process's rights, only
/// their working directory is checked (docs/builtins.md, "Confinement").
///
/// \par Blocking
/// File operations use blocking system calls on the calling thread (bounded by `maxFileBytes` and
/// `maxWalkEntries`); commands and git run as child processes awaited asynchronously.
///
/// \par Lifetime
/// Hold it by `shared_ptr` for as long as any of its tasks runs.
class LocalWorkspace final : public ExecutionAdapter {
  public:
    /// \brief Opens the workspace at `config.root`.
    ///
    /// \par Errors
    /// `not_found` for a missing root, `not_a_directory` when it is not a directory, `invalid_argument`
    /// for a checkpoint directory inside the root, `io_error` when it cannot be opened.
    [[nodiscard]] static expected<std::shared_ptr<LocalWorkspace>, WorkspaceError> create(
        LocalWorkspaceConfig config);

    ~LocalWorkspace() override;
    LocalWorkspace(const LocalWorkspace&) = delete;
    LocalWorkspace& operator=(const LocalWorkspace&) = delete;

    /// \brief The real path of the root.
    [[nodiscard]] const std::string& root() const noexcept;

    [[nodiscard]] std::string rootDisplay() const override;
    [[nodiscard]] Task<expected<CommandResult, WorkspaceError>> execute(CommandRequest request) override;
    [[nodiscard]] Task<expected<FileContent, WorkspaceError>> readFile(ReadFileRequest request) override;
    [[nodiscard]] Task<expected<EditResult, WorkspaceError>> editFile(EditFileRequest request) override;
    [[nodiscard]] Task<expected<WriteResult, WorkspaceError>> writeFile(WriteFileRequest request) override;
    [[nodiscard]] Task<expected<DirectoryListing, WorkspaceError>> list(ListRequest request) override;
    [[nodiscard]] Task<expected<GlobResult, WorkspaceError>> glob(GlobRequest request) override;
    [[nodiscard]] Task<expected<std::string, WorkspaceError>> directoryMap(
        DirectoryMapRequest request) override;
    [[nodiscard]] Task<expected<GitRepositoryInfo, WorkspaceError>> gitInfo() override;
    [[nodiscard]] Task<expected<Checkpoint, WorkspaceError>> checkpoint(std::string label) override;
    [[nodiscard]] Task<expected<RollbackResult, WorkspaceError>> rollback(std::string id) override;

  private:
    struct State;
    explicit LocalWorkspace(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace reagent::builtins
