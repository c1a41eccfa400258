#pragma once
/// \file
/// \brief JSON Schema, decoding and encoding for C++ types described with Boost.Describe, so that a
/// struct and its schema are written once.
///
/// \code
/// struct Forecast {
///     std::string city;
///     double celsius = 0;
///     std::optional<std::string> note;  // not required
///     static void annotate(reagent::tools::Annotations<Forecast>& a) {
///         a.describe("A weather forecast").member(&Forecast::celsius, "In degrees", {{"minimum", -90}});
///     }
/// };
/// BOOST_DESCRIBE_STRUCT(Forecast, (), (city, celsius, note))
///
/// auto schema = reagent::tools::schemaOf<Forecast>();            // expected<json, SchemaError>
/// auto forecast = reagent::tools::decodeAs<Forecast>(answer);     // expected<Forecast, DecodeError>
/// nlohmann::json back = reagent::tools::encodeAs(*forecast);
/// \endcode
///
/// Members map to: `bool` → boolean; integers → integer (with the type's bounds when they fit in 32
/// bits); floating point → number; `std::string` → string; an enum described with `BOOST_DESCRIBE_ENUM`
/// → a string, one of its enumerators' names; `std::optional<U>` → U, and the member is not required (it
/// decodes from a missing member or null); `std::vector<U>` → array of U; `std::map<std::string, U>` →
/// object of U; `nlohmann::json` → any value; a described struct → an object of its public members
/// (including those of described bases), every member named, no others allowed. A struct that contains
/// itself (through a vector, a map or an optional) is referred to by `$ref` ("#" for the outermost one,
/// "#/$defs/<title>" for the others). Any other member type does not compile.
///
/// Decoding checks types, required and unknown members, enumerators and integer ranges, and names the
/// first mismatch by its JSON Pointer. The keywords attached with `Annotations` (minimum, pattern,
/// maxItems, format...) are checked by a validator of the schema (`SchemaValidator`), as the agent and the
/// tool executor do before decoding.

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/mp11/algorithm.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"

namespace reagent::tools {

/// \brief Why a JSON value is not a `T`: where (a JSON Pointer into the value; empty for the value
/// itself) and what.
struct DecodeError {
    std::string path;
    std::string message;
    /// "at /items/2/city: expected a string, got a number"
    [[nodiscard]] std::string describe() const;
};

/// \brief Why a type's schema could not be made: its annotations name what the description lacks, or
/// set keywords the mapping owns.
struct SchemaError {
    std::vector<std::string> problems;
    /// The problems, joined.
    [[nodiscard]] std::string describe() const;
};

/// \brief What `static void annotate(Annotations<T>&)` in a described struct `T` adds to its schema:
/// its description and title, and each member's description and JSON Schema keywords.
template <class T>
class Annotations {
  public:
    Annotations& describe(std::string text) {
        description_ = std::move(text);
        return *this;
    }
    /// Also names the struct in `$defs` when it contains itself.
    Annotations& title(std::string text) {
        title_ = std::move(text);
        return *this;
    }
    /// The member `pointer` (one of the described ones): a description (may be empty) and keywords such
    /// as `{{"minimum", 0}, {"maxLength", 80}}` or `{{"format", "date"}}`.
    template <class M>
    Annotations& member(M T::*pointer, std::string description,
                        nlohmann::json keywords = nlohmann::json::object()) {
        const char* name = nullptr;
        boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_public |
                                                                          boost::describe::mod_inherited>>(
            [&](auto member) {
                if constexpr (std::is_same_v<std::remove_cv_t<decltype(member.pointer)>, M T::*>) {
                    if (member.pointer == pointer) {
                        name = member.name;
                    }
                }
            });
        if (name == nullptr) {
            problems_.push_back("annotate names a member that BOOST_DESCRIBE_STRUCT does not list");
            return *this;
        }
        if (!description.empty()) {
            keywords["description"] = std::move(description);
        }
        members_.emplace_back(name, std::move(keywords));
        return *this;
    }

    [[nodiscard]] const std::string& description() const noexcept { return description_; }
    [[nodiscard]] const std::string& title() const noexcept { return title_; }
    [[nodiscard]] const std::vector<std::pair<std::string, nlohmann::json>>& members() const noexcept {
        return members_;
    }
    [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }

  private:
    std::string description_;
    std::string title_;
    std::vector<std::pair<std::string, nlohmann::json>> members_;
    std::vector<std::string> problems_;
};

namespace detail {

template <class T>
struct IsOptional : std::false_type {};
template <class U>
struct IsOptional<std::optional<U>> : std::true_type {};

template <class T>
struct IsVector : std::false_type {};
template <class U, class A>
struct IsVector<std::vector<U, A>> : std::true_type {};

template <class T>
struct IsStringMap : std::false_type {};
template <class U, class C, class A>
struct IsStringMap<std::map<std::string, U, C, A>> : std::true_type {};

template <class T>
inline constexpr bool kDescribedStruct = std::is_class_v<T>&& boost::describe::has_describe_members<T>::value;

template <class T>
inline constexpr bool kDescribedEnum =
    std::is_enum_v<T>&& boost::describe::has_describe_enumerators<T>::value;

template <class T>
inline constexpr bool kInteger =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>;

template <class T>
using Members =
    boost::describe::describe_members<T, boost::describe::mod_public | boost::describe::mod_inherited>;

// The structs being mapped (outermost first), and those found to contain themselves.
struct SchemaContext {
    std::vector<std::type_index> open;
    std::vector<std::pair<std::type_index, std::string>> recursive;
    nlohmann::json defs = nlohmann::json::object();
    std::vector<std::string> problems;
};

// The parts of the mapping that do not depend on the type (described_schema.cpp).
[[nodiscard]] nlohmann::json integerSchema(long long lowest, unsigned long long highest, bool bounded);
[[nodiscard]] nlohmann::json enumSchema(std::vector<std::string_view> names);
// A reference to a struct already open, marking it recursive (its title, or a name from its position).
[[nodiscard]] nlohmann::json refTo(SchemaContext& context, std::type_index type, const std::string& title);
// Merges an annotation's keywords into a member's schema, refusing those the mapping owns.
void annotateMember(nlohmann::json& schema, const std::string& member, const nlohmann::json& keywords,
                    std::vector<std::string>& problems);
// A finished struct schema: kept in $defs and referred to when it turned out recursive.
[[nodiscard]] nlohmann::json closeStruct(SchemaContext& context, std::type_index type, nlohmann::json schema);

[[nodiscard]] DecodeError mismatch(std::string_view expected, const nlohmann::json& got);
[[nodiscard]] DecodeError outOfRange(const nlohmann::json& got, long long lowest, unsigned long long highest);
[[nodiscard]] DecodeError notEnumerator(const nlohmann::json& got, std::vector<std::string_view> names);
[[nodiscard]] DecodeError missingMember(std::string_view name);
[[nodiscard]] DecodeError unknownMember(const std::string& name);
// Prepends `step` (a member name or an index) to the error's path, escaped as JSON Pointer says.
void within(DecodeError& error, std::string_view step);
void within(DecodeError& error, std::size_t index);

template <class T>
[[nodiscard]] nlohmann::json schemaFor(SchemaContext& context);

template <class T>
[[nodiscard]] std::vector<std::string_view> enumeratorNames() {
    std::vector<std::string_view> names;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>(
        [&](auto enumerator) { names.emplace_back(enumerator.name); });
    return names;
}

template <class T>
[[nodiscard]] nlohmann::json structSchema(SchemaContext& context) {
    const std::type_index type(typeid(T));
    Annotations<T> notes;
    if constexpr (requires(Annotations<T> & a) { T::annotate(a); }) {
        T::annotate(notes);
    }
    for (std::size_t i = 0; i < context.open.size(); ++i) {
        if (context.open[i] == type) {
            return refTo(context, type, notes.title());
        }
    }
    context.open.push_back(type);
    nlohmann::json properties = nlohmann::json::object();
    nlohmann::json required = nlohmann::json::array();
    boost::mp11::mp_for_each<Members<T>>([&](auto member) {
        using M = std::remove_cvref_t<decltype(std::declval<T&>().*member.pointer)>;
        properties[member.name] = schemaFor<M>(context);
        if constexpr (!IsOptional<M>::value) {
            required.push_back(member.name);
        }
    });
    for (const auto& [name, keywords] : notes.members()) {
        annotateMember(properties[name], name, keywords, context.problems);
    }
    for (const auto& problem : notes.problems()) {
        context.problems.push_back(problem);
    }
    nlohmann::json schema = {{"type", "object"}, {"properties", std::move(properties)}};
    schema["required"] = std::move(required);
    schema["additionalProperties"] = false;
    if (!notes.title().empty()) {
        schema["title"] = notes.title();
    }
    if (!notes.description().empty()) {
        schema["description"] = notes.description();
    }
    context.open.pop_back();
    return closeStruct(context, type, std::move(schema));
}

template <class T>
nlohmann::json schemaFor(SchemaContext& context) {
    if constexpr (std::is_same_v<T, bool>) {
        return {{"type", "boolean"}};
    } else if constexpr (kInteger<T>) {
        constexpr bool bounded = sizeof(T) <= 4;
        return integerSchema(static_cast<long long>(std::numeric_limits<T>::min()),
                             static_cast<unsigned long long>(std::numeric_limits<T>::max()), bounded);
    } else if constexpr (std::is_floating_point_v<T>) {
        return {{"type", "number"}};
    } else if constexpr (std::is_same_v<T, std::string>) {
        return {{"type", "string"}};
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
        return nlohmann::json::object();
    } else if constexpr (kDescribedEnum<T>) {
        return enumSchema(enumeratorNames<T>());
    } else if constexpr (IsOptional<T>::value) {
        return schemaFor<typename T::value_type>(context);
    } else if constexpr (IsVector<T>::value) {
        return {{"type", "array"}, {"items", schemaFor<typename T::value_type>(context)}};
    } else if constexpr (IsStringMap<T>::value) {
        return {{"type", "object"}, {"additionalProperties", schemaFor<typename T::mapped_type>(context)}};
    } else if constexpr (kDescribedStruct<T>) {
        return structSchema<T>(context);
    } else {
        static_assert(kDescribedStruct<T>,
                      "reagent::tools::schemaOf: a member type must be bool, an integer, a floating point "
                      "type, std::string, a described enum, std::optional, std::vector, "
                      "std::map<std::string, U>, nlohmann::json or a struct described with "
                      "BOOST_DESCRIBE_STRUCT");
        return nullptr;
    }
}

template <class T>
[[nodiscard]] bool decodeInto(const nlohmann::json& in, T& out, DecodeError& error);

template <class T>
bool decodeStruct(const nlohmann::json& in, T& out, DecodeError& error) {
    if (!in.is_object()) {
        error = mismatch("an object", in);
        return false;
    }
    bool ok = true;
    std::size_t known = 0;
    boost::mp11::mp_for_each<Members<T>>([&](auto member) {
        if (!ok) {
            return;
        }
        using M = std::remove_cvref_t<decltype(out.*member.pointer)>;
        const auto found = in.find(member.name);
        if (found == in.end()) {
            if constexpr (IsOptional<M>::value) {
                (out.*member.pointer).reset();
            } else {
                error = missingMember(member.name);
                ok = false;
            }
            return;
        }
        ++known;
        if (!decodeInto(*found, out.*member.pointer, error)) {
            within(error, member.name);
            ok = false;
        }
    });
    if (ok && known != in.size()) {
        for (auto it = in.begin(); it != in.end(); ++it) {
            const std::string& key = it.key();  // not a structured binding: clang 15 cannot capture one
            bool listed = false;
            boost::mp11::mp_for_each<Members<T>>([&](auto member) { listed = listed || key == member.name; });
            if (!listed) {
                error = unknownMember(key);
                return false;
            }
        }
    }
    return ok;
}

template <class T>
bool decodeInto(const nlohmann::json& in, T& out, DecodeError& error) {
    if constexpr (std::is_same_v<T, bool>) {
        if (!in.is_boolean()) {
            error = mismatch("a boolean", in);
            return false;
        }
        out = in.get<bool>();
        return true;
    } else if constexpr (kInteger<T>) {
        constexpr long long lowest = static_cast<long long>(std::numeric_limits<T>::min());
        constexpr unsigned long long highest = static_cast<unsigned long long>(std::numeric_limits<T>::max());
        if (in.is_number_unsigned()) {
            const auto value = in.get<std::uint64_t>();
            if (value > highest) {
                error = outOfRange(in, lowest, highest);
                return false;
            }
            out = static_cast<T>(value);
            return true;
        }
        if (in.is_number_integer()) {
            const auto value = in.get<std::int64_t>();
            if (value < lowest || (value >= 0 && static_cast<unsigned long long>(value) > highest)) {
                error = outOfRange(in, lowest, highest);
                return false;
            }
            out = static_cast<T>(value);
            return true;
        }
        if (in.is_number_float()) {
            // JSON Schema counts 3.0 as an integer. The range is checked before any conversion (one out
            // of range is undefined); highest + 1 as a double is the first value above the range.
            const double value = in.get<double>();
            if (value >= static_cast<double>(lowest) && value < static_cast<double>(highest) + 1.0 &&
                std::trunc(value) == value) {
                out = value < 0 ? static_cast<T>(static_cast<long long>(value))
                                : static_cast<T>(static_cast<unsigned long long>(value));
                return true;
            }
            if (std::trunc(value) == value) {
                error = outOfRange(in, lowest, highest);
                return false;
            }
        }
        error = mismatch("an integer", in);
        return false;
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!in.is_number()) {
            error = mismatch("a number", in);
            return false;
        }
        out = in.get<T>();
        return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!in.is_string()) {
            error = mismatch("a string", in);
            return false;
        }
        out = in.get_ref<const std::string&>();
        return true;
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
        out = in;
        return true;
    } else if constexpr (kDescribedEnum<T>) {
        bool found = false;
        if (in.is_string()) {
            const auto& text = in.get_ref<const std::string&>();
            boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto enumerator) {
                if (!found && text == enumerator.name) {
                    out = enumerator.value;
                    found = true;
                }
            });
        }
        if (!found) {
            error = notEnumerator(in, enumeratorNames<T>());
        }
        return found;
    } else if constexpr (IsOptional<T>::value) {
        if (in.is_null()) {
            out.reset();
            return true;
        }
        typename T::value_type value{};
        if (!decodeInto(in, value, error)) {
            return false;
        }
        out = std::move(value);
        return true;
    } else if constexpr (IsVector<T>::value) {
        if (!in.is_array()) {
            error = mismatch("an array", in);
            return false;
        }
        T items;
        items.reserve(in.size());
        for (std::size_t i = 0; i < in.size(); ++i) {
            typename T::value_type item{};
            if (!decodeInto(in[i], item, error)) {
                within(error, i);
                return false;
            }
            items.push_back(std::move(item));
        }
        out = std::move(items);
        return true;
    } else if constexpr (IsStringMap<T>::value) {
        if (!in.is_object()) {
            error = mismatch("an object", in);
            return false;
        }
        T entries;
        for (const auto& [key, value] : in.items()) {
            typename T::mapped_type entry{};
            if (!decodeInto(value, entry, error)) {
                within(error, key);
                return false;
            }
            entries.emplace(key, std::move(entry));
        }
        out = std::move(entries);
        return true;
    } else {
        static_assert(kDescribedStruct<T>, "reagent::tools::decodeAs: see schemaOf for the types it maps");
        return decodeStruct(in, out, error);
    }
}

template <class T>
[[nodiscard]] nlohmann::json encodeValue(const T& value) {
    if constexpr (std::is_same_v<T, bool> || kInteger<T> || std::is_floating_point_v<T> ||
                  std::is_same_v<T, std::string> || std::is_same_v<T, nlohmann::json>) {
        return nlohmann::json(value);
    } else if constexpr (kDescribedEnum<T>) {
        nlohmann::json out;
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto enumerator) {
            if (out.is_null() && value == enumerator.value) {
                out = enumerator.name;
            }
        });
        return out;  // null for a value no enumerator names
    } else if constexpr (IsOptional<T>::value) {
        return value ? encodeValue(*value) : nlohmann::json(nullptr);
    } else if constexpr (IsVector<T>::value) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& item : value) {
            out.push_back(encodeValue(item));
        }
        return out;
    } else if constexpr (IsStringMap<T>::value) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [key, entry] : value) {
            out[key] = encodeValue(entry);
        }
        return out;
    } else {
        static_assert(kDescribedStruct<T>, "reagent::tools::encodeAs: see schemaOf for the types it maps");
        nlohmann::json out = nlohmann::json::object();
        boost::mp11::mp_for_each<Members<T>>([&](auto member) {
            const auto& field = value.*member.pointer;
            if constexpr (IsOptional<std::remove_cvref_t<decltype(field)>>::value) {
                if (!field) {
                    return;  // not required: left out rather than null
                }
            }
            out[member.name] = encodeValue(field);
        });
        return out;
    }
}

}  // namespace detail

/// \brief The JSON Schema of `T` (see the file's comment for the mapping), or the problems its
/// annotations have.
template <class T>
[[nodiscard]] expected<nlohmann::json, SchemaError> schemaOf() {
    detail::SchemaContext context;
    nlohmann::json schema = detail::schemaFor<T>(context);
    if (!context.problems.empty()) {
        return tl::make_unexpected(SchemaError{std::move(context.problems)});
    }
    if (!context.defs.empty()) {
        schema["$defs"] = std::move(context.defs);
    }
    return schema;
}

/// \brief `value` as a `T`, or the first place where it is not one.
template <class T>
[[nodiscard]] expected<T, DecodeError> decodeAs(const nlohmann::json& value) {
    T out{};
    DecodeError error;
    if (!detail::decodeInto(value, out, error)) {
        return tl::make_unexpected(std::move(error));
    }
    return out;
}

/// \brief `value` as JSON that `decodeAs<T>` reads back (an empty optional member is left out).
template <class T>
[[nodiscard]] nlohmann::json encodeAs(const T& value) {
    return detail::encodeValue(value);
}

}  // namespace reagent::tools
