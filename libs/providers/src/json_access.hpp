#pragma once
// Exception-free reads of untrusted JSON. Internal to the providers library.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace reagent::providers::detail {

using nlohmann::json;

/// The member `key` of `j`, or null if `j` is not an object or lacks it.
[[nodiscard]] inline const json* member(const json& j, std::string_view key) {
    if (!j.is_object()) {
        return nullptr;
    }
    const auto found = j.find(key);
    return found == j.end() ? nullptr : &*found;
}

/// The member `key` if it is an object, else null.
[[nodiscard]] inline const json* objectMember(const json& j, std::string_view key) {
    const json* value = member(j, key);
    return value != nullptr && value->is_object() ? value : nullptr;
}

/// The member `key` if it is an array, else null.
[[nodiscard]] inline const json* arrayMember(const json& j, std::string_view key) {
    const json* value = member(j, key);
    return value != nullptr && value->is_array() ? value : nullptr;
}

/// The member `key` if it is a string, else nothing.
[[nodiscard]] inline std::optional<std::string> stringMember(const json& j, std::string_view key) {
    const json* value = member(j, key);
    if (value == nullptr || !value->is_string()) {
        return std::nullopt;
    }
    return value->get<std::string>();
}

/// The member `key` if it is a string, else "".
[[nodiscard]] inline std::string stringOr(const json& j, std::string_view key) {
    return stringMember(j, key).value_or(std::string());
}

/// The member `key` if it is an integer (or an integral float), else nothing.
[[nodiscard]] inline std::optional<std::int64_t> integerMember(const json& j, std::string_view key) {
    const json* value = member(j, key);
    if (value == nullptr) {
        return std::nullopt;
    }
    if (value->is_number_integer()) {
        return value->get<std::int64_t>();
    }
    if (value->is_number_float()) {
        const double number = value->get<double>();
        if (number >= -9.0e18 && number <= 9.0e18) {
            return static_cast<std::int64_t>(number);
        }
    }
    return std::nullopt;
}

/// Parses `text` without throwing; nothing if it is not one JSON value.
[[nodiscard]] inline std::optional<json> parse(std::string_view text) {
    json value = json::parse(text, nullptr, false);
    if (value.is_discarded()) {
        return std::nullopt;
    }
    return value;
}

/// `text` on one line, cut to `limit` bytes (with "..."), for quoting a body in an error message.
[[nodiscard]] inline std::string excerpt(std::string_view text, std::size_t limit = 200) {
    if (text.size() > limit) {
        // Cut on a character boundary, so the message stays valid UTF-8.
        while (limit > 0 && (static_cast<unsigned char>(text[limit]) & 0xC0) == 0x80) {
            --limit;
        }
    }
    std::string out;
    for (const char c : text.substr(0, limit)) {
        out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
    }
    if (text.size() > limit) {
        out += "...";
    }
    return out;
}

}  // namespace reagent::providers::detail
