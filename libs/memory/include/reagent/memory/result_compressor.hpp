#pragma once
/// \file
/// \brief Result compression: a compact, structured preview in place of an oversized tool result.

#include <cstddef>
#include <string>
#include <string_view>

#include "reagent/memory/working_memory.hpp"

namespace reagent::memory {

/// \brief Smallest size, in characters, that a preview may use whatever the budget (so a tiny budget
/// still yields a useful preview).
inline constexpr std::size_t kMinPreviewChars = 400;

/// \brief When and how tool results are compressed.
///
/// Sizes are counted in characters, that is Unicode code points of the UTF-8 text; a byte that is not
/// part of well-formed UTF-8 counts as one character.
struct CompressionConfig {
    /// Longest result passed through unchanged, in characters; a longer one is compressed. Default 800.
    /// The preview itself aims to fit in max(budget, kMinPreviewChars) characters.
    std::size_t budget = 800;
    /// Array items shown in the preview (an object shows at least 5 keys). Default 3.
    std::size_t previewItems = 3;
    /// Whether the full result is stored in working memory under `_tool_result_N`, so `recall` can read
    /// it. Default true.
    bool autoStore = true;
    /// Whether the preview offers the `| transform:` pipe as a way to the full data. Default true.
    bool codeTransform = true;
};

/// \brief What enters the model's context in place of a tool result.
struct CompressedResult {
    /// The result itself when it was within budget, otherwise the structured preview (valid UTF-8).
    std::string preview;
    /// Whether `preview` is a preview rather than the result.
    bool compressed = false;
    /// The working-memory key holding the full result; empty when it was not stored.
    std::string key;
};

/// \brief The number of characters (code points; a malformed byte counts as one) in `text`.
[[nodiscard]] std::size_t characterCount(std::string_view text) noexcept;

/// \brief The `count` characters of `text` starting at character `offset` (fewer at the end, empty past
/// it); never splits a character.
[[nodiscard]] std::string_view characterSlice(std::string_view text, std::size_t offset,
                                              std::size_t count) noexcept;

/// \brief Whether `result` is longer than `config.budget` characters, so it would be compressed.
[[nodiscard]] bool exceedsBudget(std::string_view result, const CompressionConfig& config) noexcept;

/// \brief Condenses `result` into a structured preview when it exceeds the budget (sans-io: no storing).
///
/// A result within budget is returned unchanged. Otherwise the result is parsed as JSON: a top-level
/// array is shown as its length, the dotted key paths of its items and its first `previewItems` items
/// as `key=value` lines; an object as its key count, its keys and its leading members; anything else
/// (invalid JSON, a bare JSON scalar) as text: its line and character counts and its first lines. The
/// header names `key` (the caller stored the full result there) when `config.autoStore` is set and
/// `key` is not empty, and says the result was truncated and not stored otherwise. The last line
/// always says how to reach the full data. See docs/memory.md for examples.
///
/// The preview is valid UTF-8 and never splits a character; malformed input bytes become U+FFFD. Its
/// size stays within max(budget, kMinPreviewChars) characters in ordinary cases and within that plus
/// 400 characters for any input (deep nesting, thousands of keys, huge strings or lines).
///
/// `result` is untrusted tool output: it is parsed as data and never evaluated.
[[nodiscard]] CompressedResult compress(std::string_view toolName, std::string_view result,
                                        std::string_view key, const CompressionConfig& config);

/// \brief The working-memory key a preview made by `compress` names in its header ("[STORED: key | tool]");
/// empty for a preview of a result not stored, or for any other text.
[[nodiscard]] std::string storedKeyOf(std::string_view preview);

/// \brief Compresses an oversized `result`, first storing it in `memory` when `config.autoStore` is set.
///
/// A result within budget is returned unchanged and not stored. A result too large for the memory's
/// whole byte budget is not stored either: its preview says so.
[[nodiscard]] CompressedResult compressAndStore(WorkingMemory& memory, std::string_view toolName,
                                                std::string result, const CompressionConfig& config);

}  // namespace reagent::memory
