#include "reagent/core/detail/utf8.hpp"

namespace reagent::detail {

std::size_t utf8SequenceLength(std::string_view text, std::size_t pos) noexcept {
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[pos + i]); };
    const unsigned char lead = at(0);
    if (lead < 0x80U) {
        return 1;
    }
    std::size_t size = 0;
    // The second byte's range excludes overlong forms, surrogates and code points above U+10FFFF.
    unsigned char low = 0x80U;
    unsigned char high = 0xBFU;
    if (lead >= 0xC2U && lead <= 0xDFU) {
        size = 2;
    } else if (lead >= 0xE0U && lead <= 0xEFU) {
        size = 3;
        low = lead == 0xE0U ? 0xA0U : 0x80U;
        high = lead == 0xEDU ? 0x9FU : 0xBFU;
    } else if (lead >= 0xF0U && lead <= 0xF4U) {
        size = 4;
        low = lead == 0xF0U ? 0x90U : 0x80U;
        high = lead == 0xF4U ? 0x8FU : 0xBFU;
    } else {
        return 0;
    }
    if (text.size() - pos < size || at(1) < low || at(1) > high) {
        return 0;
    }
    for (std::size_t i = 2; i < size; ++i) {
        if ((at(i) & 0xC0U) != 0x80U) {
            return 0;
        }
    }
    return size;
}

std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes) noexcept {
    if (text.size() <= maxBytes) {
        return text;
    }
    // Back off over continuation bytes to the start of the sequence the cut would split.
    std::size_t cut = maxBytes;
    for (std::size_t back = 0;
         back < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U; ++back) {
        --cut;
    }
    return text.substr(0, (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U ? maxBytes : cut);
}

void appendValidUtf8(std::string& out, std::string_view text) {
    std::size_t start = 0;  // beginning of the pending well-formed run
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (static_cast<unsigned char>(text[pos]) < 0x80U) {
            ++pos;
            continue;
        }
        const std::size_t n = utf8SequenceLength(text, pos);
        if (n != 0) {
            pos += n;
            continue;
        }
        out.append(text.substr(start, pos - start));
        out.append(kUtf8Replacement);
        start = ++pos;
    }
    out.append(text.substr(start));
}

}  // namespace reagent::detail
