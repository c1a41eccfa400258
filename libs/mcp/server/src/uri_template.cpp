// RFC 6570 level-1 URI templates: checking them and matching URIs against them.

#include <string>

#include "reagent/core/percent_encoding.hpp"
#include "reagent/mcp/server_catalog.hpp"

namespace reagent::mcp {

namespace {

bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A percent-encoded value decoded; malformed escapes are kept as they are.
std::string unescape(std::string_view text) {
    return percentDecodedLenient(text);
}

}  // namespace

bool isValidUriTemplate(std::string_view uriTemplate) {
    bool previousWasExpression = false;
    std::size_t i = 0;
    while (i < uriTemplate.size()) {
        const char c = uriTemplate[i];
        if (c == '}') {
            return false;
        }
        if (c != '{') {
            previousWasExpression = false;
            ++i;
            continue;
        }
        const auto close = uriTemplate.find('}', i + 1);
        if (close == std::string_view::npos || close == i + 1 || previousWasExpression) {
            return false;
        }
        for (std::size_t k = i + 1; k < close; ++k) {
            if (!isNameChar(uriTemplate[k])) {
                return false;  // operators (+, #, ...) and lists belong to levels 2 to 4
            }
        }
        previousWasExpression = true;
        i = close + 1;
    }
    return true;
}

std::optional<TemplateVariables> matchUriTemplate(std::string_view uriTemplate, std::string_view uri) {
    if (!isValidUriTemplate(uriTemplate)) {
        return std::nullopt;
    }
    TemplateVariables variables;
    std::size_t t = 0;
    std::size_t u = 0;
    while (t < uriTemplate.size()) {
        if (uriTemplate[t] != '{') {
            if (u >= uri.size() || uri[u] != uriTemplate[t]) {
                return std::nullopt;
            }
            ++t;
            ++u;
            continue;
        }
        const auto close = uriTemplate.find('}', t);
        const std::string name(uriTemplate.substr(t + 1, close - t - 1));
        t = close + 1;
        // The value runs to the next literal character of the template (or the end), never across '/'.
        const std::size_t stop = t < uriTemplate.size() ? uri.find(uriTemplate[t], u) : uri.size();
        const std::size_t end = stop == std::string_view::npos ? uri.size() : stop;
        const std::string_view value = uri.substr(u, end - u);
        if (value.empty() || value.find('/') != std::string_view::npos) {
            return std::nullopt;
        }
        const auto [existing, inserted] = variables.emplace(name, unescape(value));
        if (!inserted && existing->second != unescape(value)) {
            return std::nullopt;  // one name, two values
        }
        u = end;
    }
    if (u != uri.size()) {
        return std::nullopt;
    }
    return variables;
}

}  // namespace reagent::mcp
