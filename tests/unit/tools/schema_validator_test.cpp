#include "reagent/tools/schema_validator.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

using namespace reagent::tools;
using nlohmann::json;

namespace {

const json kSearchSchema = json::parse(R"({
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "limit": {"type": "integer", "default": 10},
        "ratio": {"type": "number"},
        "exact": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "cursor": {"type": "null"},
        "mode": {"type": "string", "enum": ["fast", "deep"]},
        "filter": {
            "type": "object",
            "properties": {
                "lang": {"type": "string", "default": "en"},
                "since": {"type": "integer"}
            },
            "required": ["since"]
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "qty": {"type": "integer", "default": 1}},
                "required": ["name"]
            }
        }
    },
    "required": ["query"]
})");

SchemaValidator searchValidator() {
    auto compiled = SchemaValidator::compile(kSearchSchema);
    REQUIRE(compiled);
    return *compiled;
}

ToolError invalid(const json& args) {
    const auto result = searchValidator().validate(args);
    REQUIRE_FALSE(result);
    REQUIRE(result.error().code == ToolErrc::invalid_arguments);
    return result.error();
}

}  // namespace

TEST_CASE("valid arguments pass with defaults injected", "[tools][schema]") {
    const auto result = searchValidator().validate(json{{"query", "cats"}});
    REQUIRE(result);
    CHECK(*result == json{{"query", "cats"}, {"limit", 10}});
    CHECK(searchValidator().schema() == kSearchSchema);
}

TEST_CASE("a value given by the model is not replaced by the default", "[tools][schema]") {
    const auto result = searchValidator().validate(json{{"query", "cats"}, {"limit", 3}});
    REQUIRE(result);
    CHECK((*result)["limit"] == 3);
}

TEST_CASE("defaults are injected into nested objects and array items", "[tools][schema]") {
    const auto args = json::parse(R"({"query": "q", "filter": {"since": 2020}, "items": [{"name": "a"},
                                      {"name": "b", "qty": 4}]})");
    const auto result = searchValidator().validate(args);
    REQUIRE(result);
    CHECK((*result)["filter"] == json{{"lang", "en"}, {"since", 2020}});
    CHECK((*result)["items"][0] == json{{"name", "a"}, {"qty", 1}});
    CHECK((*result)["items"][1]["qty"] == 4);
    // An absent nested object without a default stays absent.
    CHECK_FALSE(searchValidator().validate(json{{"query", "q"}})->contains("filter"));
}

TEST_CASE("missing required property", "[tools][schema]") {
    const ToolError error = invalid(json::object());
    CHECK(error.message == "invalid arguments: at root: Missing required property 'query'");
    REQUIRE(error.details.size() == 1);
    CHECK(error.details[0]["path"] == "");
    CHECK(error.details[0]["message"] == "Missing required property 'query'");
}

TEST_CASE("each JSON type is enforced", "[tools][schema]") {
    auto check = [](const char* key, json value, const char* expected, const char* got) {
        INFO(key);
        json args{{"query", "q"}};
        args[key] = std::move(value);
        const ToolError error = invalid(args);
        CHECK(error.message == std::string("invalid arguments: at /") + key +
                                   ": Value type not permitted by 'type' constraint (expected " + expected +
                                   ", got " + got + ")");
    };
    check("query", 5, "string", "integer");
    check("limit", "ten", "integer", "string");
    check("limit", 2.5, "integer", "number");
    check("ratio", "0.5", "number", "string");
    check("exact", "yes", "boolean", "string");
    check("tags", "a,b", "array", "string");
    check("filter", json::array(), "object", "array");
    check("cursor", 0, "null", "integer");
    // Numbers of the right kind pass; an integral float counts as an integer.
    const auto ok =
        searchValidator().validate(json{{"query", "q"}, {"ratio", 1}, {"limit", 2.0}, {"cursor", nullptr}});
    REQUIRE(ok);
    CHECK((*ok)["limit"].is_number_integer());
}

TEST_CASE("enum lists the allowed values", "[tools][schema]") {
    const ToolError error = invalid(json{{"query", "q"}, {"mode", "slow"}});
    CHECK(
        error.message ==
        R"(invalid arguments: at /mode: Failed to match against any enum values (allowed: "fast", "deep"))");
}

TEST_CASE("nested failures name the leaf path only", "[tools][schema]") {
    const ToolError error = invalid(
        json::parse(R"({"query": "q", "filter": {"since": "x"}, "items": [{"name": "a"}, {"name": 1}, {}],
                                "tags": ["a", 2]})"));
    CHECK(
        error.message ==
        "invalid arguments: at /filter/since: Value type not permitted by 'type' constraint (expected "
        "integer, "
        "got string); at /items/1/name: Value type not permitted by 'type' constraint (expected string, got "
        "integer); at /items/2: Missing required property 'name'; at /tags/1: Value type not permitted by "
        "'type' constraint (expected string, got integer)");
    REQUIRE(error.details.size() == 4);
    CHECK(error.details[1]["path"] == "/items/1/name");
}

TEST_CASE("several failures are all reported", "[tools][schema]") {
    const ToolError error = invalid(json{{"limit", "x"}});
    CHECK(
        error.message ==
        "invalid arguments: at /limit: Value type not permitted by 'type' constraint (expected integer, got "
        "string); at root: Missing required property 'query'");
}

TEST_CASE("arguments that are not an object are refused", "[tools][schema]") {
    const ToolError error = invalid(json("find cats"));
    CHECK(error.message ==
          "invalid arguments: at root: expected a JSON object of named arguments, got string");
    CHECK_FALSE(searchValidator().validate(json::array()));
    CHECK_FALSE(searchValidator().validate(json(3)));
}

TEST_CASE("null arguments count as an empty object", "[tools][schema]") {
    auto compiled = SchemaValidator::compile(json{{"type", "object"}, {"properties", json::object()}});
    REQUIRE(compiled);
    const auto result = compiled->validate(nullptr);
    REQUIRE(result);
    CHECK(*result == json::object());
    // With a required property the usual error follows.
    CHECK(invalid(nullptr).message == "invalid arguments: at root: Missing required property 'query'");
}

TEST_CASE("rules without a hint keep valijson's wording", "[tools][schema]") {
    auto compiled = SchemaValidator::compile(json::parse(R"({"type": "object", "properties": {
        "code": {"type": "string", "minLength": 3},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}})"));
    REQUIRE(compiled);
    const auto result = compiled->validate(json{{"code", "ab"}, {"either", true}});
    REQUIRE_FALSE(result);
    CHECK_THAT(result.error().message,
               Catch::Contains("at /code: String should be no fewer than 3 characters in length"));
    CHECK_THAT(
        result.error().message,
        Catch::Contains("at /either: Failed to validate against any schemas allowed by anyOf constraint"));
    CHECK_THAT(result.error().message, !Catch::Contains("child schema"));
}

TEST_CASE("a malformed schema is an invalid definition", "[tools][schema]") {
    SECTION("unknown type name") {
        const auto result = SchemaValidator::compile(json::parse(R"({"type": "object",
            "properties": {"a": {"type": "nope"}}})"));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::invalid_definition);
        CHECK(result.error().message == "invalid JSON Schema: Unrecognised JSON type name 'nope'");
    }
    SECTION("required is not an array") {
        const auto result = SchemaValidator::compile(json{{"type", "object"}, {"required", "a"}});
        REQUIRE_FALSE(result);
        CHECK_THAT(result.error().message, Catch::StartsWith("invalid JSON Schema: "));
    }
    SECTION("unresolvable reference") {
        CHECK_FALSE(SchemaValidator::compile(json{{"$ref", "#/definitions/missing"}}));
    }
    SECTION("not an object") {
        const auto result = SchemaValidator::compile(json("object"));
        REQUIRE_FALSE(result);
        CHECK(result.error().message == "invalid JSON Schema: expected an object, got string");
    }
}

TEST_CASE("a compiled validator is shared by its copies", "[tools][schema]") {
    const SchemaValidator first = searchValidator();
    const SchemaValidator copy = first;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(copy.validate(json{{"query", "x"}}));
    CHECK_FALSE(copy.validate(json::object()));
    CHECK(&copy.schema() == &first.schema());
}

TEST_CASE("a $ref cycle that applies a schema to itself is an invalid definition", "[tools][schema][ref]") {
    const char* cycles[] = {
        R"({"$ref": "#"})",
        R"({"allOf": [{"$ref": "#"}]})",
        R"({"not": {"$ref": "#"}})",
        R"({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}})",
        R"({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}})",
    };
    for (const char* text : cycles) {
        INFO(text);
        const auto result = SchemaValidator::compile(json::parse(text));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::invalid_definition);
        CHECK_THAT(result.error().message, Catch::Contains("$ref graph has a cycle"));
    }
    const auto named = SchemaValidator::compile(json::parse(R"({"$ref": "#/$defs/a",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}})"));
    CHECK_THAT(named.error().message, Catch::Contains("#/$defs/a -> #/$defs/b -> #/$defs/a"));
}

TEST_CASE("recursion through a child value is a valid schema", "[tools][schema][ref]") {
    // A tree: each node's children are nodes. Validation ends with the value.
    const auto compiled = SchemaValidator::compile(json::parse(R"({"$ref": "#/$defs/node", "$defs": {"node": {
        "type": "object", "properties": {"name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}})"));
    REQUIRE(compiled);
    CHECK(compiled->validate(json::parse(R"({"name": "a", "children": [{"name": "b", "children": []}]})")));
    CHECK_FALSE(compiled->validate(json::parse(R"({"name": "a", "children": [{"name": 1}]})")));
    CHECK(SchemaValidator::compile(json::parse(R"({"properties": {"a": {"$ref": "#"}}})")));
}

TEST_CASE("pattern and patternProperties match in linear time", "[tools][schema][regex]") {
    const auto compiled = SchemaValidator::compile(json::parse(R"({"type": "object",
        "properties": {"word": {"type": "string", "pattern": "((a*)*)*b"}},
        "patternProperties": {"((x*)*)*y": {"type": "integer"}}, "additionalProperties": false})"));
    REQUIRE(compiled);
    const auto started = std::chrono::steady_clock::now();
    // std::regex backtracks for minutes on these; RE2 answers at once.
    const auto word = compiled->validate(json{{"word", std::string(30, 'a')}});
    const auto key = compiled->validate(json{{std::string(30, 'x'), 1}});
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
    REQUIRE_FALSE(word);
    CHECK_THAT(word.error().message, Catch::Contains("at /word: Failed to match regex"));
    REQUIRE_FALSE(key);
    CHECK_THAT(key.error().message, Catch::Contains("could not be validated"));

    // Ordinary patterns behave as before.
    CHECK(compiled->validate(json{{"word", "aab"}}));
    CHECK(compiled->validate(json{{"xy", 1}}));
    const auto wrongType = compiled->validate(json{{"xxy", "one"}});
    REQUIRE_FALSE(wrongType);
    CHECK_THAT(wrongType.error().message, Catch::Contains("/xxy"));
    const auto names = SchemaValidator::compile(
        json::parse(R"({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}})"));
    REQUIRE(names);
    CHECK(names->validate(json{{"abc", 1}}));
    CHECK_FALSE(names->validate(json{{"ABC", 1}}));
}

TEST_CASE("a pattern outside RE2's syntax is an invalid definition", "[tools][schema][regex]") {
    const auto lookahead = SchemaValidator::compile(
        json::parse(R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "(?=x)x"}}})"));
    REQUIRE_FALSE(lookahead);
    CHECK(lookahead.error().code == ToolErrc::invalid_definition);
    CHECK_THAT(lookahead.error().message, Catch::Contains("'(?=x)x' at #/properties/a"));
    CHECK_THAT(lookahead.error().message, Catch::Contains("RE2 syntax"));
    const auto backreference =
        SchemaValidator::compile(json::parse(R"({"patternProperties": {"(a)\\1": {}}})"));
    REQUIRE_FALSE(backreference);
    CHECK_THAT(backreference.error().message, Catch::Contains("#/patternProperties"));
}

// A flat schema (scalar properties, some required: what ToolBuilder writes) is checked without valijson
// when the arguments pass; any that do not are valijson's to word. Both must agree on every case.
TEST_CASE("a flat schema accepts and refuses exactly what valijson does", "[tools][schema][flat]") {
    const json flat = json::parse(R"({
        "type": "object",
        "description": "a tool's parameters",
        "properties": {
            "text": {"type": "string", "description": "Text"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "loud": {"type": "boolean"}
        },
        "required": ["text"]
    })");
    json closed = flat;
    closed["additionalProperties"] = false;
    json withEnum = flat;  // not flat: valijson decides alone
    withEnum["properties"]["text"]["enum"] = {"a", "b"};
    const auto open = SchemaValidator::compile(flat);
    const auto strict = SchemaValidator::compile(closed);
    const auto enumerated = SchemaValidator::compile(withEnum);
    REQUIRE(open);
    REQUIRE(strict);
    REQUIRE(enumerated);

    struct Case {
        json args;
        bool open;
        bool closed;
    };
    const std::vector<Case> cases = {
        {json{{"text", "hi"}}, true, true},
        {json{{"text", "hi"}, {"count", 3}, {"ratio", 2}, {"loud", true}}, true, true},
        {json{{"text", "hi"}, {"count", 2.0}}, true, true},  // an integer written as 2.0 is an integer
        {json{{"text", "hi"}, {"ratio", 0.5}}, true, true},
        {json{{"text", "hi"}, {"extra", 1}}, true, false},
        {json{{"count", 3}}, false, false},  // required text missing
        {json{{"text", 7}}, false, false},   // wrong type
        {json{{"text", "hi"}, {"count", 2.5}}, false, false},
        {json{{"text", "hi"}, {"count", "3"}}, false, false},
        {json{{"text", "hi"}, {"loud", "yes"}}, false, false},
        {json{{"text", "hi"}, {"ratio", nullptr}}, false, false},
        {json::array(), false, false},
    };
    for (const Case& item : cases) {
        CAPTURE(item.args.dump());
        CHECK(open->validate(item.args).has_value() == item.open);
        CHECK(strict->validate(item.args).has_value() == item.closed);
    }
    // Refusals carry valijson's wording, as before.
    const auto refused = open->validate(json{{"text", 7}});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("/text") != std::string::npos);
    CHECK_FALSE(enumerated->validate(json{{"text", "c"}}));
    CHECK(enumerated->validate(json{{"text", "a"}}));
}
