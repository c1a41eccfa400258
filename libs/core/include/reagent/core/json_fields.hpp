#pragma once
/// \file
/// \brief Reading the fields of JSON from outside without exceptions: `requiredString(object, "id")`,
/// `optionalBool(...)`, `stringOr(...)`, and the error that says which field was wrong and how.
///
/// nlohmann's `value()`, `at()` and `get<T>()` throw on a member of another type; a message from a
/// server, a model or a client may hold anything, so libraries read it through these instead. Each
/// library maps a `JsonFieldError` into its own error where it reads.

#include <boost/describe/enum.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"

namespace reagent {

/// \brief Why a field of a JSON value could not be read as asked.
enum class JsonFieldErrc {
    /// The value read from is not a JSON object, so it has no fields (the message names its type).
    not_an_object,
    /// A required field is absent or null.
    missing,
    /// The field is present, not null, and of another type than asked (the message names both types).
    wrong_type,
    /// An integer field holds a number outside the range of `std::int64_t`.
    out_of_range,
};
BOOST_DESCRIBE_ENUM(JsonFieldErrc, not_an_object, missing, wrong_type, out_of_range)

/// \brief The name of a code, as used in messages and logs (`"missing"`, `"wrong_type"`, ...).
[[nodiscard]] std::string_view toString(JsonFieldErrc code) noexcept;

/// \brief A field that could not be read: a code and a message naming the field
/// (`"field 'id' must be a string, got number"`).
using JsonFieldError = Error<JsonFieldErrc>;

/// \name Required fields
/// The field `key` of `object`, of the type named. Errors: `not_an_object`, `missing` (absent or null),
/// `wrong_type`; `out_of_range` for an integer past `std::int64_t`. Objects and arrays are returned by
/// pointer into `object` (never null on success), which must outlive it.
/// \{
[[nodiscard]] expected<std::string, JsonFieldError> requiredString(const nlohmann::json& object,
                                                                   std::string_view key);
[[nodiscard]] expected<bool, JsonFieldError> requiredBool(const nlohmann::json& object, std::string_view key);
[[nodiscard]] expected<std::int64_t, JsonFieldError> requiredInteger(const nlohmann::json& object,
                                                                     std::string_view key);
[[nodiscard]] expected<const nlohmann::json*, JsonFieldError> requiredObject(const nlohmann::json& object,
                                                                             std::string_view key);
[[nodiscard]] expected<const nlohmann::json*, JsonFieldError> requiredArray(const nlohmann::json& object,
                                                                            std::string_view key);
/// \}

/// \name Optional fields
/// As the required ones, with an absent or null field read as nothing (`std::nullopt`, or a null
/// pointer for objects and arrays) instead of `missing`. A field of another type is still an error.
/// \{
[[nodiscard]] expected<std::optional<std::string>, JsonFieldError> optionalString(
    const nlohmann::json& object, std::string_view key);
[[nodiscard]] expected<std::optional<bool>, JsonFieldError> optionalBool(const nlohmann::json& object,
                                                                         std::string_view key);
[[nodiscard]] expected<std::optional<std::int64_t>, JsonFieldError> optionalInteger(
    const nlohmann::json& object, std::string_view key);
[[nodiscard]] expected<const nlohmann::json*, JsonFieldError> optionalObject(const nlohmann::json& object,
                                                                             std::string_view key);
[[nodiscard]] expected<const nlohmann::json*, JsonFieldError> optionalArray(const nlohmann::json& object,
                                                                            std::string_view key);
/// \}

/// \name Fields with a fallback
/// The field `key` of `object` if it holds a value of the type named, else `fallback`: for readers that
/// deliberately tolerate anything (a field absent, null or of another type, or `object` no object).
/// \{
[[nodiscard]] std::string stringOr(const nlohmann::json& object, std::string_view key,
                                   std::string fallback = {});
[[nodiscard]] bool boolOr(const nlohmann::json& object, std::string_view key, bool fallback);
[[nodiscard]] std::int64_t integerOr(const nlohmann::json& object, std::string_view key,
                                     std::int64_t fallback);
/// \}

}  // namespace reagent
