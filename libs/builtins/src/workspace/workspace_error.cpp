#include "reagent/builtins/workspace_error.hpp"

namespace reagent::builtins {

std::string_view toString(WorkspaceErrc code) noexcept {
    switch (code) {
        case WorkspaceErrc::invalid_argument:
            return "invalid_argument";
        case WorkspaceErrc::outside_workspace:
            return "outside_workspace";
        case WorkspaceErrc::not_found:
            return "not_found";
        case WorkspaceErrc::not_a_file:
            return "not_a_file";
        case WorkspaceErrc::not_a_directory:
            return "not_a_directory";
        case WorkspaceErrc::already_exists:
            return "already_exists";
        case WorkspaceErrc::too_large:
            return "too_large";
        case WorkspaceErrc::match_count:
            return "match_count";
        case WorkspaceErrc::binary_file:
            return "binary_file";
        case WorkspaceErrc::timeout:
            return "timeout";
        case WorkspaceErrc::cancelled:
            return "cancelled";
        case WorkspaceErrc::spawn_failed:
            return "spawn_failed";
        case WorkspaceErrc::not_a_repository:
            return "not_a_repository";
        case WorkspaceErrc::checkpoint_failed:
            return "checkpoint_failed";
        case WorkspaceErrc::io_error:
            return "io_error";
    }
    return "unknown";
}

}  // namespace reagent::builtins
