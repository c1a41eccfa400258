#pragma once
/// \file
/// \brief `base64Url`: bytes as base64url without padding (RFC 4648 §5), for tokens, PKCE and JWTs. The
/// standard alphabet with padding (§4) is `reagent::base64Encode` / `base64Decode` (reagent/core/base64.hpp).

#include <string>
#include <string_view>

namespace reagent::http {

/// \brief `bytes` in base64url (`A-Z a-z 0-9 - _`), without `=` padding.
[[nodiscard]] std::string base64Url(std::string_view bytes);

}  // namespace reagent::http
