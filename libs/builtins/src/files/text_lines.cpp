#include "files/text_lines.hpp"

#include <algorithm>
#include <cstdio>

namespace reagent::builtins::detail {

bool looksBinary(std::string_view text) noexcept {
    constexpr std::size_t kSniffBytes = 8192;
    return text.substr(0, std::min(text.size(), kSniffBytes)).find('\0') != std::string_view::npos;
}

std::size_t countLines(std::string_view text) noexcept {
    const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    return newlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

LineRange selectLines(std::string_view text, std::size_t offset, std::optional<std::size_t> count,
                      bool numberLines) {
    LineRange range;
    std::size_t position = 0;
    std::size_t line = 0;
    while (position < text.size() && (!count || range.lineCount < *count)) {
        std::size_t end = text.find('\n', position);
        end = end == std::string_view::npos ? text.size() : end + 1;
        if (line >= offset) {
            if (numberLines) {
                char number[32];
                std::snprintf(number, sizeof number, "%6zu\t", line + 1);
                range.content += number;
            }
            range.content.append(text.substr(position, end - position));
            ++range.lineCount;
        }
        position = end;
        ++line;
    }
    return range;
}

std::size_t countOccurrences(std::string_view text, std::string_view needle) noexcept {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
        ++count;
    }
    return count;
}

std::string replaceOccurrences(std::string_view text, std::string_view needle, std::string_view replacement,
                               std::size_t limit) {
    std::string out;
    out.reserve(text.size());
    std::size_t position = 0;
    for (std::size_t done = 0; done < limit; ++done) {
        const std::size_t at = text.find(needle, position);
        if (at == std::string_view::npos) {
            break;
        }
        out.append(text.substr(position, at - position));
        out.append(replacement);
        position = at + needle.size();
    }
    out.append(text.substr(position));
    return out;
}

}  // namespace reagent::builtins::detail
