#pragma once
// UTF-8 helpers for previews and snippets. A "character" is a Unicode code point; a byte that does not
// start a well-formed sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) counts as
// one character of its own, so every byte string has a length and can be cut.

#include <cstddef>
#include <string>
#include <string_view>

namespace reagent::memory::utf8 {

/// The ellipsis appended where text was cut (U+2026, one character, three bytes).
inline constexpr std::string_view kEllipsis = "\xE2\x80\xA6";

/// Number of characters in `text`.
[[nodiscard]] std::size_t length(std::string_view text) noexcept;

/// Whether `text` has more than `limit` characters; stops counting early.
[[nodiscard]] bool longerThan(std::string_view text, std::size_t limit) noexcept;

/// Byte length of the first `count` characters of `text` (all of it when shorter); never splits a
/// well-formed sequence.
[[nodiscard]] std::size_t prefixBytes(std::string_view text, std::size_t count) noexcept;

/// Whether `text` is entirely well-formed UTF-8.
[[nodiscard]] bool isValid(std::string_view text) noexcept;

/// `text` as valid UTF-8, at most `maxChars` characters: when longer, its first `maxChars - 1`
/// characters followed by the ellipsis.
[[nodiscard]] std::string cut(std::string_view text, std::size_t maxChars);

/// One-line snippet of `value` around the match [matchBegin, matchEnd): up to `radius` characters each
/// side, cut on character boundaries, control whitespace as spaces, the ellipsis where a side was cut.
[[nodiscard]] std::string snippetAround(std::string_view value, std::size_t matchBegin, std::size_t matchEnd,
                                        std::size_t radius);

}  // namespace reagent::memory::utf8
