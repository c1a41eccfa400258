#pragma once
/// \file
/// \brief `ToolError`: why a tool call produced no output.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace reagent::tools {

/// \brief The reason a tool call failed. Every failure is fed back to the model; the run goes on.
enum class ToolErrc {
    /// The arguments broke the tool's JSON Schema; the message names the path and the rule.
    invalid_arguments,
    /// The model asked for a tool that is not registered.
    unknown_tool,
    /// The handler did not finish within the tool's timeout and was cancelled.
    timeout,
    /// The handler returned an error of its own.
    failed,
    /// The handler threw; the message carries the exception's text.
    exception,
    /// The run was cancelled before or while the call ran.
    cancelled,
    /// The approval handler refused the call.
    approval_denied,
    /// The tool requires approval and no approval handler is set, so the call is refused.
    approval_unavailable,
    /// The tool is declaration-only (no handler): its caller executes it.
    not_executable,
    /// A tool definition is incomplete or malformed (bad name, schema, parameter, missing handler).
    invalid_definition,
    /// A tool with the same name is already registered.
    duplicate_name,
    /// The tool's `init` hook failed, so the tool cannot run yet.
    init_failed,
    /// The call was not run: it came after `final-answer` in the same reply, which ends the run.
    not_run,
};

/// \brief The code's name as shown to the model and in logs (`"invalid_arguments"`, ...).
[[nodiscard]] std::string_view toString(ToolErrc code) noexcept;

/// \brief A failed tool call or definition: a code, a message a person (or model) can act on, details.
struct ToolError {
    ToolErrc code = ToolErrc::failed;
    std::string message;
    /// Optional structured context (for validation: the failing paths and rules). Untrusted text may
    /// appear here when it came from a tool or the model.
    nlohmann::json details = nullptr;

    /// \brief A handler's own failure: `ToolError::failure("file not found: a.txt")`.
    [[nodiscard]] static ToolError failure(std::string message) {
        return {ToolErrc::failed, std::move(message)};
    }

    /// \brief The text the model reads: `"<code>: <message>"`.
    [[nodiscard]] std::string describe() const;
};

}  // namespace reagent::tools
