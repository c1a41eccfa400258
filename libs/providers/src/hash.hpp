#pragma once
// A small stable hash for synthesized names and ids. Internal to the providers library.

#include <cstdint>
#include <string>
#include <string_view>

namespace reagent::providers::detail {

/// 32-bit FNV-1a: stable across runs and platforms, which is all the ids and names built from it need.
[[nodiscard]] inline std::uint32_t fnv1a(std::string_view text) noexcept {
    std::uint32_t hash = 2166136261u;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    return hash;
}

/// `value` as 8 lowercase hex digits.
[[nodiscard]] inline std::string hex8(std::uint32_t value) {
    constexpr std::string_view kDigits = "0123456789abcdef";
    std::string text(8, '0');
    for (std::size_t i = 0; i < 8; ++i) {
        text[7 - i] = kDigits[(value >> (4 * i)) & 0xFu];
    }
    return text;
}

}  // namespace reagent::providers::detail
