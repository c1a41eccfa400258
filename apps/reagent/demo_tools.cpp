#include "demo_tools.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>

#include "calculator.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace reagent::cli {

namespace {

using nlohmann::json;
using tools::ToolContext;
using tools::ToolError;
using tools::ToolResult;

// A short single-line preview of a text for progress messages.
std::string excerpt(std::string text) {
    constexpr std::size_t kMax = 40;
    for (char& c : text) {
        c = c == '\n' || c == '\r' || c == '\t' ? ' ' : c;
    }
    if (text.size() <= kMax) {
        return text;
    }
    return std::string(detail::utf8Prefix(text, kMax)) + "...";
}

// Handlers are free coroutines taking copies: nothing in their frames refers to a lambda's captures.
Task<ToolResult> calculate(json args, ToolContext) {
    auto value = evaluateArithmetic(args.value("expression", std::string{}));
    if (!value) {
        co_return fail(ToolError::failure(value.error()));
    }
    co_return formatNumber(*value);
}

// How often word_count reports progress: about ten times over the text, and after its last line.
constexpr std::size_t kProgressReports = 10;

void reportLines(const ToolContext& context, std::size_t done, std::size_t total) {
    context.reportProgress(
        tools::ToolProgress{static_cast<double>(done), static_cast<double>(total), "lines counted"});
}

Task<ToolResult> countWords(json args, ToolContext context) {
    const std::string text = args.value("text", std::string{});
    // The lines are known first, so that each progress report says how far through them the count is.
    // A last line without a trailing newline still counts as a line.
    const auto totalNewlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    const std::size_t lines = totalNewlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
    const std::size_t reportEvery = std::max<std::size_t>(1, lines / kProgressReports);
    std::size_t words = 0;
    std::size_t characters = 0;
    std::size_t newlines = 0;
    bool inWord = false;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        // UTF-8 continuation bytes (10xxxxxx) belong to the character before them.
        if ((byte & 0xC0U) != 0x80U) {
            ++characters;
        }
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
        words += !space && !inWord ? 1 : 0;
        inWord = !space;
        if (c == '\n') {
            ++newlines;
            if (newlines % reportEvery == 0 && newlines < lines) {
                reportLines(context, newlines, lines);
            }
        }
    }
    if (lines > 0) {
        reportLines(context, lines, lines);
    }
    // Ordered, so the output reads in the order of the description.
    co_return nlohmann::ordered_json{{"words", words}, {"characters", characters}, {"lines", lines}}.dump();
}

Task<ToolResult> readClock(json, ToolContext) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    co_return std::string(buffer);
}

}  // namespace

expected<tools::Tool, ToolError> calculatorTool() {
    return tools::ToolBuilder::create("calculator")
        .description(
            "Evaluate an arithmetic expression with + - * / % (remainder), parentheses, unary minus "
            "and decimals, e.g. \"(2 + 3) * 4.5\". Returns the numeric result as text.")
        .param("expression", "string", "The arithmetic expression to evaluate", {.required = true})
        .action([](const json& args) { return "Calculating " + args.value("expression", std::string{}); })
        .category("math")
        .timeout(std::chrono::milliseconds(1'000))
        .handler(calculate)
        .build();
}

expected<tools::Tool, ToolError> wordCountTool() {
    return tools::ToolBuilder::create("word_count")
        .description(
            "Count the words, characters (Unicode code points) and lines of a text. Returns JSON: "
            "{\"words\": n, \"characters\": n, \"lines\": n}.")
        .param("text", "string", "The text to measure", {.required = true})
        .action([](const json& args) {
            return "Counting words in \"" + excerpt(args.value("text", std::string{})) + "\"";
        })
        .category("text")
        .timeout(std::chrono::milliseconds(1'000))
        .handler(countWords)
        .build();
}

expected<tools::Tool, ToolError> currentTimeTool() {
    auto timezone = tools::ParamOptions{};
    timezone.enumValues = {"UTC"};
    timezone.defaultValue = "UTC";
    return tools::ToolBuilder::create("current_time")
        .description("The current date and time in ISO-8601 format, e.g. 2025-01-31T12:00:00Z.")
        .param("timezone", "string", "Time zone of the result; only UTC is supported", std::move(timezone))
        .action("Reading the clock")
        .category("time")
        .timeout(std::chrono::milliseconds(1'000))
        .handler(readClock)
        .build();
}

expected<std::vector<tools::Tool>, ToolError> demoTools() {
    std::vector<tools::Tool> all;
    for (auto make : {calculatorTool, wordCountTool, currentTimeTool}) {
        auto tool = make();
        if (!tool) {
            return fail(std::move(tool.error()));
        }
        all.push_back(std::move(*tool));
    }
    return all;
}

}  // namespace reagent::cli
