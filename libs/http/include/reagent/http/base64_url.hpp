#pragma once
/// \file
/// \brief `base64Url`: bytes as base64url without padding (RFC 4648 §5), for tokens, PKCE and JWTs; and
/// `base64`, the standard alphabet with padding (§4), for header values.

#include <string>
#include <string_view>

namespace reagent::http {

/// \brief `bytes` in base64url (`A-Z a-z 0-9 - _`), without `=` padding.
[[nodiscard]] std::string base64Url(std::string_view bytes);

/// \brief `bytes` in base64 (`A-Z a-z 0-9 + /`), padded with `=`.
[[nodiscard]] std::string base64(std::string_view bytes);

}  // namespace reagent::http
