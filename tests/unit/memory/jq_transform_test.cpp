#include "reagent/memory/jq_transform.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "commit_fixture.hpp"

using reagent::memory::applyJq;
using reagent::memory::TransformErrc;
using reagent::memory::TransformLimits;

TEST_CASE("applyJq reshapes a commits array", "[memory][jq]") {
    const auto result = applyJq(".[0:5] | map({sha: .sha[0:7]})", reagent::test::commitsJson(30), {});
    REQUIRE(result.has_value());
    CHECK(*result == R"([{"sha":"e255a5d"},{"sha":"59bae87"},{"sha":"efc816e"},{"sha":"0c0ffee"},)"
                     R"({"sha":"0c0ffee"}])");
}

TEST_CASE("applyJq returns one value, an array of several outputs, or [] for none", "[memory][jq]") {
    CHECK(applyJq(".a", R"({"a": {"b": [1, 2]}})").value() == R"({"b":[1,2]})");
    CHECK(applyJq(".[] | .n", R"([{"n": 1}, {"n": "two"}, {"n": null}])").value() == R"([1,"two",null])");
    CHECK(applyJq("empty", "1").value() == "[]");
    CHECK(applyJq("\"héllo\" | ascii_downcase", "null").value() == "\"héllo\"");
}

TEST_CASE("applyJq reports a compile error with jq's message", "[memory][jq]") {
    const auto result = applyJq(".[0:5 | map(", "[]");
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(result.error().message, Catch::Contains("syntax error"));
    CHECK_THAT(result.error().describe(), Catch::StartsWith("invalid_expression: "));

    const auto unknown = applyJq("nosuchfunction(1)", "[]");
    REQUIRE_FALSE(unknown.has_value());
    CHECK(unknown.error().code == TransformErrc::invalid_expression);
    CHECK_THAT(unknown.error().message, Catch::Contains("nosuchfunction/1 is not defined"));
}

TEST_CASE("applyJq cannot read files or the environment", "[memory][jq]") {
    const auto include = applyJq("include \"/etc/passwd\"; .", "1");
    REQUIRE_FALSE(include.has_value());
    CHECK(include.error().code == TransformErrc::invalid_expression);
    CHECK(applyJq("env | length", "null").value() == "0");
    CHECK(applyJq("$ENV | length", "null").value() == "0");
}

TEST_CASE("applyJq rejects input that is not JSON or too large", "[memory][jq]") {
    const auto bad = applyJq(".", "{not json");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == TransformErrc::invalid_input);
    CHECK_THAT(bad.error().message, Catch::StartsWith("the input is not valid JSON"));

    const auto two = applyJq(".", "1 2");
    REQUIRE_FALSE(two.has_value());
    CHECK(two.error().code == TransformErrc::invalid_input);

    TransformLimits limits;
    limits.maxInputBytes = 10;
    const auto large = applyJq(".", "[1,2,3,4,5,6]", limits);
    REQUIRE_FALSE(large.has_value());
    CHECK(large.error().code == TransformErrc::invalid_input);
    CHECK_THAT(large.error().message, Catch::Contains("13 bytes") && Catch::Contains("10 bytes"));
}

TEST_CASE("applyJq reports jq runtime errors", "[memory][jq]") {
    const auto result = applyJq(".a.b", "42");
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == TransformErrc::runtime_error);
    CHECK(result.error().message == "jq error: Cannot index number with string \"a\"");

    const auto custom = applyJq("error({why: \"x\"})", "null");
    REQUIRE_FALSE(custom.has_value());
    CHECK(custom.error().code == TransformErrc::runtime_error);
    CHECK(custom.error().message == R"(jq error: {"why":"x"})");

    CHECK(applyJq("1, halt, 2", "null").value() == "1");
    const auto halted = applyJq("\"bye\" | halt_error", "null");
    REQUIRE_FALSE(halted.has_value());
    CHECK(halted.error().code == TransformErrc::runtime_error);
    CHECK_THAT(halted.error().message, Catch::Contains("bye"));
}

TEST_CASE("applyJq stops a non-terminating expression at the deadline", "[memory][jq][timeout]") {
    for (const char* expression : {"def f: f; f", "[range(1e12)]", "last(range(1e12))"}) {
        INFO(expression);
        const auto start = std::chrono::steady_clock::now();
        const auto result = applyJq(expression, "null");
        const auto elapsed = std::chrono::steady_clock::now() - start;
        REQUIRE_FALSE(result.has_value());
        CHECK(result.error().code == TransformErrc::timeout);
        CHECK_THAT(result.error().message, Catch::Contains("1000 ms"));
        CHECK(elapsed >= std::chrono::milliseconds(950));
        CHECK(elapsed < std::chrono::milliseconds(1600));
    }
}

TEST_CASE("applyJq enforces the output size limit", "[memory][jq]") {
    TransformLimits limits;
    limits.maxOutputBytes = 100;
    const auto many = applyJq("range(1000)", "null", limits);
    REQUIRE_FALSE(many.has_value());
    CHECK(many.error().code == TransformErrc::output_too_large);
    CHECK_THAT(many.error().message, Catch::Contains("100 bytes"));

    const auto one = applyJq("[range(1000)]", "null", limits);
    REQUIRE_FALSE(one.has_value());
    CHECK(one.error().code == TransformErrc::output_too_large);

    // Exactly at the limit passes.
    const std::string hundred = "\"" + std::string(98, 'x') + "\"";
    CHECK(applyJq(".", hundred, limits).value() == hundred);
}

TEST_CASE("applyJq runs concurrently from several threads", "[memory][jq]") {
    std::vector<std::string> results(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < results.size(); ++i) {
        threads.emplace_back([&results, i] {
            const auto result = applyJq(".[" + std::to_string(i) + "] * 10", "[1,2,3,4]");
            results[i] = result ? *result : result.error().describe();
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(results == std::vector<std::string>{"10", "20", "30", "40"});
}
