#include "reagent/core/untrusted_json.hpp"

#include <catch2/catch.hpp>
#include <string>

using reagent::JsonErrc;
using reagent::kMaxJsonDepth;
using reagent::parseUntrustedJson;

namespace {

std::string nested(std::size_t depth, char open = '[', char close = ']') {
    return std::string(depth, open) + std::string(depth, close);
}

}  // namespace

TEST_CASE("parseUntrustedJson reads ordinary JSON as nlohmann does", "[core][json]") {
    const auto parsed = parseUntrustedJson(R"({"a": [1, -2, 3.5, "x", true, null, {}], "b": {"c": "d"}})");
    REQUIRE(parsed);
    CHECK(*parsed == nlohmann::json::parse(R"({"a": [1, -2, 3.5, "x", true, null, {}], "b": {"c": "d"}})"));
    CHECK(parseUntrustedJson("42").value() == 42);
}

TEST_CASE("parseUntrustedJson accepts the limit and refuses one level more", "[core][json]") {
    const auto atLimit = parseUntrustedJson(nested(kMaxJsonDepth));
    REQUIRE(atLimit);
    // What callers do with a value at the limit: print it, copy it, compare it.
    CHECK(atLimit->dump().size() == 2 * kMaxJsonDepth);
    const nlohmann::json copy = *atLimit;
    CHECK(copy == *atLimit);

    const auto over = parseUntrustedJson(nested(kMaxJsonDepth + 1));
    REQUIRE_FALSE(over);
    CHECK(over.error().code == JsonErrc::too_deep);
    CHECK(over.error().message.find("512") != std::string::npos);
}

TEST_CASE("parseUntrustedJson refuses a hostile nesting at once, whatever follows it", "[core][json]") {
    // 100,000 levels of objects and arrays, never closed: refused at level 513, nothing deeper built.
    std::string text;
    for (int i = 0; i < 100000; ++i) {
        text += R"({"a":[)";
    }
    const auto parsed = parseUntrustedJson(text);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code == JsonErrc::too_deep);

    reagent::UntrustedJsonOptions shallow;
    shallow.maxDepth = 2;
    CHECK(parseUntrustedJson("[[1]]", shallow));
    CHECK(parseUntrustedJson("[[[1]]]", shallow).error().code == JsonErrc::too_deep);
}

TEST_CASE("parseUntrustedJson reports where a text is not JSON", "[core][json]") {
    const auto parsed = parseUntrustedJson(R"({"a": tru})");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code == JsonErrc::syntax);
    CHECK(parsed.error().message.find("column") != std::string::npos);
    CHECK(parseUntrustedJson("").error().code == JsonErrc::syntax);
    CHECK(parseUntrustedJson("[1] [2]").error().code == JsonErrc::syntax);
    CHECK(parseUntrustedJson("\"\xFF\"").error().code == JsonErrc::syntax);
    // Brackets inside strings are text, not nesting.
    CHECK(parseUntrustedJson("\"" + nested(10000) + "\""));
}
