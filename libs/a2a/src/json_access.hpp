#pragma once
// Reading members of untrusted JSON without exceptions: a member of another type reads as the fallback
// (nlohmann's `value()` would throw `type_error`).

#include <nlohmann/json.hpp>
#include <string>

namespace reagent::a2a::detail {

[[nodiscard]] inline std::string optString(const nlohmann::json& j, const char* key,
                                           std::string fallback = {}) {
    if (!j.is_object()) {
        return fallback;
    }
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

[[nodiscard]] inline bool optBool(const nlohmann::json& j, const char* key, bool fallback) {
    if (!j.is_object()) {
        return fallback;
    }
    const auto it = j.find(key);
    return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

}  // namespace reagent::a2a::detail
