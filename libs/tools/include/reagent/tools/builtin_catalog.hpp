#pragma once
/// \file
/// \brief The hook through which `AgentBuilder::withTools()` registers the built-in tools.
///
/// The built-in tools live in `reagent::builtins`, above HTTP and TLS; an agent must not need them to
/// link. So the tool layer only keeps a maker, which `builtins::enableBuiltinTools()` installs
/// (`<reagent/reagent.hpp>` calls it before `main`). Without a maker, `withTools()` registers no
/// built-ins, and asking for one by name is an error that says what to include.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief Which built-in tools to make, and the workspace the file, shell and program tools act on.
struct BuiltinSelection {
    /// The tools to register, by name. Unset: the defaults (the network tools and `code-execute`, plus
    /// the workspace tools when `workspace` is set). An empty list: none.
    std::optional<std::vector<std::string>> include;
    /// The directory the file, shell and program tools are confined to. Empty: no workspace, and those
    /// tools cannot be selected.
    std::string workspace;
    /// Leaves out every tool that changes the workspace (`file-write`, `file-edit`, `shell-execute`, the
    /// program tools); naming one in `include` is then an error.
    bool readOnly = false;
    /// Credential variables (`*_API_KEY`, `*_TOKEN`, ...) that the commands of the shell and program tools
    /// still inherit; the others are removed from their environment. Default: none.
    std::vector<std::string> passEnvironment;
};

/// \brief Restores the workspace to a checkpoint (an id from a tool call's `checkpointId` artifact);
/// returns a line saying what was restored.
using CheckpointRollback = std::function<Task<expected<std::string, ToolError>>(std::string checkpointId)>;

/// \brief What a maker returns: the tools, and the rollback of their workspace (empty without one).
struct BuiltinTools {
    std::vector<Tool> tools;
    CheckpointRollback rollback;
};

/// \brief Makes the tools of a selection.
///
/// \par Errors
/// `invalid_definition` for a selection it cannot serve (an unknown name, a workspace tool without a
/// workspace, a mutating tool in read-only mode, a workspace that cannot be opened), with a message naming
/// the tool or the directory.
using BuiltinToolsMaker = std::function<expected<BuiltinTools, ToolError>(const BuiltinSelection& selection)>;

/// \brief The name of the artifact in which a tool records the checkpoint taken before its change.
inline constexpr const char* kCheckpointArtifact = "checkpointId";

/// \brief Installs the maker (replacing any). Returns true, so that it can initialise a constant.
bool setBuiltinToolsMaker(BuiltinToolsMaker maker);

/// \brief True once a maker is installed.
[[nodiscard]] bool builtinToolsAvailable() noexcept;

/// \brief The selection's tools, made by the installed maker.
///
/// \par Errors
/// The maker's errors. Without a maker: nothing for the defaults, and `invalid_definition` when
/// `include` names tools.
[[nodiscard]] expected<BuiltinTools, ToolError> makeBuiltinTools(const BuiltinSelection& selection);

}  // namespace reagent::tools
