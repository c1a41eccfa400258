// The demo tools through the real executor: schemas, defaults, outputs and errors.

#include "demo_tools.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <regex>

#include "demo_provider.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"
#include "run_coro.hpp"

using nlohmann::json;
using reagent::test::runCoro;
using namespace reagent::tools;

namespace {

struct DemoTools {
    ToolRegistry registry;
    DemoTools() {
        auto tools = reagent::cli::demoTools();
        REQUIRE(tools.has_value());
        for (auto& tool : *tools) {
            REQUIRE(registry.add(std::move(tool)).has_value());
        }
    }
    ToolCallRecord call(std::string name, json arguments) {
        ToolExecutor executor(registry);
        return runCoro(executor.executeOne(ToolCallRequest{"id", std::move(name), std::move(arguments)}, 0));
    }
};

}  // namespace

TEST_CASE("calculator evaluates and reports its errors as failures", "[cli][tools]") {
    DemoTools demo;
    const auto ok = demo.call("calculator", json{{"expression", "(1 + 2) * -3.5"}});
    REQUIRE(ok.succeeded());
    CHECK(*ok.outcome == "-10.5");

    const auto divided = demo.call("calculator", json{{"expression", "4 / (2 - 2)"}});
    REQUIRE_FALSE(divided.succeeded());
    CHECK(divided.outcome.error().code == ToolErrc::failed);
    CHECK(divided.outcome.error().message == "division by zero at position 3");

    const auto missing = demo.call("calculator", json::object());
    REQUIRE_FALSE(missing.succeeded());
    CHECK(missing.outcome.error().code == ToolErrc::invalid_arguments);
}

TEST_CASE("word_count counts words, code points and lines", "[cli][tools]") {
    DemoTools demo;
    const auto count = [&](std::string text) {
        const auto record = demo.call("word_count", json{{"text", std::move(text)}});
        REQUIRE(record.succeeded());
        return json::parse(*record.outcome);
    };
    CHECK(count("What is 6*7?") == json{{"words", 3}, {"characters", 12}, {"lines", 1}});
    CHECK(count("h\u00e9llo w\u00f6rld\nsecond  line") ==
          json{{"words", 4}, {"characters", 24}, {"lines", 2}});
    CHECK(count("one\n") == json{{"words", 1}, {"characters", 4}, {"lines", 1}});
    CHECK(count("") == json{{"words", 0}, {"characters", 0}, {"lines", 0}});
    CHECK(count(" \t\n ") == json{{"words", 0}, {"characters", 4}, {"lines", 2}});
}

TEST_CASE("current_time returns ISO-8601 UTC and accepts only UTC", "[cli][tools]") {
    DemoTools demo;
    const auto record = demo.call("current_time", json::object());
    REQUIRE(record.succeeded());
    CHECK(record.input == json{{"timezone", "UTC"}});
    const std::string text = *record.outcome;
    REQUIRE(std::regex_match(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
    std::tm parsed{};
    REQUIRE(strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parsed) != nullptr);
    const auto shown = std::chrono::system_clock::from_time_t(timegm(&parsed));
    CHECK(std::chrono::abs(std::chrono::system_clock::now() - shown) < std::chrono::seconds(5));

    const auto refused = demo.call("current_time", json{{"timezone", "PST"}});
    REQUIRE_FALSE(refused.succeeded());
    CHECK(refused.outcome.error().code == ToolErrc::invalid_arguments);
}

TEST_CASE("the demo expression falls back to 6*7", "[cli][tools]") {
    CHECK(reagent::cli::demoExpression("What is 12 / 4?") == "12 / 4");
    CHECK(reagent::cli::demoExpression("Tell me a story") == "6*7");
}
