#pragma once
// What a LocalWorkspace holds, shared by the sources that implement its operations.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/shadow_repository.hpp"
#include "reagent/builtins/local_workspace.hpp"
#include "workspace/workspace_root.hpp"

namespace reagent::builtins {

struct LocalWorkspace::State {
    State(LocalWorkspaceConfig settings, detail::WorkspaceRoot opened)
        : config(std::move(settings)), root(std::move(opened)) {}

    LocalWorkspaceConfig config;
    detail::WorkspaceRoot root;
    /// The environment commands start from.
    std::vector<std::string> environment;
    /// Made at the first checkpoint or rollback.
    std::unique_ptr<detail::ShadowRepository> shadow;

    [[nodiscard]] detail::ShadowRepository& shadowRepository();
};

}  // namespace reagent::builtins
