#include "reagent/core/percent_encoding.hpp"

#include <catch2/catch.hpp>

TEST_CASE("percent decoding, strict and lenient", "[core][percent]") {
    using reagent::percentDecoded;
    using reagent::percentDecodedLenient;
    CHECK(percentDecoded("a%20b%2Cc%2cd") == "a b,c,d");
    CHECK(percentDecoded("") == "");
    CHECK(percentDecoded("100%25") == "100%");
    CHECK_FALSE(percentDecoded("%"));
    CHECK_FALSE(percentDecoded("%4"));
    CHECK_FALSE(percentDecoded("%zz"));
    CHECK_FALSE(percentDecoded("ok%2"));
    CHECK(percentDecodedLenient("%41%") == "A%");
    CHECK(percentDecodedLenient("%4") == "%4");
    CHECK(percentDecodedLenient("a%zzb%62") == "a%zzbb");
    CHECK(reagent::hexDigitValue('F') == 15);
    CHECK(reagent::hexDigitValue('g') == -1);
}
