// x-mcp-header annotations (2026-07-28, SEP-2243): which arguments a tool mirrors in Mcp-Param-*
// headers, and the annotations that make a tool invalid.

#include "param_headers.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using reagent::mcp::detail::paramHeadersOf;

namespace {

json schemaWith(json properties) {
    return json{{"type", "object"}, {"properties", std::move(properties)}};
}

json marked(const char* type, const char* header) {
    return json{{"type", type}, {"x-mcp-header", header}};
}

}  // namespace

TEST_CASE("x-mcp-header: annotated string, integer and boolean arguments, nested through properties",
          "[mcp][param-headers]") {
    const json schema =
        schemaWith({{"region", marked("string", "Region")},
                    {"priority", marked("integer", "Priority")},
                    {"verbose", marked("boolean", "Verbose")},
                    {"query", {{"type", "string"}}},
                    {"target", {{"type", "object"}, {"properties", {{"zone", marked("string", "Zone")}}}}}});
    const auto found = paramHeadersOf(schema);
    REQUIRE(found);
    REQUIRE(found->size() == 4);
    std::vector<std::string> names;
    for (const auto& header : *found) {
        names.push_back(header.name);
        if (header.name == "Zone") {
            CHECK(header.path == std::vector<std::string>{"target", "zone"});
        }
    }
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"Priority", "Region", "Verbose", "Zone"});
    CHECK(paramHeadersOf(schemaWith(json::object()))->empty());
}

TEST_CASE("x-mcp-header: every broken rule makes the tool invalid, saying which", "[mcp][param-headers]") {
    struct Case {
        const char* name;
        json schema;
        const char* says;
    };
    const std::vector<Case> cases = {
        {"empty name", schemaWith({{"a", marked("string", "")}}), "not a header name"},
        {"space", schemaWith({{"a", marked("string", "My Header")}}), "not a header name"},
        {"colon", schemaWith({{"a", marked("string", "A:B")}}), "not a header name"},
        {"non-ASCII", schemaWith({{"a", marked("string", "R\xC3\xA9gion")}}), "not a header name"},
        {"tab", schemaWith({{"a", marked("string", "A\tB")}}), "not a header name"},
        {"not a string", schemaWith({{"a", {{"type", "string"}, {"x-mcp-header", 7}}}}), "not a header name"},
        {"number", schemaWith({{"a", marked("number", "A")}}), "of type number"},
        {"object", schemaWith({{"a", marked("object", "A")}}), "of type object"},
        {"array", schemaWith({{"a", marked("array", "A")}}), "of type array"},
        {"null", schemaWith({{"a", marked("null", "A")}}), "of type null"},
        {"no type", schemaWith({{"a", {{"x-mcp-header", "A"}}}}), "of type (none)"},
        {"same name", schemaWith({{"a", marked("string", "A")}, {"b", marked("string", "A")}}), "used twice"},
        {"same name, other case",
         schemaWith({{"a", marked("string", "Region")}, {"b", marked("string", "REGION")}}), "used twice"},
        {"under items", schemaWith({{"list", {{"type", "array"}, {"items", marked("string", "Item")}}}}),
         "not on a property reached through properties"},
        {"under $defs", json{{"type", "object"}, {"$defs", {{"x", marked("string", "X")}}}},
         "not on a property reached through properties"},
        {"on the root", json{{"type", "object"}, {"x-mcp-header", "Root"}}, "not on a property"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto found = paramHeadersOf(c.schema);
        REQUIRE_FALSE(found);
        CHECK(found.error().find(c.says) != std::string::npos);
    }
}
