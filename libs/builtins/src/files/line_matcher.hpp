#pragma once
// Private to libs/builtins: grep's line matcher, a literal search when the pattern has no regular
// expression syntax and LinearRegex (RE2, linear time: the pattern is the model's) otherwise.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/tools/linear_regex.hpp"

namespace reagent::builtins::detail {

/// Matches one line (without its line ending) against a pattern.
class LineMatcher {
  public:
    /// Compiles `pattern`; `literal` forces a plain substring search. A regular expression sees at most
    /// `maxRegexBytes` of each line. Error: RE2's reason the pattern is invalid.
    [[nodiscard]] static expected<LineMatcher, std::string> compile(const std::string& pattern,
                                                                    bool ignoreCase, bool literal,
                                                                    std::size_t maxRegexBytes);

    /// True when `line` matches; in time linear in the line, whatever the pattern.
    [[nodiscard]] bool matches(std::string_view line) const;

    /// True when the pattern is searched as plain text.
    [[nodiscard]] bool literal() const noexcept { return !regex_.has_value(); }

  private:
    LineMatcher() = default;
    std::string needle_;
    bool ignoreCase_ = false;
    std::optional<tools::LinearRegex> regex_;
    std::size_t maxRegexBytes_ = 0;
};

/// True when `pattern` has a character with a meaning in a regular expression.
[[nodiscard]] bool hasRegexSyntax(std::string_view pattern) noexcept;

}  // namespace reagent::builtins::detail
