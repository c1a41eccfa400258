#pragma once
/// \file
/// \brief `base64Encode` and `base64Decode`: bytes as base64 text (RFC 4648 §4, standard alphabet, padded),
/// as the model APIs carry images and documents and saved runs keep them.

#include <optional>
#include <string>
#include <string_view>

namespace reagent {

/// \brief `bytes` in base64 (`A-Z a-z 0-9 + /`), padded with `=`.
[[nodiscard]] std::string base64Encode(std::string_view bytes);

/// \brief The bytes `text` encodes; none when it is not base64 (a character outside the alphabet, a length
/// that is not a multiple of 4, padding anywhere but at the end). Line breaks are not accepted.
[[nodiscard]] std::optional<std::string> base64Decode(std::string_view text);

}  // namespace reagent
