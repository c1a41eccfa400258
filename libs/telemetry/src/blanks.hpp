#pragma once
// The "optional whitespace" the W3C headers and OpenTelemetry's variables allow around their items.

#include <string_view>

namespace reagent::telemetry::detail {

/// `text` without the spaces and tabs at either end.
[[nodiscard]] inline std::string_view withoutBlanks(std::string_view text) {
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && blank(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace reagent::telemetry::detail
