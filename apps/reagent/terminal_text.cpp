#include "terminal_text.hpp"

#include <cstdio>

#include "reagent/core/detail/utf8.hpp"

namespace reagent::cli {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

void appendEscape(std::string& out, const char* format, unsigned value) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, format, value);
    out += buffer;
}

// The code point of the well-formed sequence of `size` bytes at `text[pos]`.
unsigned decode(std::string_view text, std::size_t pos, std::size_t size) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[pos + i]); };
    if (size == 2) {
        return ((byte(0) & 0x1FU) << 6U) | (byte(1) & 0x3FU);
    }
    if (size == 3) {
        return ((byte(0) & 0x0FU) << 12U) | ((byte(1) & 0x3FU) << 6U) | (byte(2) & 0x3FU);
    }
    return ((byte(0) & 0x07U) << 18U) | ((byte(1) & 0x3FU) << 12U) | ((byte(2) & 0x3FU) << 6U) |
           (byte(3) & 0x3FU);
}

// Embedding and override controls that reorder what follows them on screen (Trojan Source).
bool reordersText(unsigned codePoint) {
    return (codePoint >= 0x202AU && codePoint <= 0x202EU) || (codePoint >= 0x2066U && codePoint <= 0x2069U);
}

// Whether a lead byte at the end of `text` starts a sequence that more bytes could still complete.
std::size_t incompleteTail(std::string_view text) {
    const std::size_t size = text.size();
    for (std::size_t back = 1; back <= 3 && back <= size; ++back) {
        const auto byte = static_cast<unsigned char>(text[size - back]);
        if ((byte & 0xC0U) != 0x80U) {
            const std::size_t needed = byte >= 0xF0U ? 4 : byte >= 0xE0U ? 3 : byte >= 0xC0U ? 2 : 1;
            return needed > back ? back : 0;
        }
    }
    return 0;
}

}  // namespace

std::string terminalSafe(std::string_view text, bool keepNewlines) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const auto byte = static_cast<unsigned char>(text[pos]);
        if (byte >= 0x20U && byte < 0x7FU) {
            out += static_cast<char>(byte);
            ++pos;
            continue;
        }
        if (byte == '\n' || byte == '\t') {
            out += keepNewlines ? static_cast<char>(byte) : ' ';
            ++pos;
            continue;
        }
        if (byte < 0x80U) {  // other C0 controls (ESC, CR, BEL, backspace, ...) and DEL
            appendEscape(out, "\\x%02x", byte);
            ++pos;
            continue;
        }
        const std::size_t size = detail::utf8SequenceLength(text, pos);
        if (size == 0) {
            out += kReplacement;
            ++pos;
            continue;
        }
        const unsigned codePoint = decode(text, pos, size);
        if (codePoint <= 0x9FU || reordersText(codePoint)) {  // C1 controls (CSI, OSC, ...) and reordering
            appendEscape(out, "\\u%04x", codePoint);
        } else {
            out.append(text.substr(pos, size));
        }
        pos += size;
    }
    return out;
}

std::string StreamedTerminalText::feed(std::string_view piece) {
    pending_.append(piece);
    const std::size_t held = incompleteTail(pending_);
    const std::string_view ready = std::string_view(pending_).substr(0, pending_.size() - held);
    std::string out = terminalSafe(ready);
    pending_.erase(0, ready.size());
    return out;
}

std::string StreamedTerminalText::flush() {
    std::string out = terminalSafe(pending_);
    pending_.clear();
    return out;
}

}  // namespace reagent::cli
