#pragma once
// Private to reagent::agent: the images and documents among a tool's content blocks
// (`ToolCallRecord::content`), as attachments of its result message.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/llm/attachment.hpp"

namespace reagent::agent::detail {

/// The attachments in `content`, MCP-shaped blocks: `image` {data, mimeType} and `resource`
/// {resource: {uri, mimeType, blob}}, their base64 decoded and their media type read from the bytes. A
/// block that cannot be one (not base64, not a supported type, too large) adds a line to `notes` saying
/// so, for the model; other kinds (text, audio, links) are left to the result's text.
[[nodiscard]] std::vector<llm::Attachment> attachmentsOf(const std::vector<nlohmann::json>& content,
                                                         std::string& notes);

/// The inverse, for a tool that hands stored attachments back (`recall` of an episode): each attachment
/// with bytes as an `image` block or a `resource` block with a `blob` (its `uri` the attachment's name);
/// one by URL adds a line naming its URL to `notes` instead (MCP has no block for it).
[[nodiscard]] std::vector<nlohmann::json> contentOf(const std::vector<llm::Attachment>& attachments,
                                                    std::string& notes);

}  // namespace reagent::agent::detail
