#pragma once
/// \file
/// \brief Untrusted text (model replies, tool output, error messages) made safe to write to a terminal.

#include <string>
#include <string_view>

namespace reagent::cli {

/// \brief `text` with everything a terminal would interpret made visible instead: C0 controls other than
/// newline and tab, DEL, C1 controls (U+0080..U+009F) and bidirectional overrides become escapes such as
/// `\x1b` or `\u202e`; bytes that are not UTF-8 become U+FFFD. With `keepNewlines` false, newlines and
/// tabs become spaces too. Printable text, non-ASCII included, is kept as it is.
///
/// Model and tool text is shown, never run: an escape sequence in a reply must not retitle the window,
/// clear the screen or hide text. `--json` output needs none of this (JSON escapes controls itself).
[[nodiscard]] std::string terminalSafe(std::string_view text, bool keepNewlines = true);

/// \brief Sanitises text that arrives in pieces (streamed deltas): a UTF-8 sequence cut between two
/// pieces is held back until the rest arrives, instead of being replaced.
class StreamedTerminalText {
  public:
    /// \brief The printable part of everything received so far that was not returned before.
    [[nodiscard]] std::string feed(std::string_view piece);
    /// \brief What is still held back (an incomplete sequence at the end of the stream), replaced.
    [[nodiscard]] std::string flush();

  private:
    std::string pending_;
};

}  // namespace reagent::cli
