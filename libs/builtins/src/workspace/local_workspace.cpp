#include "reagent/builtins/local_workspace.hpp"

#include <filesystem>
#include <system_error>

#include "reagent/core/subprocess.hpp"
#include "workspace/local_workspace_state.hpp"
#include "workspace/secret_environment.hpp"

namespace reagent::builtins {

expected<std::shared_ptr<LocalWorkspace>, WorkspaceError> LocalWorkspace::create(
    LocalWorkspaceConfig config) {
    auto root = detail::WorkspaceRoot::open(config.root);
    if (!root) {
        return fail(std::move(root.error()));
    }
    if (!config.checkpointDirectory.empty()) {
        // The shadow repository inside the root would be recorded in itself and exposed to the agent.
        std::error_code ec;
        const auto directory =
            std::filesystem::weakly_canonical(std::filesystem::absolute(config.checkpointDirectory), ec);
        if (ec || root->contains(directory)) {
            return fail(WorkspaceError{WorkspaceErrc::invalid_argument,
                                       "the checkpoint directory '" + config.checkpointDirectory +
                                           "' must lie outside the workspace root '" + root->path() + "'"});
        }
        config.checkpointDirectory = directory.string();
    }
    auto state = std::make_unique<State>(std::move(config), std::move(*root));
    // Commands' output reaches the model and the trace: they do not inherit this process's credentials.
    state->environment = state->config.environment
                             ? *state->config.environment
                             : detail::withoutSecrets(mergedEnvironment({}), state->config.passEnvironment);
    return std::shared_ptr<LocalWorkspace>(new LocalWorkspace(std::move(state)));
}

LocalWorkspace::LocalWorkspace(std::unique_ptr<State> state) : state_(std::move(state)) {}

LocalWorkspace::~LocalWorkspace() = default;

const std::string& LocalWorkspace::root() const noexcept {
    return state_->root.path();
}

std::string LocalWorkspace::rootDisplay() const {
    return state_->root.path();
}

detail::ShadowRepository& LocalWorkspace::State::shadowRepository() {
    if (!shadow) {
        shadow = std::make_unique<detail::ShadowRepository>(root.path(), config.checkpointDirectory,
                                                            environment, config.gitTimeout);
    }
    return *shadow;
}

Task<expected<Checkpoint, WorkspaceError>> LocalWorkspace::checkpoint(std::string label) {
    auto recording = state_->shadowRepository().record(std::move(label));
    co_return co_await std::move(recording);
}

Task<expected<RollbackResult, WorkspaceError>> LocalWorkspace::rollback(std::string id) {
    auto restoring = state_->shadowRepository().restore(std::move(id));
    co_return co_await std::move(restoring);
}

}  // namespace reagent::builtins
