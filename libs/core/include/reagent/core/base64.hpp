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

/// \brief The bytes of canonical padded base64 (RFC 4648 §4); none for any other text: a character outside
/// the alphabet (line breaks and blanks included), a length that is not a multiple of 4, padding anywhere
/// but at the end, bits left over in the last character.
[[nodiscard]] std::optional<std::string> base64Decode(std::string_view text);

}  // namespace reagent
