#pragma once
// Exception-free reads of untrusted JSON replies. Internal to the providers library.
//
// Replies are parsed with Boost.JSON, not nlohmann: a reply is parsed on every turn (and every stream
// event), and Boost.JSON builds its tree several times faster. What leaves the codecs (tool-call
// arguments) is converted to nlohmann::json, the type of the public API.

#include <boost/json/array.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/detail/utf8.hpp"

namespace reagent::providers::detail {

/// `text` with every invalid UTF-8 sequence replaced by U+FFFD and every lone UTF-16 surrogate escape
/// (`\\ud800` without its pair) by `\\ufffd`; the rest unchanged.
[[nodiscard]] std::string repairedJsonText(std::string_view text);

/// Why `text` is not one JSON value, with the byte where parsing stopped ("syntax error at byte 12 of
/// 40"); empty when it is one.
[[nodiscard]] std::string jsonProblem(std::string_view text);

/// A parsed reply, or part of one.
using Json = boost::json::value;

/// The member `key` of `j`, or null if `j` is not an object or lacks it.
[[nodiscard]] inline const Json* member(const Json& j, std::string_view key) {
    const boost::json::object* object = j.if_object();
    if (object == nullptr) {
        return nullptr;
    }
    const auto found = object->find(key);
    return found == object->end() ? nullptr : &found->value();
}

/// The member `key` if it is an object, else null.
[[nodiscard]] inline const Json* objectMember(const Json& j, std::string_view key) {
    const Json* value = member(j, key);
    return value != nullptr && value->is_object() ? value : nullptr;
}

/// The member `key` if it is an array, else null.
[[nodiscard]] inline const boost::json::array* arrayMember(const Json& j, std::string_view key) {
    const Json* value = member(j, key);
    return value != nullptr ? value->if_array() : nullptr;
}

/// The member `key` if it is a string, else nothing (a view into `j`).
[[nodiscard]] inline std::optional<std::string_view> stringView(const Json& j, std::string_view key) {
    const Json* value = member(j, key);
    const boost::json::string* text = value != nullptr ? value->if_string() : nullptr;
    if (text == nullptr) {
        return std::nullopt;
    }
    return std::string_view(text->data(), text->size());
}

/// The member `key` if it is a string, else nothing.
[[nodiscard]] inline std::optional<std::string> stringMember(const Json& j, std::string_view key) {
    const auto text = stringView(j, key);
    return text ? std::optional<std::string>(std::string(*text)) : std::nullopt;
}

/// The member `key` if it is a string, else "" (a view into `j`).
[[nodiscard]] inline std::string_view viewOr(const Json& j, std::string_view key) {
    return stringView(j, key).value_or(std::string_view());
}

/// The member `key` if it is a string, else "".
[[nodiscard]] inline std::string stringOr(const Json& j, std::string_view key) {
    return std::string(stringView(j, key).value_or(std::string_view()));
}

/// The string `j` holds, or "" if it is no string.
[[nodiscard]] inline std::string_view text(const Json& j) {
    const boost::json::string* value = j.if_string();
    return value != nullptr ? std::string_view(value->data(), value->size()) : std::string_view();
}

/// The member `key` if it is an integer (or an integral float), else nothing.
[[nodiscard]] inline std::optional<std::int64_t> integerMember(const Json& j, std::string_view key) {
    const Json* value = member(j, key);
    if (value == nullptr) {
        return std::nullopt;
    }
    if (value->is_int64()) {
        return value->get_int64();
    }
    if (value->is_uint64()) {
        const std::uint64_t number = value->get_uint64();
        if (number <= static_cast<std::uint64_t>(INT64_MAX)) {
            return static_cast<std::int64_t>(number);
        }
        return std::nullopt;
    }
    if (value->is_double()) {
        const double number = value->get_double();
        if (number >= -9.0e18 && number <= 9.0e18) {
            return static_cast<std::int64_t>(number);
        }
    }
    return std::nullopt;
}

/// True if the member `key` is the boolean true.
[[nodiscard]] inline bool isTrue(const Json& j, std::string_view key) {
    const Json* value = member(j, key);
    return value != nullptr && value->is_bool() && value->get_bool();
}

/// `text` parsed without throwing, into memory of its own: every node lives in one arena (a buffer
/// inside this object first, heap blocks past it) that goes at once with the object, so neither
/// building nor dropping the tree costs an allocation per node. Used like `std::optional<Json>`: empty
/// if `text` is not one JSON value. Invalid UTF-8 and lone surrogate escapes do not make it fail: they
/// are read as U+FFFD (`repairedJsonText`). The values must not outlive it.
class ParsedJson {
  public:
    explicit ParsedJson(std::string_view text);
    ParsedJson(const ParsedJson&) = delete;
    ParsedJson& operator=(const ParsedJson&) = delete;

    [[nodiscard]] explicit operator bool() const noexcept { return value_.has_value(); }
    [[nodiscard]] const Json& operator*() const noexcept { return *value_; }
    [[nodiscard]] const Json* operator->() const noexcept { return &*value_; }

  private:
    // A typical reply, or stream event, fits.
    alignas(std::max_align_t) unsigned char buffer_[4096];
    boost::json::monotonic_resource arena_;
    std::optional<Json> value_;
};

/// `j` as compact JSON text.
[[nodiscard]] std::string serialize(const Json& j);

/// `j` as the public API's JSON type (for tool-call arguments).
[[nodiscard]] nlohmann::json toNlohmann(const Json& j);

/// `text` on one line, cut to about `limit` bytes (with "..."), for quoting a body in an error message:
/// control characters (escape sequences included) become spaces and invalid UTF-8 becomes U+FFFD, so the
/// quote cannot garble a terminal or a log.
[[nodiscard]] inline std::string excerpt(std::string_view text, std::size_t limit = 200) {
    const std::string_view shown = reagent::detail::utf8Prefix(text, limit);
    std::string out;
    reagent::detail::appendValidUtf8(out, shown);
    for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20U || c == 0x7F) {
            c = ' ';
        }
    }
    if (shown.size() < text.size()) {
        out += "...";
    }
    return out;
}

}  // namespace reagent::providers::detail
