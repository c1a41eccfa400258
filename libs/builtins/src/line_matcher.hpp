#pragma once
// Private to libs/builtins: grep's line matcher, a literal search when the pattern has no regular
// expression syntax and std::regex (ECMAScript) otherwise.

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"

namespace reagent::builtins::detail {

/// Matches one line (without its line ending) against a pattern.
class LineMatcher {
  public:
    /// Compiles `pattern`; `literal` forces a plain substring search. A regular expression sees at most
    /// `maxRegexBytes` of each line. Error: the regex library's reason the pattern is invalid.
    [[nodiscard]] static expected<LineMatcher, std::string> compile(const std::string& pattern,
                                                                    bool ignoreCase, bool literal,
                                                                    std::size_t maxRegexBytes);

    /// True when `line` matches. May throw `std::regex_error` (`error_complexity`, `error_stack`) for a
    /// pattern that backtracks too much on this line.
    [[nodiscard]] bool matches(std::string_view line) const;

    /// True when the pattern is searched as plain text.
    [[nodiscard]] bool literal() const noexcept { return !regex_.has_value(); }

  private:
    LineMatcher() = default;
    std::string needle_;
    bool ignoreCase_ = false;
    std::optional<std::regex> regex_;
    std::size_t maxRegexBytes_ = 0;
};

/// True when `pattern` has a character with a meaning in an ECMAScript regular expression.
[[nodiscard]] bool hasRegexSyntax(std::string_view pattern) noexcept;

}  // namespace reagent::builtins::detail
