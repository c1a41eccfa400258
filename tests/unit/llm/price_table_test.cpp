// The price table: its JSON form and every way it can be wrong, finding a model by id or dated snapshot,
// and what a usage costs (cache reads and writes at their own prices, reasoning as output).

#include "reagent/llm/price_table.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

using nlohmann::json;
using reagent::llm::ModelPrice;
using reagent::llm::PriceErrc;
using reagent::llm::PriceTable;
using reagent::llm::Usage;

namespace {

json example() {
    return json::parse(R"({"date": "2026-11-01", "currency": "USD", "models": {
        "claude-sonnet-4-5": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        "gpt-4.1": {"input": 2, "output": 8, "cacheRead": 0.5},
        "gemini-2.5-flash": {"input": 0.3, "output": 2.5}}})");
}

}  // namespace

TEST_CASE("a price table prices usage, cache and reasoning included", "[llm][prices]") {
    const auto table = PriceTable::fromJson(example());
    REQUIRE(table);
    CHECK(table->size() == 3);
    CHECK(table->currency() == "USD");
    CHECK(table->date() == "2026-11-01");

    // 1M uncached input at 3, 1M cache reads at 0.3, 1M cache writes at 3.75, 1M output at 15.
    const Usage usage{3'000'000, 1'000'000, 1'000'000, 1'000'000, 400'000};
    CHECK(table->cost("claude-sonnet-4-5", usage).value() == Approx(3 + 0.3 + 3.75 + 15));
    // Missing cache prices are the input price.
    const ModelPrice* flash = table->find("gemini-2.5-flash");
    REQUIRE(flash);
    CHECK(flash->cacheRead == 0.3);
    CHECK(flash->cacheWrite == 0.3);
    CHECK(table->cost("gpt-4.1", Usage{1000, 500, 0, 0, 0}).value() == Approx((1000 * 2 + 500 * 8) / 1e6));
}

TEST_CASE("a model is found by its id, a dated snapshot of it, or a models/ name, and nothing else",
          "[llm][prices]") {
    const auto table = PriceTable::fromJson(example()).value();
    CHECK(table.find("claude-sonnet-4-5-20250929") == table.find("claude-sonnet-4-5"));
    CHECK(table.find("gpt-4.1-2025-04-14") == table.find("gpt-4.1"));
    CHECK(table.find("models/gemini-2.5-flash") == table.find("gemini-2.5-flash"));
    CHECK(table.find("claude-sonnet-4-5") != nullptr);
    for (const char* other : {"gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", "gpt-4", "claude-sonnet-4-5-latest",
                              "gpt-4.1-20250414x", "", "gpt-4.1-2025-4-14"}) {
        CAPTURE(other);
        CHECK(table.find(other) == nullptr);
        CHECK_FALSE(table.cost(other, Usage{1, 1, 0, 0, 0}));
    }
}

TEST_CASE("a price table that is wrong is refused, naming what is wrong", "[llm][prices]") {
    struct Case {
        const char* document;
        const char* names;
    };
    const auto testCase =
        GENERATE(Case{R"([])", "JSON object"}, Case{R"({})", "models must be an object"},
                 Case{R"({"models": []})", "models must be an object"},
                 Case{R"({"models": {"m": 3}})", "models.m must be an object"},
                 Case{R"({"models": {"m": {"output": 1}}})", "models.m.input is missing"},
                 Case{R"({"models": {"m": {"input": 1}}})", "models.m.output is missing"},
                 Case{R"({"models": {"m": {"input": -1, "output": 1}}})", "models.m.input must be"},
                 Case{R"({"models": {"m": {"input": "3", "output": 1}}})", "models.m.input must be"},
                 Case{R"({"models": {"m": {"input": 1, "output": 1, "cacheRead": null}}})",
                      "models.m.cacheRead must be"},
                 Case{R"({"currency": "", "models": {}})", "currency"},
                 Case{R"({"date": 2026, "models": {}})", "date"});
    CAPTURE(testCase.document);
    const auto table = PriceTable::fromJson(json::parse(testCase.document));
    REQUIRE_FALSE(table);
    CHECK(table.error().code == PriceErrc::invalid);
    CHECK_THAT(table.error().message, Catch::Contains(testCase.names));
}

TEST_CASE("a price table file: read, or its path and problem named", "[llm][prices]") {
    const auto dir = std::filesystem::temp_directory_path() / "reagent-price-table-test";
    std::filesystem::create_directories(dir);
    const auto good = dir / "prices.json";
    std::ofstream(good) << example().dump();
    REQUIRE(PriceTable::fromFile(good));
    const auto broken = dir / "broken.json";
    std::ofstream(broken) << "{\"models\": ";
    const auto notJson = PriceTable::fromFile(broken);
    REQUIRE_FALSE(notJson);
    CHECK_THAT(notJson.error().message, Catch::Contains(broken.string()) && Catch::Contains("not JSON"));
    const auto invalid = dir / "invalid.json";
    std::ofstream(invalid) << R"({"models": {"m": {"input": 1}}})";
    const auto wrong = PriceTable::fromFile(invalid);
    REQUIRE_FALSE(wrong);
    CHECK_THAT(wrong.error().message,
               Catch::Contains(invalid.string()) && Catch::Contains("models.m.output"));
    const auto missing = PriceTable::fromFile(dir / "missing.json");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == PriceErrc::unreadable);
    std::filesystem::remove_all(dir);
}
