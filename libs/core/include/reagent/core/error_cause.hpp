#pragma once
/// \file
/// \brief `ErrorCause`: an error in its own domain's terms, kept underneath the error that reports it.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace reagent {

/// \brief The failure underneath another error, in its own terms: a sub-agent's `AgentError`, a remote
/// agent's A2A error, a schema violation, the exception a handler threw. Causes chain: a workflow step's
/// cause is the sub-agent's error, whose cause is the tool error that ended it, and so on.
///
/// It lives in core so that any library can keep the error beneath its own without depending on the
/// library whose error carries it (`tools::ToolError::cause`).
struct ErrorCause {
    /// Where it came from: `tool`, `schema`, `exception`, `agent`, `a2a`, `mcp`, `workflow`, ...
    std::string domain;
    /// Its code in that domain (`provider_error`, `timeout`, ...); may be empty (an exception).
    std::string code;
    std::string message;
    /// Structured context, as the domain's error had it (untrusted text possible).
    nlohmann::json details = nullptr;
    /// What caused it in turn, or null.
    std::shared_ptr<const ErrorCause> cause{};

    /// \brief `"<domain>/<code>: <message>"` (`"<domain>: <message>"` without a code).
    [[nodiscard]] std::string describe() const;
};

}  // namespace reagent
