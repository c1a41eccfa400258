#pragma once
/// \file
/// \brief `EncodedRequest`: a `ModelRequest` in a provider's wire format.

#include <string>

#include <nlohmann/json.hpp>

#include "reagent/providers/tool_name_map.hpp"

namespace reagent::providers {

/// \brief What a codec's `encodeRequest` produces: the JSON body, where to send it, and the tool-name map
/// the reply must be decoded with.
struct EncodedRequest {
    /// The request body.
    nlohmann::json body;
    /// Path and query relative to the provider's base URL ("/v1/messages",
    /// "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", ...).
    std::string path;
    /// Pass this to `decodeResponse` or the stream decoder so tool calls come back under their own names.
    ToolNameMap toolNames;

    /// \brief The body as compact JSON. Invalid UTF-8 in the conversation (tool output is arbitrary bytes)
    /// becomes U+FFFD instead of throwing, so always serialize through this.
    [[nodiscard]] std::string serialize() const {
        return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
};

}  // namespace reagent::providers
