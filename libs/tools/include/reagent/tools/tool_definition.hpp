#pragma once
/// \file
/// \brief `ToolDefinition`: what a tool is, for the model (name, description, schema) and for the runtime.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief How much harm a call can do; shown to approval handlers and people.
enum class RiskLevel { low, medium, high };
BOOST_DESCRIBE_ENUM(RiskLevel, low, medium, high)

/// \brief Whether a tool's result goes back to the model.
enum class ToolMode {
    /// The result feeds the next model turn (the default).
    feedback,
    /// Fire and forget: the result is recorded but not shown to the model. A batch made only of silent
    /// calls ends the run after dispatch.
    silent,
};
BOOST_DESCRIBE_ENUM(ToolMode, feedback, silent)

[[nodiscard]] std::string_view toString(RiskLevel level) noexcept;
[[nodiscard]] std::string_view toString(ToolMode mode) noexcept;

/// \brief A present-progressive text for people ("Searching for \"x\""), computed from validated input.
using ActionText = std::function<std::string(const nlohmann::json& args)>;

/// \brief Decides, from a call's validated arguments, whether that call needs approval.
using ApprovalRule = std::function<bool(const nlohmann::json& args)>;

/// \brief Everything about a tool except its code.
struct ToolDefinition {
    /// Unique name, matching `^[a-zA-Z_][a-zA-Z0-9_.:/-]{0,127}$`, so MCP-style `server/tool` names
    /// work; providers that accept fewer characters get a mapped name (`providers::ToolNameMap`).
    std::string name;
    /// What the model reads to decide whether to call the tool. Required.
    std::string description;
    /// Optional progress text for people (events, CLI); never sent to the model.
    ActionText action;
    /// JSON Schema of the arguments; must describe an object. Default: an object with no properties.
    nlohmann::json inputSchema = nlohmann::json{{"type", "object"}, {"properties", nlohmann::json::object()}};
    /// Optional JSON Schema of the handler's structured result (`ToolContext::structured`); an MCP server
    /// lists it as `outputSchema`. Null (default): none.
    nlohmann::json outputSchema = nullptr;
    /// Free-form grouping ("file", "http", ...). Default: empty.
    std::string category;
    std::vector<std::string> tags;
    /// Default: low.
    RiskLevel riskLevel = RiskLevel::low;
    /// Per-call limit; the handler is cancelled when it runs out. Invariant: > 0. Default 30 s.
    std::chrono::milliseconds timeout{30'000};
    /// When true the call runs only if the approval handler says yes; refused when none is set.
    bool requiresApproval = false;
    /// With `requiresApproval`: when set, only the calls for which it returns true ask for approval (a
    /// tool lets the calls it knows to be harmless, such as `git status`, run without asking). Unset: every
    /// call asks. It must not throw; an exception counts as "ask".
    ApprovalRule approvalRule;
    /// Default: feedback.
    ToolMode mode = ToolMode::feedback;
    /// Runs alone, never beside other calls. Also implied by a side-effect name prefix (`create_`, ...).
    bool sideEffect = false;
    /// False: doing the call twice does harm (a payment, a message sent) and the handler cannot make its
    /// effect happen once (`ToolContext::idempotencyKey`). A journaled (durable) run that stopped while such
    /// a call ran does not run it again by itself: the call asks for approval, so a person decides
    /// (docs/durable-runs.md). Default: true.
    bool idempotent = true;
};

/// \brief True when `name` matches `^[a-zA-Z_][a-zA-Z0-9_.:/-]{0,127}$`.
[[nodiscard]] bool isValidToolName(std::string_view name) noexcept;

/// \brief Checks a definition: name, description, timeout, and that the schema describes an object.
///
/// \par Errors
/// `ToolErrc::invalid_definition`, with a message naming the field at fault.
[[nodiscard]] expected<void, ToolError> validateDefinition(const ToolDefinition& definition);

}  // namespace reagent::tools
