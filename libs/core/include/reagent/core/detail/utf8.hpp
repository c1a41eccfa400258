#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reagent::detail {

/// \brief Length in bytes of the well-formed UTF-8 sequence starting at `text[pos]` (1 to 4), or 0 when
/// none starts there: overlong forms, surrogates, code points above U+10FFFF and sequences cut by the end
/// of `text` are malformed (RFC 3629). `pos` must be less than `text.size()`.
[[nodiscard]] std::size_t utf8SequenceLength(std::string_view text, std::size_t pos) noexcept;

/// \brief U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

/// \brief Appends `text` to `out` with each byte that does not start a well-formed sequence replaced by
/// U+FFFD, so `out` stays valid UTF-8 whatever `text` holds (untrusted output, stored rows, replies).
void appendValidUtf8(std::string& out, std::string_view text);

/// \brief The longest prefix of `text` of at most `maxBytes` bytes that does not end inside a UTF-8
/// sequence: cutting there never splits a character (bytes that are not UTF-8 are cut like any other).
[[nodiscard]] std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes) noexcept;

}  // namespace reagent::detail
