#include "reagent/memory/result_compressor.hpp"

#include <algorithm>

#include "json_outline.hpp"
#include "preview_parts.hpp"
#include "utf8.hpp"

namespace reagent::memory {
namespace {

// A stored result's preview begins "[STORED: <key> | <tool>]" (read back by `storedKeyOf`).
constexpr std::string_view kStoredHeader = "[STORED: ";
constexpr std::string_view kHeaderSeparator = " | ";

constexpr std::size_t kToolNameChars = 64;
constexpr std::size_t kKeyChars = WorkingMemory::kMaxKeyLength;
constexpr std::size_t kMinTypeLine = 100;
constexpr std::size_t kMaxTypeLine = 240;
constexpr std::size_t kSchemaSample = 10;  // array items outlined at least, for the schema
constexpr std::size_t kMaxOutlinedItems = 100;
constexpr std::string_view kDash = " \xE2\x80\x94 ";  // " — "

// Text from outside (tool name, key) on a single line of valid UTF-8.
std::string oneLine(std::string_view text, std::size_t maxChars) {
    std::string line = utf8::cut(text, maxChars);
    std::replace_if(
        line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20U; }, ' ');
    return line;
}

// How the model reaches what the preview leaves out.
std::string accessHint(bool stored, const std::string& key, bool codeTransform) {
    if (stored) {
        return "use recall(\"" + key + "\")" + (codeTransform ? " or | transform:" : "") +
               " to access full data";
    }
    return codeTransform ? "the full result was not stored; call the tool again with | transform: to select "
                           "what you need"
                         : "the full result was not stored; call the tool again with narrower arguments";
}

std::string footer(const detail::PreviewParts& parts, const std::string& hint) {
    if (parts.remaining == 0) {
        return "Preview only" + std::string(kDash) + hint;
    }
    std::string line = "..." + std::to_string(parts.remaining) + " more";
    if (!parts.unit.empty()) {
        line += " " + std::string(parts.unit) + (parts.remaining == 1 ? "" : "s");
    }
    return line + std::string(kDash) + hint;
}

}  // namespace

std::size_t characterCount(std::string_view text) noexcept {
    return utf8::length(text);
}

std::string_view characterSlice(std::string_view text, std::size_t offset, std::size_t count) noexcept {
    const std::size_t begin = utf8::prefixBytes(text, offset);
    const std::string_view rest = text.substr(begin);
    return rest.substr(0, utf8::prefixBytes(rest, count));
}

std::string storedKeyOf(std::string_view preview) {
    if (preview.substr(0, kStoredHeader.size()) != kStoredHeader) {
        return {};
    }
    const std::string_view rest = preview.substr(kStoredHeader.size());
    const std::size_t end = rest.find(kHeaderSeparator);
    if (end == std::string_view::npos || end == 0 ||
        rest.substr(0, end).find('\n') != std::string_view::npos) {
        return {};
    }
    return std::string(rest.substr(0, end));
}

bool exceedsBudget(std::string_view result, const CompressionConfig& config) noexcept {
    return utf8::longerThan(result, config.budget);
}

CompressedResult compress(std::string_view toolName, std::string_view result, std::string_view key,
                          const CompressionConfig& config) {
    if (!exceedsBudget(result, config)) {
        return CompressedResult{std::string(result), false, {}};
    }
    const bool stored = config.autoStore && !key.empty();
    const std::string shownKey = stored ? oneLine(key, kKeyChars) : std::string();
    const std::string tool = oneLine(toolName, kToolNameChars);
    const std::string header =
        stored ? std::string(kStoredHeader) + shownKey + std::string(kHeaderSeparator) + tool + "]"
               : "[TRUNCATED, NOT STORED | " + tool + "]";
    const std::string hint = accessHint(stored, shownKey, config.codeTransform);

    detail::PreviewSpace space;
    space.total = std::max(config.budget, kMinPreviewChars);
    // The footer's count has at most as many digits as the result has bytes.
    const std::size_t footerChars = std::string_view("... more lines — ").size() +
                                    std::to_string(result.size()).size() + utf8::length(hint);
    space.overhead = utf8::length(header) + 1 + footerChars;
    space.typeLineCap = std::clamp(space.total / 4, kMinTypeLine, kMaxTypeLine);
    space.previewItems = config.previewItems;

    detail::OutlineLimits limits;
    limits.rootItems =
        std::clamp(std::max(config.previewItems, kSchemaSample), std::size_t{1}, kMaxOutlinedItems);
    const std::optional<detail::OutlineNode> outline = detail::outlineJson(result, limits);
    detail::PreviewParts parts;
    if (outline && outline->kind == detail::OutlineNode::Kind::array) {
        parts = detail::previewArray(*outline, space);
    } else if (outline && outline->kind == detail::OutlineNode::Kind::object) {
        parts = detail::previewObject(*outline, space);
    } else {
        parts = detail::previewText(result, space);
    }

    std::string preview = header + "\n" + parts.typeLine + "\n";
    if (!parts.label.empty()) {
        preview += parts.label + "\n";
    }
    for (const std::string& line : parts.lines) {
        preview += line + "\n";
    }
    preview += footer(parts, hint);
    return CompressedResult{std::move(preview), true, stored ? std::string(key) : std::string()};
}

CompressedResult compressAndStore(WorkingMemory& memory, std::string_view toolName, std::string result,
                                  const CompressionConfig& config) {
    if (!exceedsBudget(result, config)) {
        return CompressedResult{std::move(result), false, {}};
    }
    if (!config.autoStore || !memory.fits(result.size())) {
        return compress(toolName, result, {}, config);
    }
    auto key = memory.store(std::string(toolName), std::move(result));
    // `fits` was checked, so storing succeeds; the preview is built from the stored copy.
    const std::string* stored = key ? memory.find(*key) : nullptr;
    if (stored == nullptr) {
        return CompressedResult{
            "[TRUNCATED, NOT STORED | " + oneLine(toolName, kToolNameChars) + "]", true, {}};
    }
    return compress(toolName, *stored, *key, config);
}

}  // namespace reagent::memory
