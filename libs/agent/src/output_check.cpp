// Final answers against the output schema (sans-io).

#include "output_check.hpp"

#include "reagent/core/untrusted_json.hpp"

namespace reagent::agent::detail {

namespace {

// The JSON inside one fenced code block that is the whole answer, or the answer trimmed.
std::string_view unfenced(std::string_view text) {
    const auto space = " \t\r\n";
    const auto first = text.find_first_not_of(space);
    if (first == std::string_view::npos) {
        return {};
    }
    text = text.substr(first, text.find_last_not_of(space) - first + 1);
    if (!text.starts_with("```") || text.size() < 6 || !text.ends_with("```")) {
        return text;
    }
    const auto lineEnd = text.find('\n');  // past the info string ("json")
    if (lineEnd == std::string_view::npos || lineEnd + 3 > text.size() - 3) {
        return text;
    }
    return text.substr(lineEnd + 1, text.size() - 3 - (lineEnd + 1));
}

}  // namespace

expected<nlohmann::json, std::vector<std::string>> checkOutput(const tools::SchemaValidator& schema,
                                                               std::string_view answer) {
    const std::string_view text = unfenced(answer);
    if (text.empty()) {
        return tl::make_unexpected(std::vector<std::string>{"the answer is empty; it must be a JSON value"});
    }
    auto parsed = parseUntrustedJson(text);
    if (!parsed) {
        return tl::make_unexpected(
            std::vector<std::string>{"the answer is not JSON (" + parsed.error().message + ")"});
    }
    // The validator's own words for this case speak of a tool's arguments.
    const nlohmann::json& wanted = schema.schema();
    if (wanted.value("type", nlohmann::json()) == "object" && !parsed->is_object()) {
        return tl::make_unexpected(std::vector<std::string>{
            std::string("at the top: expected a JSON object, got ") + parsed->type_name()});
    }
    auto valid = schema.validate(std::move(*parsed));
    if (valid) {
        return std::move(*valid);
    }
    std::vector<std::string> problems;
    const nlohmann::json& details = valid.error().details;
    if (details.is_array()) {
        for (const auto& detail : details) {
            if (problems.size() == kMaxOutputProblems) {
                break;
            }
            const std::string path = detail.value("path", std::string());
            problems.push_back("at " + (path.empty() ? std::string("the top") : path) + ": " +
                               detail.value("message", std::string("does not match")));
        }
    }
    if (problems.empty()) {
        problems.push_back(valid.error().message);
    }
    return tl::make_unexpected(std::move(problems));
}

std::string outputReask(const std::vector<std::string>& problems) {
    std::string text = "Your answer does not match the required JSON Schema:\n";
    for (const auto& problem : problems) {
        text += "- " + problem + "\n";
    }
    text += "Answer again with only the corrected JSON value.";
    return text;
}

std::string outputGuide(const nlohmann::json& schema, bool finalAnswerTool) {
    return std::string(finalAnswerTool ? "The `output` of your final answer must be"
                                       : "Your final answer must be") +
           " a single JSON value, with no other text, that matches this JSON Schema:\n" +
           schema.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace reagent::agent::detail
