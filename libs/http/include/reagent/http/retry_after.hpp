#pragma once
/// \file
/// \brief `Retry-After` (RFC 9110 §10.2.3) and the HTTP-dates it may carry (§5.6.7), for every client that
/// honours a server's request to wait: the model providers and the telemetry exporter.

#include <chrono>
#include <optional>
#include <string_view>

namespace reagent::http {

/// \brief Parses an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), or the obsolete RFC 850 ("Sunday,
/// 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994") forms. A two-digit RFC 850 year more
/// than 50 years after `now` is taken from the previous century, as RFC 9110 requires.
[[nodiscard]] std::optional<std::chrono::system_clock::time_point> parseHttpDate(
    std::string_view text, std::chrono::system_clock::time_point now);

/// \brief Parses a `Retry-After` value: delta-seconds, or an HTTP-date (IMF-fixdate, or the obsolete
/// RFC 850 and asctime forms, as RFC 9110 asks recipients to accept). A date in the past gives zero.
/// Returns nothing if the value is neither.
[[nodiscard]] std::optional<std::chrono::milliseconds> parseRetryAfter(
    std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace reagent::http
