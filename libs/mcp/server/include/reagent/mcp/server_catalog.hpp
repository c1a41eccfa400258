#pragma once
/// \file
/// \brief What a `Server` offers beside tools: resources, resource templates, prompts and completions.

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/tools/tool_context.hpp"

namespace reagent::mcp {

/// \brief JSON-RPC error code of `resources/read` for a URI no resource or template serves (MCP spec).
inline constexpr int kResourceNotFound = -32002;

/// \brief One item of a `resources/read` result: text, or binary data as base64 (`blob`).
struct ResourceContents {
    std::string uri;
    /// Empty: not sent.
    std::string mimeType;
    /// The text (ignored when `blob` is set).
    std::string text;
    /// Base64 of binary contents; when set the item is a `BlobResourceContents`.
    std::optional<std::string> blob;
};

/// \brief `{uri, mimeType?, text | blob}` as the wire shows it.
[[nodiscard]] nlohmann::json toJson(const ResourceContents& contents);

/// \brief Reads a resource (the URI asked for); an `RpcError` goes back to the client as is.
using ResourceReader =
    std::function<Task<expected<std::vector<ResourceContents>, RpcError>>(std::string uri)>;
/// \brief The values a URI gave a template's `{variables}`.
using TemplateVariables = std::map<std::string, std::string>;
/// \brief Reads a resource a template matched: the URI and the values of the template's variables.
using TemplateReader = std::function<Task<expected<std::vector<ResourceContents>, RpcError>>(
    std::string uri, TemplateVariables variables)>;

/// \brief A resource as `resources/list` shows it.
struct ResourceInfo {
    std::string uri;
    std::string name;
    std::string description;
    /// Empty: not sent.
    std::string mimeType;
};

/// \brief A resource template as `resources/templates/list` shows it (`uriTemplate`: RFC 6570 level 1).
struct ResourceTemplateInfo {
    std::string uriTemplate;
    std::string name;
    std::string description;
    std::string mimeType;
};

/// \brief True when `uriTemplate` is RFC 6570 level 1: literal text and `{name}` expressions, names of
/// ASCII letters, digits and `_`, no two expressions side by side (their boundary would be ambiguous).
[[nodiscard]] bool isValidUriTemplate(std::string_view uriTemplate);

/// \brief Matches `uri` against a level-1 template: each `{var}` takes one or more characters up to the
/// next literal of the template (never a `/`), unescaped. Nothing when it does not match.
[[nodiscard]] std::optional<TemplateVariables> matchUriTemplate(std::string_view uriTemplate,
                                                                std::string_view uri);

/// \brief An argument a prompt takes.
struct PromptArgument {
    std::string name;
    std::string description;
    /// A `prompts/get` without it is refused with -32602.
    bool required = false;
};

/// \brief A prompt as `prompts/list` shows it.
struct PromptInfo {
    std::string name;
    std::string description;
    std::vector<PromptArgument> arguments;
};

/// \brief One message of a prompt: a role (`user` or `assistant`) and one MCP content block
/// (`{type:"text",text}`, `image`, `audio`, `resource`, `resource_link`).
struct PromptMessage {
    std::string role = "user";
    nlohmann::json content;
};

/// \brief The `prompts/get` result.
struct PromptResult {
    /// Empty: not sent.
    std::string description;
    std::vector<PromptMessage> messages;
};

/// \brief A prompt's arguments, as the client gave them (required ones are checked before the call).
using PromptArguments = std::map<std::string, std::string>;
/// \brief Builds a prompt's messages; an `RpcError` goes back to the client as is.
using PromptGetter = std::function<Task<expected<PromptResult, RpcError>>(PromptArguments arguments)>;
/// \brief A prompt getter that may ask the client questions on the way (`mcp::elicit`, `mcp::sample`,
/// `mcp::listRoots` with `context`, as a tool handler does): requests on a 2025 session, `input_required`
/// rounds in 2026-07-28 (the getter runs again with the answers).
using AskingPromptGetter = std::function<Task<expected<PromptResult, RpcError>>(PromptArguments arguments,
                                                                                tools::ToolContext context)>;

/// \brief What `completion/complete` refers to: a prompt (by name) or a resource template (by its URI
/// template, `ref/resource`).
struct CompletionRef {
    enum class Kind { prompt, resource };
    Kind kind = Kind::prompt;
    std::string name;
};

/// \brief Suggested values (the server sends at most 100 and says `hasMore` when it cut).
struct CompletionResult {
    std::vector<std::string> values;
    /// The number of matches in all, when known.
    std::optional<std::size_t> total;
    bool hasMore = false;
};

/// \brief Suggests values for an argument from what the user typed (`value`) and, from 2025-06-18, the
/// other arguments already given (`context`: an object of name to value, maybe empty). Must not throw.
using CompletionProvider =
    std::function<CompletionResult(const std::string& value, const nlohmann::json& context)>;

}  // namespace reagent::mcp
