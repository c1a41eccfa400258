#pragma once
/// \file
/// \brief Percent-encoded text (RFC 3986 §2.1), as URIs, W3C Baggage and OpenTelemetry's variables write it.

#include <optional>
#include <string>
#include <string_view>

namespace reagent {

/// \brief The value of a hex digit (either case); -1 for any other character.
[[nodiscard]] constexpr int hexDigitValue(char c) noexcept {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/// \brief `text` with each `%XX` replaced by its byte; none when a `%` is not followed by two hex digits.
[[nodiscard]] std::optional<std::string> percentDecoded(std::string_view text);

/// \brief As `percentDecoded`, but a `%` without two hex digits after it is kept as it is.
[[nodiscard]] std::string percentDecodedLenient(std::string_view text);

}  // namespace reagent
