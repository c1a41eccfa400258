#include "reagent/tools/described_schema.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reagent/tools/schema_validator.hpp"

using nlohmann::json;
using reagent::tools::Annotations;
using reagent::tools::decodeAs;
using reagent::tools::encodeAs;
using reagent::tools::schemaOf;

namespace described_test {

enum class Unit { celsius, fahrenheit };
BOOST_DESCRIBE_ENUM(Unit, celsius, fahrenheit)

struct Reading {
    double value = 0;
    Unit unit = Unit::celsius;
};
BOOST_DESCRIBE_STRUCT(Reading, (), (value, unit))

struct Base {
    std::string id;
};
BOOST_DESCRIBE_STRUCT(Base, (), (id))

// Every member kind the mapping takes.
struct Station : Base {
    bool active = false;
    std::uint8_t floor = 0;
    std::int64_t serial = 0;
    unsigned count = 0;
    float ratio = 0;
    std::string name;
    Unit unit = Unit::celsius;
    std::optional<std::string> note;
    std::vector<Reading> readings;
    std::map<std::string, int> tags;
    json extra;
    Reading latest;

    static void annotate(Annotations<Station>& a) {
        a.describe("A weather station")
            .member(&Station::name, "Its public name", {{"minLength", 1}})
            .member(&Station::readings, "", {{"maxItems", 3}});
    }
};
BOOST_DESCRIBE_STRUCT(Station, (Base),
                      (active, floor, serial, count, ratio, name, unit, note, readings, tags, extra, latest))

struct Node {
    std::string label;
    std::vector<Node> children;
};
BOOST_DESCRIBE_STRUCT(Node, (), (label, children))

struct Tree {
    std::optional<Node> root;
};
BOOST_DESCRIBE_STRUCT(Tree, (), (root))

struct Owned {
    int size = 0;
    static void annotate(Annotations<Owned>& a) { a.member(&Owned::size, "", {{"type", "string"}}); }
};
BOOST_DESCRIBE_STRUCT(Owned, (), (size))

struct Hidden {
    int shown = 0;
    int hidden = 0;
    static void annotate(Annotations<Hidden>& a) { a.member(&Hidden::hidden, "not described"); }
};
BOOST_DESCRIBE_STRUCT(Hidden, (), (shown))

Station sample() {
    Station s;
    s.id = "st-1";
    s.active = true;
    s.floor = 3;
    s.serial = -9007199254740993LL;
    s.count = 4000000000U;
    s.ratio = 0.5F;
    s.name = "Mont Ventoux";
    s.unit = Unit::fahrenheit;
    s.note = "windy";
    s.readings = {{1.5, Unit::celsius}, {-40, Unit::fahrenheit}};
    s.tags = {{"a", 1}, {"b/c~d", -2}};
    s.extra = json{{"any", {1, "two", nullptr}}};
    s.latest = {21.25, Unit::celsius};
    return s;
}

}  // namespace described_test

using namespace described_test;

TEST_CASE("described schema: a struct's schema names every member, its kinds and annotations",
          "[tools][schema]") {
    const auto schema = schemaOf<Station>();
    REQUIRE(schema);
    const json& s = *schema;
    CHECK(s["type"] == "object");
    CHECK(s["additionalProperties"] == false);
    CHECK(s["description"] == "A weather station");
    const json& p = s["properties"];
    CHECK(p["id"] == json{{"type", "string"}});  // from the described base
    CHECK(p["active"] == json{{"type", "boolean"}});
    CHECK(p["floor"] == json{{"type", "integer"}, {"minimum", 0}, {"maximum", 255}});
    CHECK(p["serial"] == json{{"type", "integer"}});
    CHECK(p["count"] == json{{"type", "integer"}, {"minimum", 0}, {"maximum", 4294967295ULL}});
    CHECK(p["ratio"] == json{{"type", "number"}});
    CHECK(p["name"] == json{{"type", "string"}, {"description", "Its public name"}, {"minLength", 1}});
    CHECK(p["unit"] == json{{"type", "string"}, {"enum", {"celsius", "fahrenheit"}}});
    CHECK(p["note"] == json{{"type", "string"}});
    CHECK(p["readings"]["type"] == "array");
    CHECK(p["readings"]["maxItems"] == 3);
    CHECK(p["readings"]["items"]["required"] == json{"value", "unit"});
    CHECK(p["tags"] == json{{"type", "object"},
                            {"additionalProperties",
                             {{"type", "integer"}, {"minimum", -2147483648LL}, {"maximum", 2147483647}}}});
    CHECK(p["extra"] == json::object());
    CHECK(p["latest"]["properties"]["value"] == json{{"type", "number"}});
    CHECK(s["required"] == json{"id", "active", "floor", "serial", "count", "ratio", "name", "unit",
                                "readings", "tags", "extra", "latest"});  // not the optional note
    CHECK_FALSE(s.contains("$defs"));
}

TEST_CASE("described schema: a value round-trips, and validates against its own schema", "[tools][schema]") {
    const Station original = sample();
    const json encoded = encodeAs(original);
    CHECK(encoded["unit"] == "fahrenheit");
    CHECK(encoded["serial"] == -9007199254740993LL);
    const auto decoded = decodeAs<Station>(encoded);
    REQUIRE(decoded);
    CHECK(encodeAs(*decoded) == encoded);
    CHECK(decoded->id == "st-1");
    CHECK(decoded->count == 4000000000U);
    CHECK(decoded->note == std::optional<std::string>("windy"));
    CHECK(decoded->tags.at("b/c~d") == -2);
    CHECK(decoded->readings.at(1).unit == Unit::fahrenheit);

    auto validator = reagent::tools::SchemaValidator::compile(*schemaOf<Station>());
    REQUIRE(validator);
    CHECK(validator->validate(encoded));
    json tooMany = encoded;
    tooMany["readings"] =
        json::array({encoded["latest"], encoded["latest"], encoded["latest"], encoded["latest"]});
    CHECK_FALSE(validator->validate(tooMany));  // the annotation's maxItems

    Station empty = sample();
    empty.note.reset();
    const json without = encodeAs(empty);
    CHECK_FALSE(without.contains("note"));
    const auto back = decodeAs<Station>(without);
    REQUIRE(back);
    CHECK_FALSE(back->note);
    json nulled = encoded;
    nulled["note"] = nullptr;
    const auto fromNull = decodeAs<Station>(nulled);
    REQUIRE(fromNull);
    CHECK_FALSE(fromNull->note);
}

TEST_CASE("described schema: decoding names the first mismatch by its JSON Pointer", "[tools][schema]") {
    const json good = encodeAs(sample());
    const auto failure = [&](const json& value) {
        const auto decoded = decodeAs<Station>(value);
        REQUIRE_FALSE(decoded);
        return decoded.error();
    };
    json v = good;
    v["readings"][1]["unit"] = "kelvin";
    auto e = failure(v);
    CHECK(e.path == "/readings/1/unit");
    CHECK(e.message == "expected one of celsius, fahrenheit, got \"kelvin\"");
    CHECK(e.describe() == "at /readings/1/unit: expected one of celsius, fahrenheit, got \"kelvin\"");

    v = good;
    v["tags"]["b/c~d"] = "x";
    e = failure(v);
    CHECK(e.path == "/tags/b~1c~0d");
    CHECK(e.message.find("expected an integer, got a string") == 0);

    v = good;
    v.erase("name");
    e = failure(v);
    CHECK(e.path.empty());
    CHECK(e.message == "the required member 'name' is missing");

    v = good;
    v["nmae"] = "typo";
    CHECK(failure(v).message == "'nmae' is not a member of this object");

    v = good;
    v["floor"] = 300;
    e = failure(v);
    CHECK(e.path == "/floor");
    CHECK(e.message == "300 is out of range: the member takes 0 to 255");
    v["floor"] = -1;
    CHECK(failure(v).path == "/floor");
    v["floor"] = 3.0;  // an integer, as JSON Schema counts
    CHECK(decodeAs<Station>(v));
    v["floor"] = 3.5;
    CHECK(failure(v).message == "expected an integer, got a number with a fraction (3.5)");
    v["floor"] = 1e300;
    CHECK(failure(v).message.find("out of range") != std::string::npos);
    v = good;
    v["serial"] = 18446744073709551615ULL;
    CHECK(failure(v).message.find("out of range") != std::string::npos);

    v = good;
    v["latest"] = json::array();
    e = failure(v);
    CHECK(e.path == "/latest");
    CHECK(e.message == "expected an object, got an array ([])");
    CHECK(failure(json("station")).message == "expected an object, got a string (\"station\")");
    CHECK(failure(json(std::string(500, 'x'))).message.size() < 140);  // a long value is quoted short
}

TEST_CASE("described schema: a struct that contains itself is referred to, and validates",
          "[tools][schema]") {
    const auto node = schemaOf<Node>();
    REQUIRE(node);
    CHECK((*node)["properties"]["children"]["items"] == json{{"$ref", "#"}});
    const auto tree = schemaOf<Tree>();
    REQUIRE(tree);
    CHECK((*tree)["properties"]["root"] == json{{"$ref", "#/$defs/Type1"}});
    REQUIRE((*tree)["$defs"].contains("Type1"));
    CHECK((*tree)["$defs"]["Type1"]["properties"]["children"]["items"] == json{{"$ref", "#/$defs/Type1"}});

    const json value = {
        {"root", {{"label", "a"}, {"children", {{{"label", "b"}, {"children", json::array()}}}}}}};
    auto validator = reagent::tools::SchemaValidator::compile(*tree);
    REQUIRE(validator);
    CHECK(validator->validate(value));
    json bad = value;
    bad["root"]["children"][0]["children"] = {{{"label", 5}, {"children", json::array()}}};
    CHECK_FALSE(validator->validate(bad));
    const auto decoded = decodeAs<Tree>(value);
    REQUIRE(decoded);
    REQUIRE(decoded->root);
    CHECK(decoded->root->children.at(0).label == "b");
    const auto wrong = decodeAs<Tree>(bad);
    REQUIRE_FALSE(wrong);
    CHECK(wrong.error().path == "/root/children/0/children/0/label");
}

TEST_CASE("described schema: annotations cannot contradict the type or name an undescribed member",
          "[tools][schema]") {
    const auto owned = schemaOf<Owned>();
    REQUIRE_FALSE(owned);
    CHECK(owned.error().describe() ==
          "the annotation of 'size' sets 'type', which the member's C++ type decides");
    const auto hidden = schemaOf<Hidden>();
    REQUIRE_FALSE(hidden);
    CHECK(hidden.error().describe() == "annotate names a member that BOOST_DESCRIBE_STRUCT does not list");
}
