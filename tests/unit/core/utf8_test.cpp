#include "reagent/core/detail/utf8.hpp"

#include <catch2/catch.hpp>
#include <string_view>

using reagent::detail::utf8SequenceLength;
using namespace std::string_view_literals;

TEST_CASE("utf8SequenceLength measures well-formed sequences", "[core][utf8]") {
    CHECK(utf8SequenceLength("a", 0) == 1);
    CHECK(utf8SequenceLength("\xC3\xA9", 0) == 2);          // é
    CHECK(utf8SequenceLength("\xE2\x82\xAC", 0) == 3);      // €
    CHECK(utf8SequenceLength("\xF0\x9F\x98\x80", 0) == 4);  // 😀
    CHECK(utf8SequenceLength("x\xE2\x82\xAC", 1) == 3);
}

TEST_CASE("utf8SequenceLength rejects what RFC 3629 forbids", "[core][utf8]") {
    CHECK(utf8SequenceLength("\x80", 0) == 0);              // a lone continuation byte
    CHECK(utf8SequenceLength("\xC0\xAF", 0) == 0);          // overlong
    CHECK(utf8SequenceLength("\xE0\x80\xAF", 0) == 0);      // overlong
    CHECK(utf8SequenceLength("\xED\xA0\x80", 0) == 0);      // a surrogate
    CHECK(utf8SequenceLength("\xF4\x90\x80\x80", 0) == 0);  // above U+10FFFF
    CHECK(utf8SequenceLength("\xF5\x80\x80\x80", 0) == 0);
    CHECK(utf8SequenceLength("\xE2\x82", 0) == 0);      // cut by the end of the text
    CHECK(utf8SequenceLength("\xE2\x28\xAC", 0) == 0);  // a broken continuation
    CHECK(utf8SequenceLength("\xF0\x9F\x98\x28", 0) == 0);
}

TEST_CASE("utf8Prefix never cuts inside a character", "[core][utf8]") {
    using reagent::detail::utf8Prefix;
    const std::string text = "a\u20acb";  // 1 + 3 + 1 bytes
    CHECK(utf8Prefix(text, 10) == text);
    CHECK(utf8Prefix(text, 5) == text);
    CHECK(utf8Prefix(text, 4) == "a\u20ac");
    CHECK(utf8Prefix(text, 3) == "a");
    CHECK(utf8Prefix(text, 2) == "a");
    CHECK(utf8Prefix(text, 1) == "a");
    CHECK(utf8Prefix(text, 0).empty());
    CHECK(utf8Prefix("\U0001F600\U0001F600", 7) == "\U0001F600");
    // A run of stray continuation bytes is not a character: cut where asked.
    CHECK(utf8Prefix("\x80\x80\x80\x80\x80\x80", 5).size() == 5);
}
