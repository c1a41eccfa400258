#pragma once
// ShadowRepository: checkpoints of a workspace kept in a git repository outside it (GIT_DIR elsewhere,
// GIT_WORK_TREE the workspace root), driven by the git program.

#include <chrono>
#include <string>
#include <vector>

#include "reagent/builtins/checkpoint.hpp"
#include "reagent/builtins/workspace_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent::builtins::detail {

class ShadowRepository {
  public:
    /// `directory` empty: a private temporary directory, made at the first checkpoint and removed by the
    /// destructor.
    ShadowRepository(std::string workTree, std::string directory, std::vector<std::string> environment,
                     std::chrono::milliseconds timeout);
    ~ShadowRepository();
    ShadowRepository(const ShadowRepository&) = delete;
    ShadowRepository& operator=(const ShadowRepository&) = delete;

    /// Stages every file of the work tree (what its .gitignore files ignore stays out) and commits it.
    [[nodiscard]] Task<expected<Checkpoint, WorkspaceError>> record(std::string label);

    /// Makes the work tree's files what they were at `id`.
    [[nodiscard]] Task<expected<RollbackResult, WorkspaceError>> restore(std::string id);

  private:
    [[nodiscard]] Task<expected<std::string, WorkspaceError>> git(std::vector<std::string> args);
    [[nodiscard]] Task<expected<void, WorkspaceError>> ensureCreated();

    std::string workTree_;
    std::string directory_;
    bool ownsDirectory_ = false;
    bool created_ = false;
    std::vector<std::string> environment_;
    std::chrono::milliseconds timeout_;
};

}  // namespace reagent::builtins::detail
