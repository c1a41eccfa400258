#pragma once
/// \file
/// \brief `ToolError`: why a tool call produced no output.

#include <boost/describe/enum.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/error_cause.hpp"

namespace reagent::tools {

/// \brief The reason a tool call failed. Every failure is fed back to the model; the run goes on.
enum class ToolErrc {
    /// The arguments broke the tool's JSON Schema (the message names the path and the rule), or the tool
    /// refused them (the message says why, so the model can send others).
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
    /// The call requires approval and the run pauses for the caller's decision
    /// (`AgentBuilder::withDeferredApproval`); it runs, or is refused, when the run resumes.
    approval_pending,
};
BOOST_DESCRIBE_ENUM(ToolErrc, invalid_arguments, unknown_tool, timeout, failed, exception, cancelled,
                    approval_denied, approval_unavailable, not_executable, invalid_definition, duplicate_name,
                    init_failed, not_run, approval_pending)

/// \brief The code's name as shown to the model and in logs (`"invalid_arguments"`, ...).
[[nodiscard]] std::string_view toString(ToolErrc code) noexcept;

/// \brief The failure underneath a tool error, in its own terms (`reagent::ErrorCause`, from core).
using ErrorCause = reagent::ErrorCause;

/// \brief A failed tool call or definition: a code, a message a person (or model) can act on, details.
///
/// Every failure of a call, whatever went wrong, is one `ToolError`: the
/// executor fills in `tool` and `tripIndex`, and `cause` holds the original error when there was one
/// (`schema` for invalid arguments, `exception` for a handler that threw, `agent` for a sub-agent or
/// workflow step that failed, `a2a` for a remote agent).
struct ToolError {
    ToolErrc code = ToolErrc::failed;
    std::string message;
    /// Optional structured context (for validation: the failing paths and rules). Untrusted text may
    /// appear here when it came from a tool or the model.
    nlohmann::json details = nullptr;
    /// For a failed call: the tool the model called (set by `ToolExecutor`); empty for a definition error.
    std::string tool{};
    /// For a failed call: the model turn that asked for it (0-based); -1 when not a call's error.
    int tripIndex = -1;
    /// The original error, or null.
    std::shared_ptr<const ErrorCause> cause{};

    /// \brief A handler's own failure: `ToolError::failure("file not found: a.txt")`.
    [[nodiscard]] static ToolError failure(std::string message) {
        return {ToolErrc::failed, std::move(message)};
    }
    /// \brief A handler's failure caused by another error (kept as `cause`).
    [[nodiscard]] static ToolError failure(std::string message, ErrorCause cause) {
        ToolError error{ToolErrc::failed, std::move(message)};
        error.cause = std::make_shared<const ErrorCause>(std::move(cause));
        return error;
    }

    /// \brief This error as the cause of another (domain `tool`, its own cause chained).
    [[nodiscard]] ErrorCause asCause() const;
    /// \brief The causes, outermost first (empty without one).
    [[nodiscard]] std::vector<const ErrorCause*> causes() const;
    /// \brief The root of the chain: the innermost cause, or null.
    [[nodiscard]] const ErrorCause* rootCause() const;

    /// \brief The text the model reads: `"<code>: <message>"`.
    [[nodiscard]] std::string describe() const;
};

}  // namespace reagent::tools
