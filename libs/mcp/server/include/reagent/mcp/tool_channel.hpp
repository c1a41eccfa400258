#pragma once
/// \file
/// \brief Helpers for tool handlers served by an MCP `Server`: sampling, elicitation and log lines sent
/// to the client that made the call.
///
/// They work through `tools::ToolContext::request` / `notify`, which the server fills in for each
/// `tools/call`. A call that came from somewhere else (an agent) has neither, and the helpers say so.
///
/// \par The two revisions
/// On a 2025 session a question is a request to the client, answered while the handler waits. In
/// 2026-07-28 the server sends no requests: an unanswered question ends the call with `input_required`
/// (every question the handler asked at that moment, by key), and when the client calls again with the
/// answers the handler runs again from the start, its questions answered at once. Work a handler does
/// before its questions may therefore run once per round: keep it free of side effects, or ask first.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::mcp {

/// \brief One message of a sampling request: a role and one content block (`{type:"text",text}`, ...).
struct SamplingMessage {
    std::string role = "user";
    nlohmann::json content;
};

/// \brief `sampling/createMessage` params.
struct SamplingRequest {
    std::vector<SamplingMessage> messages;
    /// Invariant: > 0. Default 1000.
    int maxTokens = 1000;
    /// Empty: not sent.
    std::string systemPrompt;
    std::optional<double> temperature;
    std::vector<std::string> stopSequences;
    /// `{hints:[{name}], costPriority, speedPriority, intelligencePriority}`; null: not sent.
    nlohmann::json modelPreferences = nullptr;
    /// 2026-07-28: the question's key in `inputRequests` (unique within the call). Empty: `sampling_<n>`,
    /// numbered in the order the handler asks.
    std::string key;
};

/// \brief The client's answer. Untrusted: it is model output.
struct SamplingResult {
    std::string role;
    nlohmann::json content;
    std::string model;
    std::string stopReason;
};

/// \brief `elicitation/create` params (form mode): a message for the user and a flat object schema.
struct ElicitRequest {
    std::string message;
    nlohmann::json requestedSchema =
        nlohmann::json{{"type", "object"}, {"properties", nlohmann::json::object()}};
    /// 2026-07-28: the question's key in `inputRequests`. Empty: `elicitation_<n>`.
    std::string key;
};

/// \brief The user's answer: `action` is `accept` (then `content` holds the values), `decline` or `cancel`.
/// Untrusted: it is user input.
struct ElicitResult {
    std::string action;
    nlohmann::json content = nullptr;
};

/// \brief Asks the client's model for a message (`sampling/createMessage`).
///
/// \par Errors
/// `ToolErrc::failed` when the call has no channel, when the client did not declare `sampling` in
/// `initialize`, when the client answers with an error or a malformed result; `timeout` after
/// `ServerOptions::clientRequestTimeout`; `cancelled` when the call is cancelled (the pending request is
/// forgotten).
[[nodiscard]] Task<expected<SamplingResult, tools::ToolError>> sample(const tools::ToolContext& context,
                                                                      SamplingRequest request);

/// \brief Asks the client's user for input (`elicitation/create`). Errors as `sample` (capability
/// `elicitation`).
[[nodiscard]] Task<expected<ElicitResult, tools::ToolError>> elicit(const tools::ToolContext& context,
                                                                    ElicitRequest request);

/// \brief Asks the client for its roots (`roots/list`). `key` names the question in 2026-07-28's
/// `inputRequests` (empty: `roots_<n>`). Errors as `sample` (capability `roots`; a root without a string
/// `uri` makes the answer malformed).
[[nodiscard]] Task<expected<std::vector<Root>, tools::ToolError>> listRoots(const tools::ToolContext& context,
                                                                            std::string key = {});

/// \brief Sends `notifications/message` tied to this call, if the session's level admits `level`; does
/// nothing for a call without a channel.
void logToClient(const tools::ToolContext& context, LogLevel level, nlohmann::json data,
                 std::string logger = {});

}  // namespace reagent::mcp
