#pragma once
// gzip for OTLP bodies (`Content-Encoding: gzip`), through Boost.Iostreams' zlib filter. Private to the
// telemetry library.

#include <optional>
#include <string>
#include <string_view>

namespace reagent::telemetry::detail {

/// `data` as one gzip member (RFC 1952); none when zlib fails (it can only run out of memory).
[[nodiscard]] std::optional<std::string> gzipCompress(std::string_view data) noexcept;

}  // namespace reagent::telemetry::detail
