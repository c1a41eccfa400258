#pragma once
/// \file
/// \brief `EncodedRequest` and `EncodedTools`: a `ModelRequest` in a provider's wire format.

#include <nlohmann/json.hpp>
#include <string>

#include "reagent/providers/tool_name_map.hpp"

namespace reagent::providers {

/// \brief A request's tool list in one wire format: the name map and the JSON of the declarations.
///
/// Encoding a long tool list (schemas, descriptions) costs more than the rest of a request, and an agent
/// offers the same list on every turn: a format's `WireFormat::encodeTools` result is made once and passed
/// to `WireFormat::encodeRequest` for every request offering that list (`HttpProvider` keeps the last few).
struct EncodedTools {
    /// The names the tools go by on the wire, and back.
    ToolNameMap names;
    /// The value of the format's tools field as compact JSON text; empty when there are no tools.
    std::string json;
};

/// \brief What a format's `WireFormat::encodeRequest` produces: the JSON body, where to send it, and the
/// tool-name map the reply must be decoded with.
struct EncodedRequest {
    /// The request body: compact JSON, object keys in sorted order. Invalid UTF-8 in the conversation
    /// (tool output is arbitrary bytes) has become U+FFFD.
    std::string body;
    /// Path and query relative to the provider's versioned base URL ("/messages" below
    /// "https://api.anthropic.com/v1", "/models/gemini-2.5-flash:streamGenerateContent?alt=sse", ...).
    std::string path;
    /// Pass this to `WireFormat::decodeReply` or the stream decoder so tool calls come back under their own
    /// names.
    ToolNameMap toolNames;

    /// \brief The body parsed, for inspection (tests, logs).
    [[nodiscard]] nlohmann::json json() const { return nlohmann::json::parse(body); }
};

}  // namespace reagent::providers
