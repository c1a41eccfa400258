// Preview of plain text: its size, then its first lines.

#include <algorithm>

#include "preview_parts.hpp"
#include "reagent/core/detail/utf8.hpp"

namespace reagent::memory::detail {
namespace {

constexpr std::size_t kMaxTextLines = 50;
constexpr std::size_t kLabelChars = 30;  // reserved for `Preview (first N lines):`
constexpr std::size_t kMinCutLine = 40;  // a cut line shorter than this is left out instead

std::size_t lineCount(std::string_view text) {
    if (text.empty()) {
        return 0;
    }
    const auto breaks = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    return text.back() == '\n' ? breaks : breaks + 1;
}

}  // namespace

PreviewParts previewText(std::string_view text, const PreviewSpace& space) {
    PreviewParts parts;
    const std::size_t lines = lineCount(text);
    parts.typeLine =
        "Type: Text(" + counted(lines, "line") + ", " + counted(utf8::length(text), "char") + ")";
    const std::size_t body = space.body(parts.typeLine, kLabelChars);
    std::size_t used = 0;
    std::size_t pos = 0;
    // Lines are taken whole while they fit; the first one that does not is cut to the room left.
    while (pos < text.size() && parts.lines.size() < kMaxTextLines) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        const std::size_t room = body > used + 1 ? body - used - 1 : 0;
        std::string shown;
        if (!utf8::longerThan(line, room)) {
            reagent::detail::appendValidUtf8(shown, line);
            used += utf8::length(shown) + 1;
            parts.lines.push_back(std::move(shown));
            pos = end + 1;
            continue;
        }
        if (parts.lines.empty() || room >= kMinCutLine) {
            parts.lines.push_back(utf8::cut(line, std::max(room, kMinCutLine)));
        }
        break;
    }
    if (!parts.lines.empty()) {
        parts.label = "Preview (first " + counted(parts.lines.size(), "line") + "):";
    }
    parts.remaining = lines - parts.lines.size();
    parts.unit = "line";
    return parts;
}

}  // namespace reagent::memory::detail
