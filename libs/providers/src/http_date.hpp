#pragma once
// Parsing of HTTP-dates (RFC 9110 section 5.6.7), for Retry-After. Internal to the providers library.

#include <chrono>
#include <optional>
#include <string_view>

namespace reagent::providers::detail {

/// Parses an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), or the obsolete RFC 850 ("Sunday,
/// 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994") forms. A two-digit RFC 850 year more
/// than 50 years after `now` is taken from the previous century, as RFC 9110 requires.
[[nodiscard]] std::optional<std::chrono::system_clock::time_point> parseHttpDate(
    std::string_view text, std::chrono::system_clock::time_point now);

}  // namespace reagent::providers::detail
