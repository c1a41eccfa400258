#include "reagent/core/json_fields.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

using nlohmann::json;
using reagent::JsonFieldErrc;

namespace {

const json kMessage = json::parse(R"({
    "id": "m-1", "count": 3, "negative": -7, "ratio": 1.5, "done": true, "none": null,
    "tags": ["a", "b"], "meta": {"author": {"name": "ada"}}, "huge": 18446744073709551615
})");

}  // namespace

TEST_CASE("required fields read their value or say what was wrong", "[core][json_fields]") {
    SECTION("present with the type asked") {
        CHECK(reagent::requiredString(kMessage, "id").value() == "m-1");
        CHECK(reagent::requiredBool(kMessage, "done").value());
        CHECK(reagent::requiredInteger(kMessage, "count").value() == 3);
        CHECK(reagent::requiredInteger(kMessage, "negative").value() == -7);
        CHECK(reagent::requiredObject(kMessage, "meta").value() == &kMessage.at("meta"));
        CHECK(reagent::requiredArray(kMessage, "tags").value()->size() == 2);
    }
    SECTION("absent") {
        const auto id = reagent::requiredString(kMessage, "absent");
        REQUIRE_FALSE(id);
        CHECK(id.error().code == JsonFieldErrc::missing);
        CHECK(id.error().message == "field 'absent' is missing");
        CHECK(reagent::requiredBool(kMessage, "absent").error().code == JsonFieldErrc::missing);
        CHECK(reagent::requiredInteger(kMessage, "absent").error().code == JsonFieldErrc::missing);
        CHECK(reagent::requiredObject(kMessage, "absent").error().code == JsonFieldErrc::missing);
        CHECK(reagent::requiredArray(kMessage, "absent").error().code == JsonFieldErrc::missing);
    }
    SECTION("null counts as absent") {
        CHECK(reagent::requiredString(kMessage, "none").error().code == JsonFieldErrc::missing);
        CHECK(reagent::requiredObject(kMessage, "none").error().code == JsonFieldErrc::missing);
    }
    SECTION("of another type") {
        const auto id = reagent::requiredString(kMessage, "count");
        REQUIRE_FALSE(id);
        CHECK(id.error().code == JsonFieldErrc::wrong_type);
        CHECK(id.error().message == "field 'count' must be a string, got number");
        CHECK(id.error().describe() == "wrong_type: field 'count' must be a string, got number");
        CHECK(reagent::requiredBool(kMessage, "id").error().message ==
              "field 'id' must be a boolean, got string");
        CHECK(reagent::requiredInteger(kMessage, "ratio").error().message ==
              "field 'ratio' must be an integer, got number");
        CHECK(reagent::requiredObject(kMessage, "tags").error().message ==
              "field 'tags' must be an object, got array");
        CHECK(reagent::requiredArray(kMessage, "meta").error().message ==
              "field 'meta' must be an array, got object");
    }
    SECTION("an integer past int64") {
        const auto huge = reagent::requiredInteger(kMessage, "huge");
        REQUIRE_FALSE(huge);
        CHECK(huge.error().code == JsonFieldErrc::out_of_range);
        const json largest = {{"n", std::numeric_limits<std::int64_t>::max()}};
        CHECK(reagent::requiredInteger(largest, "n").value() == std::numeric_limits<std::int64_t>::max());
    }
    SECTION("read from something that is not an object") {
        for (const json& value : {json(), json::array({1}), json("id"), json(4)}) {
            const auto id = reagent::requiredString(value, "id");
            REQUIRE_FALSE(id);
            CHECK(id.error().code == JsonFieldErrc::not_an_object);
        }
        CHECK(reagent::requiredString(json::array(), "id").error().message ==
              "cannot read field 'id' of array, not an object");
    }
    SECTION("a nested object, read in steps") {
        const auto meta = reagent::requiredObject(kMessage, "meta");
        REQUIRE(meta);
        const auto author = reagent::requiredObject(**meta, "author");
        REQUIRE(author);
        CHECK(reagent::requiredString(**author, "name").value() == "ada");
        CHECK(reagent::requiredString(**author, "email").error().code == JsonFieldErrc::missing);
    }
}

TEST_CASE("optional fields read absent and null as nothing, and still refuse another type",
          "[core][json_fields]") {
    SECTION("present with the type asked") {
        CHECK(reagent::optionalString(kMessage, "id").value() == "m-1");
        CHECK(reagent::optionalBool(kMessage, "done").value() == true);
        CHECK(reagent::optionalInteger(kMessage, "count").value() == 3);
        CHECK(reagent::optionalObject(kMessage, "meta").value() == &kMessage.at("meta"));
        CHECK(reagent::optionalArray(kMessage, "tags").value() == &kMessage.at("tags"));
    }
    SECTION("absent or null") {
        for (const char* key : {"absent", "none"}) {
            CHECK(reagent::optionalString(kMessage, key).value() == std::nullopt);
            CHECK(reagent::optionalBool(kMessage, key).value() == std::nullopt);
            CHECK(reagent::optionalInteger(kMessage, key).value() == std::nullopt);
            CHECK(reagent::optionalObject(kMessage, key).value() == nullptr);
            CHECK(reagent::optionalArray(kMessage, key).value() == nullptr);
        }
    }
    SECTION("of another type") {
        CHECK(reagent::optionalString(kMessage, "done").error().code == JsonFieldErrc::wrong_type);
        CHECK(reagent::optionalBool(kMessage, "count").error().message ==
              "field 'count' must be a boolean, got number");
        CHECK(reagent::optionalInteger(kMessage, "id").error().code == JsonFieldErrc::wrong_type);
        CHECK(reagent::optionalInteger(kMessage, "huge").error().code == JsonFieldErrc::out_of_range);
        CHECK(reagent::optionalObject(kMessage, "id").error().code == JsonFieldErrc::wrong_type);
        CHECK(reagent::optionalArray(kMessage, "id").error().code == JsonFieldErrc::wrong_type);
    }
    SECTION("read from something that is not an object") {
        CHECK(reagent::optionalString(json(), "id").error().code == JsonFieldErrc::not_an_object);
        CHECK(reagent::optionalObject(json(1), "id").error().code == JsonFieldErrc::not_an_object);
    }
    SECTION("a nested object, read in steps") {
        const auto meta = reagent::optionalObject(kMessage, "meta");
        REQUIRE(meta);
        REQUIRE(*meta != nullptr);
        CHECK(reagent::optionalObject(**meta, "author").value() != nullptr);
        CHECK(reagent::optionalObject(**meta, "editor").value() == nullptr);
    }
}

TEST_CASE("fields with a fallback read anything but the type asked as the fallback", "[core][json_fields]") {
    SECTION("present with the type asked") {
        CHECK(reagent::stringOr(kMessage, "id") == "m-1");
        CHECK(reagent::boolOr(kMessage, "done", false));
        CHECK(reagent::integerOr(kMessage, "count", 0) == 3);
    }
    SECTION("absent, null, of another type, or out of range") {
        for (const char* key : {"absent", "none", "tags"}) {
            CHECK(reagent::stringOr(kMessage, key) == "");
            CHECK(reagent::stringOr(kMessage, key, "fallback") == "fallback");
            CHECK(reagent::boolOr(kMessage, key, true));
            CHECK(reagent::integerOr(kMessage, key, 9) == 9);
        }
        CHECK(reagent::integerOr(kMessage, "ratio", 9) == 9);
        CHECK(reagent::integerOr(kMessage, "huge", 9) == 9);
    }
    SECTION("read from something that is not an object") {
        CHECK(reagent::stringOr(json("id"), "id", "x") == "x");
        CHECK_FALSE(reagent::boolOr(json::array(), "done", false));
        CHECK(reagent::integerOr(json(), "count", -1) == -1);
    }
    SECTION("a nested field") {
        const json* author = reagent::requiredObject(kMessage.at("meta"), "author").value();
        CHECK(reagent::stringOr(*author, "name") == "ada");
    }
}

TEST_CASE("every field error code has a name", "[core][json_fields]") {
    CHECK(toString(JsonFieldErrc::not_an_object) == "not_an_object");
    CHECK(toString(JsonFieldErrc::missing) == "missing");
    CHECK(toString(JsonFieldErrc::wrong_type) == "wrong_type");
    CHECK(toString(JsonFieldErrc::out_of_range) == "out_of_range");
}
