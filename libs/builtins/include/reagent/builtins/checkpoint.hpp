#pragma once
/// \file
/// \brief `Checkpoint` and `RollbackResult`: recorded workspace states and restoring one.

#include <string>
#include <vector>

namespace reagent::builtins {

/// \brief A recorded state of the workspace's files.
struct Checkpoint {
    /// Opaque to callers (the local workspace uses a commit id of its shadow repository).
    std::string id;
    /// What the caller said it was for (`"before file-write src/a.cpp"`).
    std::string label;
};

/// \brief What a rollback changed, paths relative to the workspace root, sorted.
struct RollbackResult {
    /// The checkpoint restored.
    std::string id;
    /// A checkpoint of the state just before the rollback: rolling back to it undoes the rollback.
    std::string undoId;
    /// Files modified since the checkpoint, put back as they were.
    std::vector<std::string> restored;
    /// Files created since the checkpoint, removed.
    std::vector<std::string> removed;
    /// Files deleted since the checkpoint, recreated.
    std::vector<std::string> recreated;
};

}  // namespace reagent::builtins
