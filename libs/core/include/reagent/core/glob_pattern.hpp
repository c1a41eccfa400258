#pragma once
/// \file
/// \brief `GlobPattern`: matching relative paths against a glob with `**` and `{a,b}`.

#include <string>
#include <string_view>
#include <vector>

namespace reagent {

/// \brief A compiled glob pattern for `/`-separated relative paths.
///
/// Syntax: `*` matches any run of characters within one path component, `?` one character, `[abc]`,
/// `[a-z]` and `[!a]` a character class (as `fnmatch`), `**` as a whole component any number of
/// components (zero included: `src/**/*.cpp` matches `src/a.cpp`), `{a,b}` either alternative (nested
/// braces allowed). A pattern without `/` matches at any depth only when written `**/name`.
///
/// \par Thread safety
/// Immutable once built; `matches` may be called from any thread.
class GlobPattern {
  public:
    /// \brief Compiles `pattern` (braces expanded once, here).
    explicit GlobPattern(std::string_view pattern);

    /// \brief True when the relative path `path` (`a/b/c.txt`, no leading `./`) matches.
    [[nodiscard]] bool matches(std::string_view path) const;

    /// \brief False when no path under the directory `directory` (relative, as for `matches`) can match:
    /// a walk need not descend into it.
    [[nodiscard]] bool mayMatchUnder(std::string_view directory) const;

    /// \brief The pattern as given.
    [[nodiscard]] const std::string& text() const noexcept { return text_; }

  private:
    std::string text_;
    /// One entry per brace alternative, each split into components.
    std::vector<std::vector<std::string>> alternatives_;
};

}  // namespace reagent
