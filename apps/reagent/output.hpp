#pragma once
/// \file
/// \brief Rendering results and tool lists for people and for machines.

#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "reagent/agent/run_result.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::cli {

/// \brief `1.234 ms`, `850 µs` or `2.50 s`: a duration as a person reads it.
[[nodiscard]] std::string formatDuration(std::chrono::microseconds duration);

/// \brief `value` as JSON text, `indent` spaces deep (-1: compact). Strings that are not valid UTF-8 (tool
/// output and model text are untrusted) have each invalid byte replaced with U+FFFD instead of failing.
[[nodiscard]] std::string dumpJson(const nlohmann::ordered_json& value, int indent = -1);

/// \brief One tool call as JSON: id, tripIndex, name, input, output or error, memoryKey and transform
/// (when set), durationMs (in that order). `output` is what the model read.
[[nodiscard]] nlohmann::ordered_json toJson(const tools::ToolCallRecord& record);

/// \brief The run for `--json`: output, success, terminatedBy, iterations, toolCalls, usage, error,
/// finalAnswer, warnings and durationMs (in that order); the `run` command adds timedOut.
[[nodiscard]] nlohmann::ordered_json toJson(const agent::RunResult& result);

/// \brief The tools for `tools --json`: an array of {name, description, inputSchema}.
[[nodiscard]] nlohmann::ordered_json toJson(const std::vector<llm::ToolSpec>& specs);

/// \brief The tools for people: name, description and indented schema of each.
void printTools(std::ostream& out, const std::vector<llm::ToolSpec>& specs);

/// \brief The closing line of a run: iterations, tool calls, how it ended and the wall time.
[[nodiscard]] std::string summaryLine(const agent::RunResult& result, std::chrono::microseconds wallTime);

}  // namespace reagent::cli
