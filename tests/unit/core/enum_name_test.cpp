#include "reagent/core/enum_name.hpp"

#include <catch2/catch.hpp>

#include "reagent/core/effect_error.hpp"

using reagent::enumName;
using reagent::detail::describesEveryEnumerator;

namespace {

enum class Colour { red, green, blue };
BOOST_DESCRIBE_ENUM(Colour, red, green, blue)

// Explicit values with gaps: only the named ones must be described.
enum class Sparse { one = 1, five = 5, six };
BOOST_DESCRIBE_ENUM(Sparse, one, five, six)

// Descriptions that leave an enumerator out, at the end and in the middle.
enum class LastForgotten { a, b, c };
BOOST_DESCRIBE_ENUM(LastForgotten, a, b)
enum class MiddleForgotten { a, b, c };
BOOST_DESCRIBE_ENUM(MiddleForgotten, a, c)

}  // namespace

// `enumName` refuses at compile time an enum whose description leaves an enumerator out.
static_assert(describesEveryEnumerator<Colour>());
static_assert(describesEveryEnumerator<Sparse>());
static_assert(!describesEveryEnumerator<LastForgotten>());
static_assert(!describesEveryEnumerator<MiddleForgotten>());

TEST_CASE("enumName gives an enumerator's own name", "[core][enum_name]") {
    CHECK(enumName(Colour::red) == "red");
    CHECK(enumName(Colour::blue) == "blue");
    CHECK(enumName(Sparse::six) == "six");
    CHECK(toString(reagent::EffectErrc::exception) == "exception");
}

TEST_CASE("enumName gives \"unknown\" for a value that is no enumerator", "[core][enum_name]") {
    CHECK(enumName(static_cast<Colour>(3)) == "unknown");
    CHECK(enumName(static_cast<Colour>(-1)) == "unknown");
    CHECK(enumName(static_cast<Sparse>(2)) == "unknown");
}
