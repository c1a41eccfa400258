#pragma once
// Reducing an HTML page to the text a person would read (no I/O, no DOM).

#include <string>
#include <string_view>

namespace reagent::builtins::detail {

/// The readable content of a page.
struct HtmlText {
    /// The `<title>`, reduced like the text (may be empty).
    std::string title;
    /// The text: scripts, styles, comments and tags removed, entities decoded, runs of blanks collapsed
    /// to one space and runs of blank lines to one line break; block elements start a new line.
    std::string text;
};

/// Reduces `html` (untrusted, possibly malformed: an unclosed tag or comment ends the text there).
[[nodiscard]] HtmlText htmlToText(std::string_view html);

/// `text` with HTML character references decoded: `&amp;`, the common named ones, `&#39;`, `&#x1F600;`
/// (as UTF-8). Unknown or malformed references stay as written.
[[nodiscard]] std::string decodeEntities(std::string_view text);

}  // namespace reagent::builtins::detail
