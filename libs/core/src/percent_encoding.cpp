#include "reagent/core/percent_encoding.hpp"

namespace reagent {

namespace {

// The byte of the escape at `text[i]` (a '%'), or -1 when two hex digits do not follow it.
int escapedByte(std::string_view text, std::size_t i) noexcept {
    if (i + 2 >= text.size()) {
        return -1;
    }
    const int high = hexDigitValue(text[i + 1]);
    const int low = hexDigitValue(text[i + 2]);
    return high < 0 || low < 0 ? -1 : high * 16 + low;
}

}  // namespace

std::optional<std::string> percentDecoded(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out.push_back(text[i]);
            continue;
        }
        const int byte = escapedByte(text, i);
        if (byte < 0) {
            return std::nullopt;
        }
        out.push_back(static_cast<char>(byte));
        i += 2;
    }
    return out;
}

std::string percentDecodedLenient(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const int byte = text[i] == '%' ? escapedByte(text, i) : -1;
        if (byte < 0) {
            out.push_back(text[i]);
            continue;
        }
        out.push_back(static_cast<char>(byte));
        i += 2;
    }
    return out;
}

}  // namespace reagent
