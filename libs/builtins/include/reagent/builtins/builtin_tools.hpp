#pragma once
/// \file
/// \brief `builtinTools`: the built-in tools chosen by name, and `enableBuiltinTools`, which lets
/// `AgentBuilder::withTools()` register them.

#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/builtin_catalog.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::builtins {

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
[[nodiscard]] expected<tools::BuiltinTools, tools::ToolError> builtinTools(
    const tools::BuiltinSelection& selection);

/// \brief Installs `builtinTools` as the maker behind `withTools()` (`tools::setBuiltinToolsMaker`).
/// Idempotent; returns true. `<reagent/reagent.hpp>` calls it before `main`.
bool enableBuiltinTools();

}  // namespace reagent::builtins
