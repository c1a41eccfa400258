#include "utf8.hpp"

#include "reagent/core/detail/utf8.hpp"

namespace reagent::memory::utf8 {
namespace {

using reagent::detail::utf8SequenceLength;

struct Walked {
    std::size_t bytes = 0;
    std::size_t chars = 0;
};

// Steps over at most `maxChars` characters (an invalid byte counts as one).
Walked walk(std::string_view text, std::size_t maxChars) noexcept {
    Walked at;
    for (; at.chars < maxChars && at.bytes < text.size(); ++at.chars) {
        // ASCII runs are the common case: skip them without decoding.
        if (static_cast<unsigned char>(text[at.bytes]) < 0x80U) {
            ++at.bytes;
            continue;
        }
        const std::size_t n = utf8SequenceLength(text, at.bytes);
        at.bytes += n == 0 ? 1 : n;
    }
    return at;
}

}  // namespace

std::size_t length(std::string_view text) noexcept {
    return walk(text, text.size()).chars;
}

bool longerThan(std::string_view text, std::size_t limit) noexcept {
    // Characters never outnumber bytes, so short texts need no decoding.
    if (text.size() <= limit) {
        return false;
    }
    return prefixBytes(text, limit) < text.size();
}

std::size_t prefixBytes(std::string_view text, std::size_t count) noexcept {
    return walk(text, count).bytes;
}

bool isValid(std::string_view text) noexcept {
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t n = utf8SequenceLength(text, pos);
        if (n == 0) {
            return false;
        }
        pos += n;
    }
    return true;
}

std::string cut(std::string_view text, std::size_t maxChars) {
    std::string out;
    if (!longerThan(text, maxChars)) {
        reagent::detail::appendValidUtf8(out, text);
        return out;
    }
    if (maxChars == 0) {
        return out;
    }
    reagent::detail::appendValidUtf8(out, text.substr(0, prefixBytes(text, maxChars - 1)));
    out.append(kEllipsis);
    return out;
}

std::string snippetAround(std::string_view value, std::size_t matchBegin, std::size_t matchEnd,
                          std::size_t radius) {
    // Walk back radius characters from the match, never stopping inside a sequence.
    std::size_t begin = matchBegin;
    for (std::size_t chars = 0; chars < radius && begin > 0; ++chars) {
        --begin;
        for (int step = 1;
             step < 4 && begin > 0 && (static_cast<unsigned char>(value[begin]) & 0xC0U) == 0x80U; ++step) {
            --begin;
        }
    }
    const std::string_view tail = value.substr(matchEnd);
    const std::size_t end = matchEnd + prefixBytes(tail, radius);
    std::string raw;
    reagent::detail::appendValidUtf8(raw, value.substr(begin, end - begin));
    std::string snippet;
    if (begin > 0) {
        snippet += kEllipsis;
    }
    for (const char c : raw) {
        snippet += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    }
    if (end < value.size()) {
        snippet += kEllipsis;
    }
    return snippet;
}

}  // namespace reagent::memory::utf8
