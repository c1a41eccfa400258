#include "files/line_matcher.hpp"

#include <algorithm>
#include <utility>

namespace reagent::builtins::detail {
namespace {

char lowerAscii(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equalIgnoringCase(char a, char b) noexcept {
    return lowerAscii(a) == lowerAscii(b);
}

}  // namespace

bool hasRegexSyntax(std::string_view pattern) noexcept {
    return pattern.find_first_of("\\^$.|?*+()[]{}") != std::string_view::npos;
}

expected<LineMatcher, std::string> LineMatcher::compile(const std::string& pattern, bool ignoreCase,
                                                        bool literal, std::size_t maxRegexBytes) {
    LineMatcher matcher;
    matcher.ignoreCase_ = ignoreCase;
    matcher.maxRegexBytes_ = maxRegexBytes;
    if (literal || !hasRegexSyntax(pattern)) {
        matcher.needle_ = pattern;
        if (ignoreCase) {
            std::transform(matcher.needle_.begin(), matcher.needle_.end(), matcher.needle_.begin(),
                           lowerAscii);
        }
        return matcher;
    }
    tools::LinearRegexOptions options;
    options.ignoreCase = ignoreCase;
    auto regex = tools::LinearRegex::compile(pattern, options);
    if (!regex) {
        return fail(std::move(regex.error()));
    }
    matcher.regex_ = std::move(*regex);
    return matcher;
}

bool LineMatcher::matches(std::string_view line) const {
    if (!regex_) {
        if (!ignoreCase_) {
            return line.find(needle_) != std::string_view::npos;
        }
        return std::search(line.begin(), line.end(), needle_.begin(), needle_.end(), equalIgnoringCase) !=
               line.end();
    }
    const std::size_t length = std::min(line.size(), maxRegexBytes_);
    return regex_->search(line.substr(0, length));
}

}  // namespace reagent::builtins::detail
