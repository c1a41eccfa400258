#include "reagent/tools/tool_builder.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "reagent/tools/adapt_function.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::tools;
using namespace std::chrono_literals;
using nlohmann::json;
using reagent::test::runCoro;

namespace builder_test {

struct SearchArgs {
    std::string query;
    int limit = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SearchArgs, query, limit)

enum class Order { newest, oldest };
BOOST_DESCRIBE_ENUM(Order, newest, oldest)

// Described: the schema comes from the struct.
struct FindArgs {
    std::string query;
    std::optional<int> limit;
    Order order = Order::newest;
    static void annotate(Annotations<FindArgs>& a) {
        a.member(&FindArgs::query, "What to look for", {{"minLength", 1}});
    }
};
BOOST_DESCRIBE_STRUCT(FindArgs, (), (query, limit, order))

}  // namespace builder_test

using builder_test::FindArgs;
using builder_test::SearchArgs;

namespace {

Task<ToolResult> search(SearchArgs args, ToolContext context) {
    co_return context.toolName + ": " + args.query + " x" + std::to_string(args.limit);
}

Task<ToolResult> noop() {
    co_return "ok";
}

ToolHandler noopHandler() {
    return [](json, ToolContext) { return noop(); };
}

ToolResult call(const Tool& tool, json args) {
    ToolContext context;
    context.callId = "c1";
    context.toolName = tool.definition.name;
    return runCoro(tool.handler(std::move(args), std::move(context)));
}

}  // namespace

TEST_CASE("the builder assembles a definition and its schema", "[tools][builder]") {
    const auto tool = ToolBuilder::create("file_operation")
                          .description("Perform a file system operation.")
                          .param("path", "string", "File path", {.required = true})
                          .param("operation", "string", "Operation to perform",
                                 {.required = true, .enumValues = {"read", "write", "delete"}})
                          .param("content", "string", "Content for write operations")
                          .param("lines", "array", "Line numbers", {.items = json{{"type", "integer"}}})
                          .param("depth", "integer", "How deep", {.defaultValue = 1})
                          .category("file")
                          .tags({"fs", "local"})
                          .riskLevel(RiskLevel::medium)
                          .requiresApproval()
                          .timeout(10s)
                          .mode(ToolMode::silent)
                          .sideEffect()
                          .action("Working on a file")
                          .handler(noopHandler())
                          .build();
    REQUIRE(tool);
    const ToolDefinition& d = tool->definition;
    CHECK(d.name == "file_operation");
    CHECK(d.description == "Perform a file system operation.");
    CHECK(d.category == "file");
    CHECK(d.tags == std::vector<std::string>{"fs", "local"});
    CHECK(d.riskLevel == RiskLevel::medium);
    CHECK(d.requiresApproval);
    CHECK(d.timeout == 10s);
    CHECK(d.mode == ToolMode::silent);
    CHECK(d.sideEffect);
    CHECK(d.action(json::object()) == "Working on a file");
    CHECK(tool->executable());
    CHECK(d.inputSchema == json::parse(R"({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "operation": {"type": "string", "description": "Operation to perform", "enum": ["read", "write", "delete"]},
            "content": {"type": "string", "description": "Content for write operations"},
            "lines": {"type": "array", "description": "Line numbers", "items": {"type": "integer"}},
            "depth": {"type": "integer", "description": "How deep", "default": 1}
        },
        "required": ["path", "operation"]
    })"));
    CHECK_FALSE(d.inputSchema.contains("additionalProperties"));
}

TEST_CASE("a tool without parameters has an empty object schema", "[tools][builder]") {
    const auto tool = ToolBuilder::create("now").description("The time.").handler(noopHandler()).build();
    REQUIRE(tool);
    CHECK(tool->definition.inputSchema == json{{"type", "object"}, {"properties", json::object()}});
    CHECK(tool->definition.timeout == 30s);
    CHECK(tool->definition.mode == ToolMode::feedback);
    CHECK(tool->definition.riskLevel == RiskLevel::low);
}

TEST_CASE("build lists every problem", "[tools][builder]") {
    const auto tool = ToolBuilder::create("9lives")
                          .param("a", "text", "Unknown type")
                          .param("b", "string", "First")
                          .param("b", "integer", "Second")
                          .param("c", "string", "Not an array", {.items = json{{"type", "string"}}})
                          .timeout(0ms)
                          .build();
    REQUIRE_FALSE(tool);
    CHECK(tool.error().code == ToolErrc::invalid_definition);
    const std::string& message = tool.error().message;
    CHECK_THAT(message, Catch::StartsWith("invalid tool definition '9lives': "));
    CHECK_THAT(message, Catch::Contains("name '9lives' must match"));
    CHECK_THAT(message, Catch::Contains("description is required"));
    CHECK_THAT(message, Catch::Contains("timeout must be positive"));
    CHECK_THAT(message, Catch::Contains("parameter 'a': unknown type 'text'"));
    CHECK_THAT(message, Catch::Contains("parameter 'b': declared twice"));
    CHECK_THAT(message, Catch::Contains("parameter 'c': items is only for array parameters"));
    CHECK_THAT(message, Catch::Contains("handler is missing"));
    CHECK(tool.error().details.size() == 7);
}

TEST_CASE("a custom schema replaces the generated one", "[tools][builder]") {
    const json schema{{"type", "object"}, {"properties", {{"q", {{"type", "string"}}}}}, {"required", {"q"}}};
    const auto tool =
        ToolBuilder::create("raw").description("Raw schema.").schema(schema).handler(noopHandler()).build();
    REQUIRE(tool);
    CHECK(tool->definition.inputSchema == schema);

    const auto mixed = ToolBuilder::create("mixed")
                           .description("Both.")
                           .param("x", "string", "")
                           .schema(schema)
                           .handler(noopHandler())
                           .build();
    REQUIRE_FALSE(mixed);
    CHECK_THAT(mixed.error().message, Catch::Contains("use one or the other"));

    const auto broken = ToolBuilder::create("broken")
                            .description("Malformed.")
                            .schema(json{{"type", "object"}, {"required", "q"}})
                            .handler(noopHandler())
                            .build();
    REQUIRE_FALSE(broken);
    CHECK_THAT(broken.error().message, Catch::Contains("invalid JSON Schema"));

    const auto notObject = ToolBuilder::create("scalar")
                               .description("Not an object.")
                               .schema(json{{"type", "string"}})
                               .handler(noopHandler())
                               .build();
    REQUIRE_FALSE(notObject);
    CHECK_THAT(notObject.error().message, Catch::Contains("inputSchema must be a JSON Schema of an object"));
}

TEST_CASE("declaration-only tools", "[tools][builder]") {
    const auto declared =
        ToolBuilder::create("lookup").description("Remote lookup.").declarationOnly().build();
    REQUIRE(declared);
    CHECK_FALSE(declared->executable());

    const auto both = ToolBuilder::create("lookup")
                          .description("Remote lookup.")
                          .handler(noopHandler())
                          .declarationOnly()
                          .build();
    REQUIRE_FALSE(both);
    CHECK_THAT(both.error().message, Catch::Contains("must not have a handler"));
}

TEST_CASE("a typed handler decodes its arguments", "[tools][builder]") {
    const auto tool = ToolBuilder::create("search")
                          .description("Search.")
                          .param("query", "string", "What", {.required = true})
                          .param("limit", "integer", "How many", {.defaultValue = 5})
                          .typedHandler<SearchArgs>(search)
                          .build();
    REQUIRE(tool);

    SECTION("through the executor, with the default injected") {
        ToolRegistry registry;
        REQUIRE(registry.add(*tool));
        ToolExecutor executor(registry);
        const auto record =
            runCoro(executor.executeOne(ToolCallRequest{"c1", "search", json{{"query", "cats"}}}, 0));
        REQUIRE(record.succeeded());
        CHECK(*record.outcome == "search: cats x5");
    }
    SECTION("a decoding failure is invalid_arguments") {
        const ToolResult result = call(*tool, json{{"query", 42}, {"limit", 1}});
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ToolErrc::invalid_arguments);
        CHECK_THAT(result.error().message, Catch::StartsWith("arguments do not match the tool's types: "));
        CHECK_THAT(result.error().message, Catch::Contains("type must be string"));
    }
}

namespace {

Task<ToolResult> find(FindArgs args, ToolContext) {
    co_return args.query + " x" + std::to_string(args.limit.value_or(10)) +
        (args.order == builder_test::Order::oldest ? " oldest" : " newest");
}

}  // namespace

TEST_CASE("a typed handler of a described struct takes its schema from the struct", "[tools][builder]") {
    const auto tool = ToolBuilder::create("find").description("Find.").typedHandler<FindArgs>(find).build();
    REQUIRE(tool);
    CHECK(tool->definition.inputSchema == *schemaOf<FindArgs>());
    CHECK(tool->definition.inputSchema["properties"]["query"]["description"] == "What to look for");
    CHECK(tool->definition.inputSchema["required"] == json{"query", "order"});

    ToolRegistry registry;
    REQUIRE(registry.add(*tool));
    ToolExecutor executor(registry);
    const auto ok = runCoro(
        executor.executeOne(ToolCallRequest{"c1", "find", json{{"query", "cats"}, {"order", "oldest"}}}, 0));
    REQUIRE(ok.succeeded());
    CHECK(*ok.outcome == "cats x10 oldest");
    // The schema, checked first, refuses what the struct cannot hold.
    const auto refused =
        runCoro(executor.executeOne(ToolCallRequest{"c2", "find", json{{"query", ""}, {"order", "up"}}}, 0));
    REQUIRE_FALSE(refused.succeeded());
    CHECK(refused.outcome.error().code == ToolErrc::invalid_arguments);

    // Called directly (no validation first), the decoder names where the arguments go wrong.
    const ToolResult direct = call(*tool, json{{"query", "cats"}, {"limit", "ten"}, {"order", "newest"}});
    REQUIRE_FALSE(direct);
    CHECK(direct.error().code == ToolErrc::invalid_arguments);
    CHECK(direct.error().message ==
          "arguments do not match the tool's types: at /limit: expected an integer, got a string (\"ten\")");
    CHECK(direct.error().details.at(0).at("path") == "/limit");

    const auto twice = ToolBuilder::create("find")
                           .description("Find.")
                           .param("query", "string", "What", {.required = true})
                           .typedHandler<FindArgs>(find)
                           .build();
    REQUIRE_FALSE(twice);
    CHECK_THAT(twice.error().message, Catch::Contains("would write it twice"));
}

TEST_CASE("adaptFunction wraps plain functions", "[tools][adapt]") {
    const FunctionSpec calc{"calculate",
                            "Perform arithmetic.",
                            {{.name = "a", .type = "number", .description = "First operand"},
                             {.name = "b", .type = "number", .description = "Second operand"},
                             {.name = "op", .type = "string", .enumValues = {"add", "div"}}}};

    SECTION("returning a number (serialised as JSON)") {
        const auto tool = adaptFunction(calc, [](const json& args) {
            const double a = args.at("a");
            const double b = args.at("b");
            return args.at("op") == "add" ? a + b : a / b;
        });
        REQUIRE(tool);
        CHECK(tool->definition.inputSchema.at("required") == json{"a", "b", "op"});
        CHECK(tool->definition.inputSchema.at("properties").at("op").at("enum") == json{"add", "div"});
        CHECK(*call(*tool, json{{"a", 2}, {"b", 3}, {"op", "add"}}) == "5.0");
    }
    SECTION("returning a string") {
        const auto tool = adaptFunction(
            FunctionSpec{"greet", "Greets.", {{.name = "name", .type = "string", .description = "Who"}}},
            [](const json& args) { return "hello " + args.at("name").get<std::string>(); });
        REQUIRE(tool);
        CHECK(*call(*tool, json{{"name", "Ada"}}) == "hello Ada");
    }
    SECTION("returning JSON") {
        const auto tool = adaptFunction(FunctionSpec{"info", "Info.", {}}, [](const json&) {
            return json{{"ok", true}, {"n", 2}};
        });
        REQUIRE(tool);
        CHECK(json::parse(*call(*tool, json::object())) == json{{"ok", true}, {"n", 2}});
        const auto text =
            adaptFunction(FunctionSpec{"text", "Text.", {}}, [](const json&) { return json("plain"); });
        REQUIRE(text);
        CHECK(*call(*text, json::object()) == "plain");
    }
    SECTION("returning an expected") {
        const auto tool = adaptFunction(calc, [](const json& args) -> expected<double, ToolError> {
            if (args.at("b") == 0) {
                return tl::make_unexpected(ToolError::failure("division by zero"));
            }
            return args.at("a").get<double>() / args.at("b").get<double>();
        });
        REQUIRE(tool);
        CHECK(*call(*tool, json{{"a", 1}, {"b", 4}, {"op", "div"}}) == "0.25");
        const ToolResult failed = call(*tool, json{{"a", 1}, {"b", 0}, {"op", "div"}});
        REQUIRE_FALSE(failed);
        CHECK(failed.error().code == ToolErrc::failed);
        CHECK(failed.error().message == "division by zero");
    }
    SECTION("returning expected<void>") {
        const auto tool = adaptFunction(FunctionSpec{"ping", "Pings.", {}},
                                        [](const json&) { return expected<void, ToolError>{}; });
        REQUIRE(tool);
        CHECK(*call(*tool, json::object()) == "ok");
    }
    SECTION("optional parameters and defaults") {
        FunctionSpec spec{"page", "Pages.", {{"n", "integer", "Page", false, {}, json(1)}}};
        const auto tool = adaptFunction(spec, [](const json& args) { return args.at("n").get<int>(); });
        REQUIRE(tool);
        CHECK_FALSE(tool->definition.inputSchema.contains("required"));
        CHECK(tool->definition.inputSchema.at("properties").at("n").at("default") == 1);
    }
    SECTION("definition problems are reported") {
        const auto tool = adaptFunction(
            FunctionSpec{"bad name", "x", {{.name = "a", .type = "float"}, {.name = "a", .type = "string"}}},
            [](const json&) { return 1; });
        REQUIRE_FALSE(tool);
        CHECK(tool.error().code == ToolErrc::invalid_definition);
        CHECK_THAT(tool.error().message, Catch::Contains("name 'bad name' must match"));
        CHECK_THAT(tool.error().message, Catch::Contains("parameter 'a': unknown type 'float'"));
    }
}
