#pragma once
// Private to libs/builtins: what the file tools share (errors, arguments, text).

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/builtins/command.hpp"
#include "reagent/builtins/workspace_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_error.hpp"
#include "reagent/tools/tool_source.hpp"
#include "workspace/workspace_root.hpp"

namespace reagent::builtins::detail {

/// The `timeoutMs` argument, else `fallback`; outside 1..`max` an `invalid_arguments` error naming the range.
[[nodiscard]] expected<std::chrono::milliseconds, tools::ToolError> timeoutArg(
    const nlohmann::json& args, std::chrono::milliseconds fallback, std::chrono::milliseconds max);

/// What the command tools return: `{exit_code, stdout, stderr, signal, timed_out}`.
[[nodiscard]] nlohmann::json commandResultJson(const CommandResult& result);

/// `json` as the tools' text: compact, invalid UTF-8 in command output replaced rather than thrown on.
[[nodiscard]] std::string dumpToolJson(const nlohmann::json& json);

/// Records the checkpoint a call took in its artifacts (`tools::kCheckpointArtifact`), where the system
/// (not the model) finds it: the agent gathers it on `RunResult::checkpoints`.
void recordCheckpoint(const tools::ToolContext& context, const std::optional<std::string>& id);

/// The key of `ToolError::details` that holds the workspace's code (`"outside_workspace"`).
inline constexpr const char* kWorkspaceCodeKey = "workspaceCode";

/// A workspace failure as the model reads it: `invalid_argument` becomes `invalid_arguments` (the model
/// can fix its call), the rest `failed`; the message is the workspace's, prefixed by its code.
[[nodiscard]] tools::ToolError toolError(const WorkspaceError& error);

/// A validated non-negative integer argument, or `fallback`. (Strings and booleans: core's `stringOr`
/// and `boolOr`.)
[[nodiscard]] std::size_t sizeArg(const nlohmann::json& args, const char* name, std::size_t fallback);

/// The tool `builder` describes. Built-in definitions are fixed: a failure is a bug, and throws.
[[nodiscard]] tools::Tool built(const tools::ToolBuilder& builder);

/// A file tool's builder: its name and description, an object schema of `properties` (no other
/// property allowed) requiring `required`, category `file`, and `timeout`.
[[nodiscard]] tools::ToolBuilder fileToolBuilder(std::string_view name, std::string description,
                                                 nlohmann::json properties, nlohmann::json required,
                                                 std::chrono::milliseconds timeout);

/// Schema properties: a non-empty string (with a default when `defaultValue` is set), a boolean with its
/// default, an integer from `minimum` (with a default when `defaultValue` is set).
[[nodiscard]] nlohmann::json stringProperty(std::string description, const char* defaultValue = nullptr);
[[nodiscard]] nlohmann::json booleanProperty(bool defaultValue, std::string description);
[[nodiscard]] nlohmann::json integerProperty(std::size_t minimum, std::string description,
                                             std::optional<std::size_t> defaultValue = std::nullopt);

/// `"1 file"` / `"2 files"`.
[[nodiscard]] std::string counted(std::size_t count, std::string_view singular, std::string_view plural);

/// `text` cut to at most `maxBytes` bytes at a character boundary, with `…` when something was cut.
[[nodiscard]] std::string shortened(std::string_view text, std::size_t maxBytes);

}  // namespace reagent::builtins::detail
