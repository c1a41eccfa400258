#include "reagent/core/base64.hpp"

#include <array>
#include <cstdint>

namespace reagent {

namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Each byte's 6-bit value; 0xFF for a byte outside the alphabet.
constexpr std::array<std::uint8_t, 256> kValues = [] {
    std::array<std::uint8_t, 256> values{};
    values.fill(0xFF);
    for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
        values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
    }
    return values;
}();

}  // namespace

std::string base64Encode(std::string_view bytes) {
    std::string out;
    out.resize((bytes.size() + 2) / 3 * 4);
    std::size_t o = 0;
    std::size_t i = 0;
    const auto at = [&](std::size_t k) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
    };
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t group = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        out[o++] = kAlphabet[(group >> 18) & 63];
        out[o++] = kAlphabet[(group >> 12) & 63];
        out[o++] = kAlphabet[(group >> 6) & 63];
        out[o++] = kAlphabet[group & 63];
    }
    if (const std::size_t rest = bytes.size() - i; rest > 0) {
        const std::uint32_t group = (at(i) << 16) | (rest == 2 ? at(i + 1) << 8 : 0);
        out[o++] = kAlphabet[(group >> 18) & 63];
        out[o++] = kAlphabet[(group >> 12) & 63];
        out[o++] = rest == 2 ? kAlphabet[(group >> 6) & 63] : '=';
        out[o++] = '=';
    }
    return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=') {
        padding = text[text.size() - 2] == '=' ? 2 : 1;
    }
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        std::uint32_t group = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const char c = text[i + k];
            if (c == '=' && last && k >= 4 - padding) {
                group <<= 6;
                continue;
            }
            const std::uint8_t value = kValues[static_cast<unsigned char>(c)];
            if (value == 0xFF) {
                return std::nullopt;
            }
            group = (group << 6) | value;
        }
        // Canonical only: the bits a padded group does not carry must be zero.
        if (last &&
            ((padding == 1 && ((group >> 6) & 3) != 0) || (padding == 2 && ((group >> 12) & 15) != 0))) {
            return std::nullopt;
        }
        out.push_back(static_cast<char>((group >> 16) & 0xFF));
        if (!last || padding < 2) {
            out.push_back(static_cast<char>((group >> 8) & 0xFF));
        }
        if (!last || padding < 1) {
            out.push_back(static_cast<char>(group & 0xFF));
        }
    }
    return out;
}

}  // namespace reagent
