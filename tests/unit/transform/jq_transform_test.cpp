// What applyJq computes: results, jq's errors and the limits checked before any process starts.

#include "reagent/transform/jq_transform.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "run_coro.hpp"

using reagent::test::runCoro;
using reagent::transform::applyJq;
using reagent::transform::JqLimits;
using reagent::transform::TransformErrc;
using reagent::transform::TransformError;

namespace {

using Result = reagent::expected<std::string, TransformError>;

Result jq(std::string expression, std::string input, JqLimits limits = {}) {
    return runCoro(applyJq(std::move(expression), std::move(input), limits));
}

// 30 commits shaped like GitHub's list-commits items; sha i is 40 hex digits starting with its index.
std::string commitsJson() {
    std::string json = "[";
    for (int i = 0; i < 30; ++i) {
        char prefix[16];
        std::snprintf(prefix, sizeof prefix, "%02dabcdef", i);
        const std::string sha = std::string(prefix) + std::string(32, static_cast<char>('0' + i % 10));
        json += i == 0 ? "" : ",";
        const std::string author = R"({"name":"Jane Doe","date":"2026-02-27T10:00:00Z"})";
        json += R"({"sha":")" + sha + R"(","commit":{"message":"change )" + std::to_string(i) +
                R"(","author":)" + author + R"(},"url":"https://api.github.com/c/)" + sha +
                R"(","parents":[{"sha":")" + std::string(40, 'c') + R"("}]})";
    }
    return json + "]";
}

}  // namespace

TEST_CASE("applyJq reshapes a list of commits as in the issue's example", "[transform][jq]") {
    const auto result = jq(".[0:5] | map({sha: .sha[0:7]})", commitsJson());
    REQUIRE(result.has_value());
    CHECK(*result == R"([{"sha":"00abcde"},{"sha":"01abcde"},{"sha":"02abcde"},{"sha":"03abcde"},)"
                     R"({"sha":"04abcde"}])");
    CHECK(jq("length", commitsJson()).value() == "30");
    CHECK(jq(".[29].commit.message", commitsJson()).value() == R"("change 29")");
}

TEST_CASE("applyJq returns one value, an array of several outputs, or [] for none", "[transform][jq]") {
    CHECK(jq(".a", R"({"a": {"b": [1, 2]}})").value() == R"({"b":[1,2]})");
    CHECK(jq(".[] | .n", R"([{"n": 1}, {"n": "two"}, {"n": null}])").value() == R"([1,"two",null])");
    CHECK(jq("1, 2", "null").value() == "[1,2]");
    CHECK(jq("empty", "1").value() == "[]");
    CHECK(jq(".[] | select(. > 5)", "[1, 2]").value() == "[]");
    CHECK(jq("[]", "null").value() == "[]");
    // UTF-8 passes through unescaped, in keys and values.
    CHECK(jq("{\"clé\": .}", "\"héllo ✓ 😀\"").value() == "{\"clé\":\"héllo ✓ 😀\"}");
    CHECK(jq(".", "\"\\u00e9\"").value() == "\"é\"");
}

TEST_CASE("applyJq reports a compile error with jq's message", "[transform][jq]") {
    const auto syntax = jq(".[0:5 | map(", "[]");
    REQUIRE_FALSE(syntax.has_value());
    CHECK(syntax.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(syntax.error().message, Catch::Contains("syntax error"));
    CHECK_THAT(syntax.error().describe(), Catch::StartsWith("invalid_expression: "));

    const auto unknown = jq("nosuchfunction(1)", "[]");
    REQUIRE_FALSE(unknown.has_value());
    CHECK(unknown.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(unknown.error().message, Catch::Contains("nosuchfunction/1 is not defined"));
}

TEST_CASE("applyJq bounds the length of jq's diagnostics", "[transform][jq]") {
    // jq echoes the program in a syntax error; the message stays bounded.
    const std::string expression = "[" + std::string(4000, '(') + "é";
    const auto result = jq(expression, "null");
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == TransformErrc::invalid_expression);
    CHECK(result.error().message.size() <= 2048 + 6);
}

TEST_CASE("applyJq cannot read files or the environment", "[transform][jq][security]") {
    const auto import = jq("import \"x\" as x; .", "1");
    REQUIRE_FALSE(import.has_value());
    CHECK(import.error().code == TransformErrc::invalid_expression);

    const auto include = jq("include \"/etc/passwd\"; .", "1");
    REQUIRE_FALSE(include.has_value());
    CHECK(include.error().code == TransformErrc::invalid_expression);

    const auto data = jq("import \"/etc/passwd\" as $p; $p", "1");
    REQUIRE_FALSE(data.has_value());
    CHECK(data.error().code == TransformErrc::invalid_expression);

    // The test process has variables (PATH at least); the helper sees none of them.
    REQUIRE(std::getenv("PATH") != nullptr);
    CHECK(jq("env | length", "null").value() == "0");
    CHECK(jq("$ENV | length", "null").value() == "0");
    CHECK(jq("env.PATH", "null").value() == "null");
    // `input` has nothing more to read.
    const auto input = jq("input", "1");
    REQUIRE_FALSE(input.has_value());
    CHECK(input.error().code == TransformErrc::runtime_error);
}

TEST_CASE("applyJq reports jq runtime errors", "[transform][jq]") {
    const auto index = jq(".a.b", "42");
    REQUIRE_FALSE(index.has_value());
    CHECK(index.error().code == TransformErrc::runtime_error);
    CHECK(index.error().message == "jq error: Cannot index number with string \"a\"");

    const auto custom = jq("error(\"too many items\")", "null");
    REQUIRE_FALSE(custom.has_value());
    CHECK(custom.error().code == TransformErrc::runtime_error);
    CHECK(custom.error().message == "jq error: too many items");

    const auto object = jq("error({why: \"x\"})", "null");
    REQUIRE_FALSE(object.has_value());
    CHECK(object.error().message == R"(jq error: {"why":"x"})");

    // Outputs before the error are not returned: the transform failed.
    const auto late = jq("1, error(\"late\")", "null");
    REQUIRE_FALSE(late.has_value());
    CHECK(late.error().code == TransformErrc::runtime_error);

    // `halt` stops the program: a transform that stops produced no result (not `[]`, not a truncated one).
    for (const char* stop : {"halt", "1, halt, 2", "[.[] | halt]"}) {
        INFO(stop);
        const auto stopped = jq(stop, "[1]");
        REQUIRE_FALSE(stopped.has_value());
        CHECK(stopped.error().code == TransformErrc::runtime_error);
        CHECK_THAT(stopped.error().message, Catch::Contains("halt"));
    }
    const auto halted = jq("\"bye\" | halt_error", "null");
    REQUIRE_FALSE(halted.has_value());
    CHECK(halted.error().code == TransformErrc::runtime_error);
    CHECK(halted.error().message == "jq error: halt_error: bye");
}

TEST_CASE("applyJq refuses output nested deeper than jq can print", "[transform][jq]") {
    // jq's printer would write "<stripped: exceeds max depth>" in place of the deepest levels.
    const auto deep = jq("reduce range(300) as $i (0; [.])", "null");
    REQUIRE_FALSE(deep.has_value());
    CHECK(deep.error().code == TransformErrc::runtime_error);
    CHECK_THAT(deep.error().message, Catch::Contains("deeper than 256 levels"));
    const auto deepObject = jq("reduce range(300) as $i (0; {a: .})", "null");
    REQUIRE_FALSE(deepObject.has_value());
    CHECK(deepObject.error().code == TransformErrc::runtime_error);

    const auto fine = jq("reduce range(200) as $i (0; [.])", "null");
    REQUIRE(fine.has_value());
    CHECK(fine->find("stripped") == std::string::npos);
    CHECK(fine->size() == 200 * 2 + 1);
}

TEST_CASE("applyJq rejects input that is not one JSON value", "[transform][jq]") {
    const auto bad = jq(".", "{not json");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == TransformErrc::invalid_input);
    CHECK_THAT(bad.error().message, Catch::StartsWith("the input is not valid JSON: "));

    const auto two = jq(".", "1 2");
    REQUIRE_FALSE(two.has_value());
    CHECK(two.error().code == TransformErrc::invalid_input);

    const auto none = jq(".", "");
    REQUIRE_FALSE(none.has_value());
    CHECK(none.error().code == TransformErrc::invalid_input);

    const auto truncated = jq(".", R"({"a": [1, 2)");
    REQUIRE_FALSE(truncated.has_value());
    CHECK(truncated.error().code == TransformErrc::invalid_input);
}

TEST_CASE("applyJq checks expression, input and limits before starting a process", "[transform][jq]") {
    const auto empty = jq("", "1");
    REQUIRE_FALSE(empty.has_value());
    CHECK(empty.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(empty.error().message, Catch::Contains("empty"));
    CHECK(jq(" \n\t", "1").error().code == TransformErrc::invalid_expression);

    JqLimits limits;
    limits.maxExpressionBytes = 10;
    const auto longer = jq(".a | .b | .c", "1", limits);
    REQUIRE_FALSE(longer.has_value());
    CHECK(longer.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(longer.error().message, Catch::Contains("12 bytes") && Catch::Contains("10 bytes"));

    const auto nul = jq(std::string(".a\0.b", 5), "1");
    REQUIRE_FALSE(nul.has_value());
    CHECK(nul.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(nul.error().message, Catch::Contains("NUL"));

    limits = {};
    limits.maxInputBytes = 10;
    const auto large = jq(".", "[1,2,3,4,5,6]", limits);
    REQUIRE_FALSE(large.has_value());
    CHECK(large.error().code == TransformErrc::invalid_input);
    CHECK_THAT(large.error().message, Catch::Contains("13 bytes") && Catch::Contains("10 bytes"));
    CHECK(jq(".", "[1,2,3,4]", limits).value() == "[1,2,3,4]");  // 9 bytes: under the limit

    limits = {};
    limits.timeout = std::chrono::milliseconds(0);
    const auto noTime = jq(".", "1", limits);
    REQUIRE_FALSE(noTime.has_value());
    CHECK(noTime.error().code == TransformErrc::internal);
    CHECK_THAT(noTime.error().message, Catch::Contains("timeout must be positive"));
}

TEST_CASE("applyJq enforces the output size limit", "[transform][jq]") {
    JqLimits limits;
    limits.maxOutputBytes = 100;
    const auto many = jq("range(1000)", "null", limits);
    REQUIRE_FALSE(many.has_value());
    CHECK(many.error().code == TransformErrc::output_too_large);
    CHECK_THAT(many.error().message, Catch::Contains("100 bytes"));

    const auto one = jq("[range(1000)]", "null", limits);
    REQUIRE_FALSE(one.has_value());
    CHECK(one.error().code == TransformErrc::output_too_large);

    // Exactly at the limit passes, one byte more does not.
    const std::string hundred = "\"" + std::string(98, 'x') + "\"";
    CHECK(jq(".", hundred, limits).value() == hundred);
    CHECK(jq(". + \"y\"", hundred, limits).error().code == TransformErrc::output_too_large);
    // Several outputs count their brackets and commas: [1,2,...] of 100 bytes exactly.
    CHECK(jq("range(1; 37)", "null", limits).value().size() == 100);
    CHECK(jq("range(1; 38)", "null", limits).error().code == TransformErrc::output_too_large);

    // Endless output is stopped too.
    const auto endless = jq("repeat(.)", "1", limits);
    REQUIRE_FALSE(endless.has_value());
    CHECK(endless.error().code == TransformErrc::output_too_large);
}

TEST_CASE("toString and describe name every code", "[transform][jq]") {
    CHECK(toString(TransformErrc::invalid_expression) == "invalid_expression");
    CHECK(toString(TransformErrc::invalid_input) == "invalid_input");
    CHECK(toString(TransformErrc::runtime_error) == "runtime_error");
    CHECK(toString(TransformErrc::timeout) == "timeout");
    CHECK(toString(TransformErrc::output_too_large) == "output_too_large");
    CHECK(toString(TransformErrc::cancelled) == "cancelled");
    CHECK(toString(TransformErrc::internal) == "internal");
    const TransformError error{TransformErrc::timeout, "too slow"};
    CHECK(error.describe() == "timeout: too slow");
}
