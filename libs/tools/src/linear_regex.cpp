#include "reagent/tools/linear_regex.hpp"

#include <re2/re2.h>

namespace reagent::tools {

expected<LinearRegex, std::string> LinearRegex::compile(std::string_view pattern,
                                                        LinearRegexOptions options) {
    RE2::Options settings;
    // Errors are returned, not written to stderr.
    settings.set_log_errors(false);
    settings.set_case_sensitive(!options.ignoreCase);
    auto compiled = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), settings);
    if (!compiled->ok()) {
        return fail(compiled->error());
    }
    return LinearRegex(std::move(compiled));
}

bool LinearRegex::search(std::string_view text) const {
    return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *compiled_);
}

const std::string& LinearRegex::pattern() const noexcept {
    return compiled_->pattern();
}

}  // namespace reagent::tools
