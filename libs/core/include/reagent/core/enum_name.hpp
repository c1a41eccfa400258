#pragma once
/// \file
/// \brief `enumName`: an enumerator's own name, read from its Boost.Describe description.

#include <boost/describe/enum.hpp>
#include <boost/describe/enum_to_string.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>
#include <cstddef>
#include <string_view>
#include <utility>

namespace reagent {

namespace detail {

/// \brief Whether `Value` is one of its enum's named enumerators, described or not. Clang and g++ spell an
/// enumerator template argument by its name and any other value as a cast, `(E)7`; with a compiler that
/// spells it otherwise every value counts as unnamed, and the check below passes.
template <auto Value>
constexpr bool isNamedEnumerator() noexcept {
    const std::string_view signature = __PRETTY_FUNCTION__;
    const std::string_view marker = "Value = ";
    const std::size_t at = signature.find(marker);
    if (at == std::string_view::npos) {
        return false;
    }
    std::string_view argument = signature.substr(at + marker.size());
    argument = argument.substr(0, argument.find_first_of("];"));
    // A name may start with a parenthesis too: "(anonymous namespace)::E::x".
    const std::size_t close = argument.rfind(')');
    const bool cast =
        close != std::string_view::npos && close + 1 < argument.size() &&
        (argument[close + 1] == '-' || (argument[close + 1] >= '0' && argument[close + 1] <= '9'));
    return !argument.empty() && !cast;
}

template <class E>
constexpr bool isDescribed(E value) noexcept {
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>(
        [&](auto descriptor) { found = found || descriptor.value == value; });
    return found;
}

template <class E>
constexpr long long describedBound(bool lowest) noexcept {
    long long bound = 0;
    bool first = true;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto descriptor) {
        const auto value = static_cast<long long>(descriptor.value);
        if (first || (lowest ? value < bound : value > bound)) {
            bound = value;
        }
        first = false;
    });
    return bound;
}

template <class E, long long First, long long... Offsets>
constexpr bool namedAreDescribed(std::integer_sequence<long long, Offsets...> /*offsets*/) noexcept {
    return ((!isNamedEnumerator<static_cast<E>(First + Offsets)>() ||
             isDescribed(static_cast<E>(First + Offsets))) &&
            ...);
}

/// \brief Whether `BOOST_DESCRIBE_ENUM` lists every enumerator from the lowest described value to one past
/// the highest: an enumerator left out of the macro (one added at the end, most often) would otherwise
/// read "unknown" at run time.
template <class E>
constexpr bool describesEveryEnumerator() noexcept {
    constexpr long long lowest = describedBound<E>(true);
    constexpr long long highest = describedBound<E>(false);
    // Enums of a few codes are what this is for; a wide sparse one is not scanned.
    if constexpr (highest - lowest > 256) {
        return true;
    } else {
        return namedAreDescribed<E, lowest>(std::make_integer_sequence<long long, highest - lowest + 2>{});
    }
}

}  // namespace detail

/// \brief The name of an enumerator as written in its enum (`"timeout"`), or `"unknown"` for a value that is
/// none of them. `E` is described by `BOOST_DESCRIBE_ENUM` right after its definition; a description that
/// leaves an enumerator out does not compile (with clang and g++).
template <class E>
[[nodiscard]] std::string_view enumName(E value) noexcept {
    static_assert(detail::describesEveryEnumerator<E>(), "BOOST_DESCRIBE_ENUM leaves out an enumerator");
    return boost::describe::enum_to_string(value, "unknown");
}

}  // namespace reagent
