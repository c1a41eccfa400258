#pragma once
/// \file
/// \brief The tools of the offline demo: `calculator`, `word_count` and `current_time`.

#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::cli {

/// \brief `calculator`: evaluates an arithmetic expression (+ - * / %, parentheses, unary minus).
///
/// Syntax errors and division by zero come back as `ToolErrc::failed` with a message the model can act on.
[[nodiscard]] expected<tools::Tool, tools::ToolError> calculatorTool();

/// \brief `word_count`: words, characters (UTF-8 code points) and lines of a text, as JSON.
[[nodiscard]] expected<tools::Tool, tools::ToolError> wordCountTool();

/// \brief `current_time`: the current time in ISO-8601 (UTC), e.g. `2025-01-31T12:00:00Z`.
[[nodiscard]] expected<tools::Tool, tools::ToolError> currentTimeTool();

/// \brief All demo tools, or the first definition error (a programming error, reported by the CLI).
[[nodiscard]] expected<std::vector<tools::Tool>, tools::ToolError> demoTools();

}  // namespace reagent::cli
