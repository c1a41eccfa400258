#include "reagent/tools/tool_definition.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "reagent/tools/tool_error.hpp"

using namespace reagent::tools;

TEST_CASE("isValidToolName follows ^[a-zA-Z_][a-zA-Z0-9_.:/-]{0,127}$", "[tools][definition]") {
    CHECK(isValidToolName("a"));
    CHECK(isValidToolName("_"));
    CHECK(isValidToolName("get_weather"));
    CHECK(isValidToolName("file-read"));
    CHECK(isValidToolName("Tool_2-x"));
    // MCP-style and namespaced names: providers get them mapped to names they accept.
    CHECK(isValidToolName("filesystem/read_file"));
    CHECK(isValidToolName("github/list_commits"));
    CHECK(isValidToolName("tool.name"));
    CHECK(isValidToolName("ns:tool"));
    CHECK(isValidToolName(std::string(128, 'a')));

    CHECK_FALSE(isValidToolName(""));
    CHECK_FALSE(isValidToolName(std::string(129, 'a')));
    CHECK_FALSE(isValidToolName("1tool"));
    CHECK_FALSE(isValidToolName("-tool"));
    CHECK_FALSE(isValidToolName("/tool"));
    CHECK_FALSE(isValidToolName("get weather"));
    CHECK_FALSE(isValidToolName("caf\xc3\xa9"));
    CHECK_FALSE(isValidToolName(std::string("a\0b", 3)));
}

TEST_CASE("enum names", "[tools][definition]") {
    CHECK(toString(RiskLevel::low) == "low");
    CHECK(toString(RiskLevel::medium) == "medium");
    CHECK(toString(RiskLevel::high) == "high");
    CHECK(toString(ToolMode::feedback) == "feedback");
    CHECK(toString(ToolMode::silent) == "silent");
    CHECK(toString(ToolErrc::invalid_arguments) == "invalid_arguments");
    CHECK(toString(ToolErrc::approval_unavailable) == "approval_unavailable");
    CHECK(toString(ToolErrc::init_failed) == "init_failed");
    CHECK(toString(ToolErrc::not_run) == "not_run");
}

TEST_CASE("ToolError::describe is code: message", "[tools][definition]") {
    CHECK(ToolError::failure("file not found: a.txt").describe() == "failed: file not found: a.txt");
    CHECK(ToolError{ToolErrc::timeout, "tool x timed out after 5 ms"}.describe() ==
          "timeout: tool x timed out after 5 ms");
}

TEST_CASE("validateDefinition", "[tools][definition]") {
    ToolDefinition definition;
    definition.name = "search";
    definition.description = "Search the catalog.";

    SECTION("a complete definition passes") {
        CHECK(validateDefinition(definition));
    }

    SECTION("each problem is named") {
        definition.name = "bad name";
        definition.description = "  ";
        definition.timeout = std::chrono::milliseconds{0};
        definition.inputSchema = nlohmann::json{{"type", "string"}};
        const auto result = validateDefinition(definition);
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::invalid_definition);
        const std::string& message = result.error().message;
        CHECK_THAT(message, Catch::Contains("name 'bad name' must match"));
        CHECK_THAT(message, Catch::Contains("description is required"));
        CHECK_THAT(message, Catch::Contains("timeout must be positive, got 0 ms"));
        CHECK_THAT(message, Catch::Contains("inputSchema must be a JSON Schema of an object"));
        CHECK(result.error().details.size() == 4);
    }

    SECTION("a negative timeout is refused") {
        definition.timeout = std::chrono::milliseconds{-5};
        CHECK_FALSE(validateDefinition(definition));
    }

    SECTION("the schema must say type object") {
        definition.inputSchema = nlohmann::json{{"properties", nlohmann::json::object()}};
        const auto result = validateDefinition(definition);
        REQUIRE_FALSE(result);
        CHECK_THAT(result.error().message, Catch::Contains("inputSchema"));
        definition.inputSchema = nlohmann::json::array();
        CHECK_FALSE(validateDefinition(definition));
    }
}
