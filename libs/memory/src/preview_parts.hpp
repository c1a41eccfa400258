#pragma once
// The pieces of a structured preview that each format (array, object, text) produces, and the space
// it may use. result_compressor.cpp adds the header and footer lines around them.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "json_outline.hpp"
#include "utf8.hpp"

namespace reagent::memory::detail {

/// Smallest space, in characters, granted to the preview lines whatever the budget.
inline constexpr std::size_t kMinBodyChars = 150;

/// The space a format may fill, in characters (code points).
struct PreviewSpace {
    /// What the whole preview aims at: max(budget, kMinPreviewChars).
    std::size_t total = 0;
    /// Characters already taken by the header and footer lines.
    std::size_t overhead = 0;
    /// Longest `Type:` line.
    std::size_t typeLineCap = 0;
    /// Array items (or, at least 5, object keys) to show.
    std::size_t previewItems = 0;

    /// Room left for the preview lines once the `Type:` line and the label are written.
    [[nodiscard]] std::size_t body(std::string_view typeLine, std::size_t labelChars) const {
        const std::size_t used = overhead + utf8::length(typeLine) + 1 + labelChars + 1;
        return std::max(total > used ? total - used : 0, kMinBodyChars);
    }
};

/// A format's share of the preview.
struct PreviewParts {
    /// `Type: Array(30) | Schema: ...`
    std::string typeLine;
    /// `Preview (first 3):`; empty when no line is shown.
    std::string label;
    std::vector<std::string> lines;
    /// Items, keys or lines left out.
    std::size_t remaining = 0;
    /// What `remaining` counts, for the footer: "" (array items), "key" or "line".
    std::string_view unit;
};

/// `1 item`, `30 items`.
[[nodiscard]] inline std::string counted(std::size_t count, std::string_view noun) {
    std::string text = std::to_string(count) + " " + std::string(noun);
    if (count != 1) {
        text += 's';
    }
    return text;
}

[[nodiscard]] PreviewParts previewArray(const OutlineNode& root, const PreviewSpace& space);
[[nodiscard]] PreviewParts previewObject(const OutlineNode& root, const PreviewSpace& space);
[[nodiscard]] PreviewParts previewText(std::string_view text, const PreviewSpace& space);

}  // namespace reagent::memory::detail
