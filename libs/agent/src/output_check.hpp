#pragma once
// Private to reagent::agent: reading a final answer against the run's output schema, and what the model
// is told when it does not match.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/schema_validator.hpp"

namespace reagent::agent::detail {

/// The violations reported, at most (the model and the error message need the first few, not hundreds).
inline constexpr std::size_t kMaxOutputProblems = 5;

/// `answer` as the JSON value that validates against `schema` (with its defaults), or why it is not one:
/// one line per violation ("at /city: expected a string, got a number"), the first `kMaxOutputProblems`.
/// The text may be the JSON alone or one fenced code block around it (```json ... ```).
[[nodiscard]] expected<nlohmann::json, std::vector<std::string>> checkOutput(
    const tools::SchemaValidator& schema, std::string_view answer);

/// The user message that asks again: the violations, and what to send.
[[nodiscard]] std::string outputReask(const std::vector<std::string>& problems);

/// The system prompt's paragraph about the answer's form (the schema itself, for providers without a
/// native structured-output mode); `finalAnswerTool`: the answer goes in `final-answer`'s `output`.
[[nodiscard]] std::string outputGuide(const nlohmann::json& schema, bool finalAnswerTool);

}  // namespace reagent::agent::detail
