#pragma once
/// \file
/// \brief `LinearRegex`: the regular expression engine for patterns someone else wrote (a model, an MCP
/// server, a tool's schema), matching in time linear in the text.

#include <memory>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"

namespace re2 {
class RE2;
}

namespace reagent::tools {

/// \brief What a pattern may use, said where a pattern comes from outside (tool descriptions, errors).
inline constexpr std::string_view kLinearRegexSyntax =
    "RE2 syntax (like ECMAScript/PCRE without backreferences or lookaround)";

/// \brief How a `LinearRegex` matches.
struct LinearRegexOptions {
    /// Letters match either case.
    bool ignoreCase = false;
};

/// \brief A compiled regular expression in RE2's syntax: matching never backtracks, so it takes time
/// linear in the text whatever the pattern (`((a*)*)*b` included), and compiling is bounded in memory.
///
/// Patterns from outside are never given to `std::regex`, whose backtracking can run for hours on the
/// thread that matches, out of reach of every timeout and signal. Copies share the compiled program;
/// matching is thread-safe.
class LinearRegex {
  public:
    /// \brief `pattern` compiled. Error: why RE2 refuses it (a syntax error, a backreference or
    /// lookaround, a pattern too large), in RE2's words.
    [[nodiscard]] static expected<LinearRegex, std::string> compile(std::string_view pattern,
                                                                    LinearRegexOptions options = {});

    /// \brief True when the pattern matches somewhere in `text` (unanchored, as `std::regex_search` and
    /// JSON Schema's `pattern`).
    [[nodiscard]] bool search(std::string_view text) const;

    /// \brief The pattern as written.
    [[nodiscard]] const std::string& pattern() const noexcept;

  private:
    explicit LinearRegex(std::shared_ptr<const re2::RE2> compiled) : compiled_(std::move(compiled)) {}
    std::shared_ptr<const re2::RE2> compiled_;
};

}  // namespace reagent::tools
