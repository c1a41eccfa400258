#pragma once
// Private to libs/documents: a person's or model's words as an FTS5 query.

#include <string>
#include <string_view>

namespace reagent::documents::detail {

/// `"word1" OR "word2" ...`: each word of `text` (letters, digits, and any non-ASCII character) quoted, so
/// that nothing in it is FTS5 syntax; at most 64 words; empty when `text` has none.
[[nodiscard]] std::string ftsQuery(std::string_view text);

}  // namespace reagent::documents::detail
