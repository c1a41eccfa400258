#include "reagent/core/json_fields.hpp"

#include <limits>
#include <utility>

#include "reagent/core/enum_name.hpp"

namespace reagent {

namespace {

using nlohmann::json;

[[nodiscard]] std::string quoted(std::string_view key) {
    std::string text = "field '";
    text.append(key).append("'");
    return text;
}

[[nodiscard]] JsonFieldError wrongType(std::string_view key, std::string_view wanted, const json& value) {
    return JsonFieldError{JsonFieldErrc::wrong_type,
                          quoted(key) + " must be " + std::string(wanted) + ", got " + value.type_name()};
}

// The field, or null when it is absent or null; an error only when `object` is no object.
[[nodiscard]] expected<const json*, JsonFieldError> lookup(const json& object, std::string_view key) {
    if (!object.is_object()) {
        return fail(JsonFieldError{JsonFieldErrc::not_an_object, "cannot read " + quoted(key) + " of " +
                                                                     object.type_name() + ", not an object"});
    }
    const auto found = object.find(key);
    if (found == object.end() || found->is_null()) {
        return nullptr;
    }
    return &*found;
}

[[nodiscard]] JsonFieldError missing(std::string_view key) {
    return JsonFieldError{JsonFieldErrc::missing, quoted(key) + " is missing"};
}

// The value of a present field as T, or why not.
template <class T>
[[nodiscard]] expected<T, JsonFieldError> as(const json& value, std::string_view key);

template <>
expected<std::string, JsonFieldError> as<std::string>(const json& value, std::string_view key) {
    if (!value.is_string()) {
        return fail(wrongType(key, "a string", value));
    }
    return value.get<std::string>();
}

template <>
expected<bool, JsonFieldError> as<bool>(const json& value, std::string_view key) {
    if (!value.is_boolean()) {
        return fail(wrongType(key, "a boolean", value));
    }
    return value.get<bool>();
}

template <>
expected<std::int64_t, JsonFieldError> as<std::int64_t>(const json& value, std::string_view key) {
    if (!value.is_number_integer()) {
        return fail(wrongType(key, "an integer", value));
    }
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return fail(
            JsonFieldError{JsonFieldErrc::out_of_range, quoted(key) + " is too large for an integer"});
    }
    return value.get<std::int64_t>();
}

// Objects and arrays are handed out in place, by pointer.
[[nodiscard]] expected<const json*, JsonFieldError> container(const json& value, std::string_view key,
                                                              bool wantObject) {
    if (wantObject ? !value.is_object() : !value.is_array()) {
        return fail(wrongType(key, wantObject ? "an object" : "an array", value));
    }
    return &value;
}

template <class T>
[[nodiscard]] expected<T, JsonFieldError> required(const json& object, std::string_view key) {
    auto field = lookup(object, key);
    if (!field) {
        return fail(std::move(field.error()));
    }
    if (*field == nullptr) {
        return fail(missing(key));
    }
    return as<T>(**field, key);
}

template <class T>
[[nodiscard]] expected<std::optional<T>, JsonFieldError> optional(const json& object, std::string_view key) {
    auto field = lookup(object, key);
    if (!field) {
        return fail(std::move(field.error()));
    }
    if (*field == nullptr) {
        return std::optional<T>();
    }
    auto value = as<T>(**field, key);
    if (!value) {
        return fail(std::move(value.error()));
    }
    return std::optional<T>(std::move(*value));
}

[[nodiscard]] expected<const json*, JsonFieldError> containerField(const json& object, std::string_view key,
                                                                   bool wantObject, bool isRequired) {
    auto field = lookup(object, key);
    if (!field) {
        return fail(std::move(field.error()));
    }
    if (*field == nullptr) {
        if (isRequired) {
            return fail(missing(key));
        }
        return nullptr;
    }
    return container(**field, key, wantObject);
}

template <class T>
[[nodiscard]] T valueOr(const json& object, std::string_view key, T fallback) {
    auto value = optional<T>(object, key);
    return value && *value ? std::move(**value) : std::move(fallback);
}

}  // namespace

std::string_view toString(JsonFieldErrc code) noexcept {
    return enumName(code);
}

expected<std::string, JsonFieldError> requiredString(const json& object, std::string_view key) {
    return required<std::string>(object, key);
}

expected<bool, JsonFieldError> requiredBool(const json& object, std::string_view key) {
    return required<bool>(object, key);
}

expected<std::int64_t, JsonFieldError> requiredInteger(const json& object, std::string_view key) {
    return required<std::int64_t>(object, key);
}

expected<const json*, JsonFieldError> requiredObject(const json& object, std::string_view key) {
    return containerField(object, key, true, true);
}

expected<const json*, JsonFieldError> requiredArray(const json& object, std::string_view key) {
    return containerField(object, key, false, true);
}

expected<std::optional<std::string>, JsonFieldError> optionalString(const json& object,
                                                                    std::string_view key) {
    return optional<std::string>(object, key);
}

expected<std::optional<bool>, JsonFieldError> optionalBool(const json& object, std::string_view key) {
    return optional<bool>(object, key);
}

expected<std::optional<std::int64_t>, JsonFieldError> optionalInteger(const json& object,
                                                                      std::string_view key) {
    return optional<std::int64_t>(object, key);
}

expected<const json*, JsonFieldError> optionalObject(const json& object, std::string_view key) {
    return containerField(object, key, true, false);
}

expected<const json*, JsonFieldError> optionalArray(const json& object, std::string_view key) {
    return containerField(object, key, false, false);
}

std::string stringOr(const json& object, std::string_view key, std::string fallback) {
    return valueOr<std::string>(object, key, std::move(fallback));
}

bool boolOr(const json& object, std::string_view key, bool fallback) {
    return valueOr<bool>(object, key, fallback);
}

std::int64_t integerOr(const json& object, std::string_view key, std::int64_t fallback) {
    return valueOr<std::int64_t>(object, key, fallback);
}

}  // namespace reagent
