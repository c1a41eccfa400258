#pragma once
// A bounded outline of a JSON document, built while parsing: every container knows how many children
// it has in the input, but only the first few children (and only a few levels deep) are kept, and
// strings are kept only up to a prefix. Building it costs one validating pass over the text and a
// memory footprint that does not grow with the input.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::memory::detail {

/// One JSON value of the outline.
struct OutlineNode {
    enum class Kind : std::uint8_t { null, boolean, number, string, array, object };

    Kind kind = Kind::null;
    /// `text` (a string's content) or `key` was shortened when captured.
    bool textCut = false;
    bool keyCut = false;
    /// Member name when the parent is an object (valid UTF-8: the parser checks it).
    std::string key;
    /// Scalars: the string's content, or the literal number / true / false / null as written.
    std::string text;
    /// Containers: number of children (members or items) in the input.
    std::size_t size = 0;
    /// Containers: the first children kept, in input order.
    std::vector<OutlineNode> children;

    [[nodiscard]] bool isContainer() const noexcept { return kind == Kind::array || kind == Kind::object; }
};

/// How much of the document the outline keeps.
struct OutlineLimits {
    /// Items kept of a top-level array.
    std::size_t rootItems = 10;
    /// Members kept of each object.
    std::size_t members = 64;
    /// Objects deeper than this (the root is at depth 0) keep no members; nested arrays keep no items.
    std::size_t depth = 6;
    /// Nodes kept in all.
    std::size_t nodes = 20'000;
    /// Bytes kept of each string or key (cut on a character boundary).
    std::size_t stringBytes = 512;
};

/// The outline of `text`, or nothing when `text` is not one valid JSON value (RFC 8259, strict).
[[nodiscard]] std::optional<OutlineNode> outlineJson(std::string_view text, const OutlineLimits& limits);

}  // namespace reagent::memory::detail
