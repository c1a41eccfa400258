#pragma once
// runProcess: a command run to its end by core's runToEnd, as a CommandResult or a WorkspaceError; the
// engine of `execute`, `gitInfo`, code-execute and the checkpoints.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "reagent/builtins/command.hpp"
#include "reagent/builtins/workspace_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent::builtins::detail {

struct ProcessSpec {
    std::string program;
    std::vector<std::string> args;
    /// The whole environment of the child.
    std::vector<std::string> environment;
    /// Absolute.
    std::string workingDirectory;
    std::chrono::milliseconds timeout{60'000};
    std::size_t maxOutputBytes = 1024 * 1024;
};

/// Starts `spec.program` in its own process group with stdin at end of file and nothing it starts allowed
/// to outlive it, drains stdout and stderr (each kept up to `maxOutputBytes`, the rest counted), and reaps
/// it; on timeout the whole group is killed and the result says `timedOut`.
///
/// Errors: `spawn_failed` when it cannot start; `cancelled` when the caller was cancelled (the group is
/// killed and reaped first). Never throws.
[[nodiscard]] Task<expected<CommandResult, WorkspaceError>> runProcess(ProcessSpec spec);

/// `environment` without the variables that would point git elsewhere (`GIT_DIR`, `GIT_WORK_TREE`, ...).
[[nodiscard]] std::vector<std::string> withoutGitVariables(std::vector<std::string> environment);

}  // namespace reagent::builtins::detail
