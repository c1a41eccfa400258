#pragma once
/// \file
/// \brief Header values that may hold any text (MCP's `Mcp-Name`, `Mcp-Param-*`): plain when every byte is
/// visible ASCII (or an inner space or tab), otherwise `=?base64?<base64 of the UTF-8 bytes>?=`.

#include <optional>
#include <string>
#include <string_view>

namespace reagent::http {

/// \brief `value` as a header value: as it is when every byte is visible ASCII or an inner space or tab;
/// otherwise (other bytes, a leading or trailing space or tab, or text that looks like the encoded form)
/// encoded.
[[nodiscard]] std::string encodeHeaderValue(std::string_view value);

/// \brief The text a header value carries: an encoded value decoded (canonical padded base64 of valid
/// UTF-8, or nothing), any other value as it is, without surrounding spaces and tabs (RFC 9110 §5.5).
[[nodiscard]] std::optional<std::string> decodeHeaderValue(std::string_view value);

}  // namespace reagent::http
