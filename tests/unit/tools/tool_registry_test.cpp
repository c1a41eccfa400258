#include "reagent/tools/tool_registry.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "reagent/tools/tool_builder.hpp"

using namespace reagent;
using namespace reagent::tools;
using nlohmann::json;

namespace {

Task<ToolResult> ok() {
    co_return "ok";
}

Tool makeTool(std::string name, std::string category = {}) {
    Tool tool;
    tool.definition.name = std::move(name);
    tool.definition.description = "A test tool.";
    tool.definition.category = std::move(category);
    tool.handler = [](json, ToolContext) { return ok(); };
    return tool;
}

std::vector<std::string> namesOf(const std::vector<std::shared_ptr<const RegisteredTool>>& tools) {
    std::vector<std::string> names;
    for (const auto& tool : tools) {
        names.push_back(tool->tool.definition.name);
    }
    return names;
}

}  // namespace

TEST_CASE("tools are kept in registration order", "[tools][registry]") {
    ToolRegistry registry;
    REQUIRE(registry.add(makeTool("zeta", "file")));
    REQUIRE(registry.add(makeTool("alpha", "http")));
    REQUIRE(registry.add(makeTool("mid", "file")));
    CHECK(registry.size() == 3);
    CHECK(namesOf(registry.all()) == std::vector<std::string>{"zeta", "alpha", "mid"});
    CHECK(namesOf(registry.byCategory("file")) == std::vector<std::string>{"zeta", "mid"});
    CHECK(registry.byCategory("none").empty());
    REQUIRE(registry.find("alpha"));
    CHECK(registry.find("alpha")->tool.definition.category == "http");
    CHECK(registry.find("missing") == nullptr);
}

TEST_CASE("the registry compiles the schema once", "[tools][registry]") {
    ToolRegistry registry;
    Tool tool = makeTool("search");
    tool.definition.inputSchema =
        json{{"type", "object"}, {"properties", {{"q", {{"type", "string"}}}}}, {"required", {"q"}}};
    REQUIRE(registry.add(std::move(tool)));
    const auto registered = registry.find("search");
    CHECK(registered->validator.validate(json{{"q", "x"}}));
    CHECK_FALSE(registered->validator.validate(json::object()));
}

TEST_CASE("add refuses bad tools and leaves the registry unchanged", "[tools][registry]") {
    ToolRegistry registry;
    REQUIRE(registry.add(makeTool("search")));

    SECTION("duplicate name") {
        const auto result = registry.add(makeTool("search"));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::duplicate_name);
        CHECK(result.error().message == "a tool named 'search' is already registered");
    }
    SECTION("invalid name") {
        const auto result = registry.add(makeTool("filesystem read"));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::invalid_definition);
        CHECK_THAT(result.error().message, Catch::Contains("filesystem read"));
    }
    SECTION("missing description") {
        Tool tool = makeTool("quiet");
        tool.definition.description.clear();
        CHECK(registry.add(std::move(tool)).error().code == ToolErrc::invalid_definition);
    }
    SECTION("malformed schema") {
        Tool tool = makeTool("broken");
        tool.definition.inputSchema = json{{"type", "object"}, {"properties", {{"a", {{"type", "nope"}}}}}};
        const auto result = registry.add(std::move(tool));
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::invalid_definition);
        CHECK(result.error().message ==
              "tool 'broken': invalid JSON Schema: Unrecognised JSON type name 'nope'");
    }
    CHECK(registry.size() == 1);
    CHECK(namesOf(registry.all()) == std::vector<std::string>{"search"});
}

TEST_CASE("declaration-only tools can be registered", "[tools][registry]") {
    ToolRegistry registry;
    Tool tool = makeTool("remote");
    tool.handler = nullptr;
    REQUIRE(registry.add(std::move(tool)));
    CHECK_FALSE(registry.find("remote")->tool.executable());
}

TEST_CASE("remove and clear", "[tools][registry]") {
    ToolRegistry registry;
    REQUIRE(registry.add(makeTool("a")));
    REQUIRE(registry.add(makeTool("b")));
    const auto held = registry.find("a");

    CHECK(registry.remove("a"));
    CHECK_FALSE(registry.remove("a"));
    CHECK(registry.find("a") == nullptr);
    CHECK(namesOf(registry.all()) == std::vector<std::string>{"b"});
    // A call in flight keeps its tool alive.
    CHECK(held->tool.definition.name == "a");
    // The name is free again.
    CHECK(registry.add(makeTool("a")));

    registry.clear();
    CHECK(registry.size() == 0);
    CHECK(registry.all().empty());
}
