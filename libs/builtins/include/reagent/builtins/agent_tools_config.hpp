#pragma once
/// \file
/// \brief `AgentToolsConfig` and `StartupError`: what `createAgentTools` is given, and why it refuses it.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/tools/tool_executor.hpp"

namespace reagent::builtins {

/// \brief The smallest and largest `maxOutputBytes` accepted.
inline constexpr std::size_t kMinOutputBytes = 256;
inline constexpr std::size_t kMaxOutputBytes = 16 * 1024 * 1024;

/// \brief The configuration of a tools facade; only `workspaceRoot` is required. Resolved once by
/// `createAgentTools` and frozen (`AgentTools::config()` shows the resolved values).
struct AgentToolsConfig {
    /// The workspace every tool is confined to: an existing directory. Required. Resolved to its real
    /// path.
    std::string workspaceRoot;
    /// Hide every mutating tool (`file-write`, `file-edit`): not listed, and a call is `not_found`.
    /// Default false.
    bool readOnly = false;
    /// The most bytes of text a call returns; longer output is cut at a character boundary and ends with
    /// a line saying how many bytes were cut. Range [`kMinOutputBytes`, `kMaxOutputBytes`]. Default 64 KiB.
    std::size_t maxOutputBytes = 64 * 1024;
    /// The largest file read, edited or written, in bytes. Range [1, 1 GiB]. Default 16 MiB.
    std::size_t maxFileBytes = 16 * 1024 * 1024;
    /// Each call's limit. Range [1 ms, 1 h]. Default 30 s.
    std::chrono::milliseconds toolTimeout{30'000};
    /// Record a checkpoint before each write and edit (ids in the result text). Needs `git`.
    /// Default true.
    bool checkpoints = true;
    /// Where checkpoints are kept (outside the workspace); empty: a private temporary directory.
    std::string checkpointDirectory;
    /// Asked before each call of a tool that requires approval (`file-write`). Empty (the default): such
    /// calls are approved, since whoever calls `callTool` chose to; set `readOnly` to refuse all writes.
    tools::ApprovalHandler approval;
};

/// \brief Why `createAgentTools` refused a configuration.
enum class StartupErrc {
    /// `workspaceRoot` is empty or does not exist.
    missing_workspace,
    /// `workspaceRoot` exists but is not a directory.
    not_a_directory,
    /// A limit is outside its range; the message names the field, the value and the range.
    out_of_range,
    /// A setting is not acceptable otherwise (a checkpoint directory inside the workspace).
    invalid_setting,
    /// The workspace could not be opened (permissions, ...) or a tool could not be registered.
    unavailable,
};
BOOST_DESCRIBE_ENUM(StartupErrc, missing_workspace, not_a_directory, out_of_range, invalid_setting,
                    unavailable)

[[nodiscard]] std::string_view toString(StartupErrc code) noexcept;

/// \brief A refused configuration: a code and a message naming the field at fault.
using StartupError = reagent::Error<StartupErrc>;

}  // namespace reagent::builtins
