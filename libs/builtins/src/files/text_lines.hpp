#pragma once
// Pure text helpers of the file operations: binary detection, line ranges, exact-match replacement.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace reagent::builtins::detail {

/// True when the text looks binary: a NUL byte in its first 8 KiB (git's rule).
[[nodiscard]] bool looksBinary(std::string_view text) noexcept;

/// The number of lines: newline characters, plus one for a last line without one.
[[nodiscard]] std::size_t countLines(std::string_view text) noexcept;

struct LineRange {
    std::string content;
    std::size_t lineCount = 0;
};

/// Lines `offset` (0-based) to `offset + count` of `text`, each with its line ending; numbered as
/// `cat -n` does (`%6zu\t`) when asked.
[[nodiscard]] LineRange selectLines(std::string_view text, std::size_t offset,
                                    std::optional<std::size_t> count, bool numberLines);

/// Non-overlapping occurrences of `needle` (not empty) in `text`.
[[nodiscard]] std::size_t countOccurrences(std::string_view text, std::string_view needle) noexcept;

/// `text` with the first `limit` non-overlapping occurrences of `needle` replaced.
[[nodiscard]] std::string replaceOccurrences(std::string_view text, std::string_view needle,
                                             std::string_view replacement, std::size_t limit);

}  // namespace reagent::builtins::detail
