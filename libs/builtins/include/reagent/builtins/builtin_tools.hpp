#pragma once
/// \file
/// \brief `builtinTools`: the built-in tools chosen by name, and `toolSource`, which offers them to an
/// agent (`AgentBuilder::withToolSource`; `reagent::AgentBuilder::withTools()` does it for you).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"
#include "reagent/tools/tool_source.hpp"

namespace reagent::builtins {

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

/// \brief The tools of a selection, and the rollback of their workspace (empty without one).
struct BuiltinTools {
    std::vector<tools::Tool> tools;
    tools::CheckpointRollback rollback;
};

/// \brief What is known of one built-in tool before it is made.
struct BuiltinToolInfo {
    std::string_view name;
    /// Acts on the workspace (`BuiltinSelection::workspace` is needed).
    bool needsWorkspace = false;
    /// Changes the workspace or the world: left out in read-only mode.
    bool mutating = false;
    /// Registered when `BuiltinSelection::include` is unset (the workspace tools only with a workspace).
    bool byDefault = false;
};

/// \brief Every built-in tool, in the order they are registered.
[[nodiscard]] const std::vector<BuiltinToolInfo>& builtinToolCatalog();

/// \brief The tools `selection` names, or the defaults: `http-get`, `web-search`, `crypto-price`,
/// `code-execute`; with a workspace also `file-read`, `ls`, `glob`, `grep`, and unless read-only
/// `file-write` (requires approval), `file-edit`, `shell-execute` (requires approval), `git-cli`, `gh-cli`,
/// `gws-cli`. The workspace is opened once and shared by its tools; `rollback` restores it to a checkpoint.
///
/// \par Errors
/// `invalid_definition`: an unknown name (the message lists the known ones), a workspace tool without a
/// workspace, a mutating tool in read-only mode, a workspace that cannot be opened. Nothing throws.
[[nodiscard]] expected<BuiltinTools, tools::ToolError> builtinTools(const BuiltinSelection& selection);

/// \brief The tools of `selection` as a tool source named "builtins": its `tools()` makes them (errors
/// as `builtinTools`, so `build()` reports them), its `rollback()` restores their workspace. Nothing to
/// open or close.
[[nodiscard]] std::shared_ptr<tools::ToolSource> toolSource(BuiltinSelection selection);

}  // namespace reagent::builtins
