#pragma once
// What the network tools share: JSON out, HTTP errors in the model's words.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reagent/http/http_error.hpp"
#include "reagent/http/http_response.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::builtins::detail {

/// `value` as compact JSON text; invalid UTF-8 from the network becomes U+FFFD instead of throwing.
[[nodiscard]] std::string jsonText(const nlohmann::json& value);

/// A failed exchange with `service` ("CoinGecko"), as the model reads it.
[[nodiscard]] tools::ToolError httpFailure(std::string_view service, const http::HttpError& error);

/// The message of an HTTP 429 from `service`: the server's `Retry-After` when it sent one.
[[nodiscard]] std::string rateLimited(std::string_view service, const http::HttpResponseHead& head);

/// A short, printable excerpt of an error body from `service` (for messages; at most 300 bytes).
[[nodiscard]] std::string bodyExcerpt(std::string_view body);

}  // namespace reagent::builtins::detail
