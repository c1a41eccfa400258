#pragma once
// Private to libs/agent: BM25 over a few hundred short texts held in memory (the agent's tools), for
// `find`. Documents are ranked by their index (SQLite FTS5, PostgreSQL), not here.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::agent::detail {

/// The words of `text` as `find` compares them: ASCII letters and digits, lower case, split at every other
/// character and between a lower-case letter and an upper-case one (`createIssue`, `create_issue` and
/// `create-issue` give the same words), a plural's final "s" dropped, and the commonest English words left
/// out. Other UTF-8 sequences are kept whole, as words of their own.
[[nodiscard]] std::vector<std::string> searchWords(std::string_view text);

/// One text to rank, in fields of different weight (a tool's name counts more than its description).
struct RankedText {
    std::vector<std::pair<std::string, int>> fields;  // the text and how many times its words count
};

/// The indices of `texts` that share a word with `query`, best first by BM25 (k1 1.2, b 0.75), at most
/// `limit`, each with its score.
[[nodiscard]] std::vector<std::pair<std::size_t, double>> rankTexts(const std::vector<RankedText>& texts,
                                                                    std::string_view query,
                                                                    std::size_t limit);

}  // namespace reagent::agent::detail
