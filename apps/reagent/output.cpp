#include "output.hpp"

#include <cstdio>
#include <sstream>

#include "terminal_text.hpp"

namespace reagent::cli {

using json = nlohmann::ordered_json;

namespace {

double toMilliseconds(std::chrono::microseconds duration) {
    return static_cast<double>(duration.count()) / 1000.0;
}

// Every line of `text` prefixed with `indent`, for nesting a pretty-printed schema under its tool.
std::string indentLines(const std::string& text, const std::string& indent) {
    std::string out = indent;
    for (const char c : text) {
        out += c;
        if (c == '\n') {
            out += indent;
        }
    }
    return out;
}

// Tokens as `run --json` shows them.
json usageJson(const llm::Usage& usage) {
    return json{{"inputTokens", usage.inputTokens},         {"outputTokens", usage.outputTokens},
                {"cacheReadTokens", usage.cacheReadTokens}, {"cacheWriteTokens", usage.cacheWriteTokens},
                {"reasoningTokens", usage.reasoningTokens}, {"totalTokens", usage.total()}};
}

}  // namespace

std::string dumpJson(const json& value, int indent) {
    return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string formatDuration(std::chrono::microseconds duration) {
    const auto us = duration.count();
    char buffer[32];
    if (us < 1000) {
        std::snprintf(buffer, sizeof buffer, "%lld \u00b5s", static_cast<long long>(us));
    } else if (us < 1'000'000) {
        std::snprintf(buffer, sizeof buffer, "%.1f ms", static_cast<double>(us) / 1e3);
    } else {
        std::snprintf(buffer, sizeof buffer, "%.2f s", static_cast<double>(us) / 1e6);
    }
    return buffer;
}

json toJson(const tools::ToolCallRecord& record) {
    json call{
        {"id", record.id}, {"tripIndex", record.tripIndex}, {"name", record.name}, {"input", record.input}};
    if (record.outcome) {
        call["output"] = *record.outcome;
    } else {
        call["error"] = json{{"code", tools::toString(record.outcome.error().code)},
                             {"message", record.outcome.error().message}};
    }
    if (!record.memoryKey.empty()) {
        call["memoryKey"] = record.memoryKey;
    }
    if (record.transform) {
        call["transform"] = *record.transform;
    }
    call["durationMs"] = toMilliseconds(record.duration);
    return call;
}

json toJson(const agent::RunResult& result) {
    json calls = json::array();
    for (const auto& record : result.toolCalls) {
        calls.push_back(toJson(record));
    }
    json out{{"output", result.output},
             {"success", result.success()},
             {"terminatedBy", agent::toString(result.terminatedBy)},
             {"iterations", result.iterations},
             {"toolCalls", std::move(calls)},
             {"usage", usageJson(result.usage)},
             {"cost", nullptr},
             {"error", nullptr},
             {"finalAnswer", nullptr},
             {"warnings", result.warnings},
             {"durationMs", toMilliseconds(result.duration)}};
    if (const auto error = result.error()) {
        out["error"] = json{{"code", agent::toString(error->code)}, {"message", error->message}};
    }
    if (!result.fallbacks.empty()) {
        json fallbacks = json::array();
        for (const auto& fallback : result.fallbacks) {
            fallbacks.push_back(json{{"iteration", fallback.iteration},
                                     {"from", fallback.from},
                                     {"to", fallback.to},
                                     {"reason", fallback.reason}});
        }
        out["fallbacks"] = std::move(fallbacks);
    }
    if (result.cost) {
        out["cost"] = json{{"amount", result.cost->amount},
                           {"currency", result.cost->currency},
                           {"unpricedCalls", result.cost->unpricedCalls}};
    }
    json compactions = json::array();
    for (const agent::Compaction& compaction : result.context.compactions) {
        compactions.push_back(json{{"reason", agent::toString(compaction.reason)},
                                   {"iteration", compaction.iteration},
                                   {"strategies", compaction.strategies},
                                   {"tokensBefore", compaction.tokensBefore},
                                   {"tokensAfter", compaction.tokensAfter},
                                   {"messagesBefore", compaction.messagesBefore},
                                   {"messagesAfter", compaction.messagesAfter},
                                   {"notes", compaction.notes}});
    }
    out["context"] = json{{"window", result.context.window ? json(*result.context.window) : json(nullptr)},
                          {"promptTokens", result.context.promptTokens},
                          {"compactions", std::move(compactions)}};
    if (!result.subRuns.empty()) {
        const auto& sub = result.subRuns;  // what the agents this run called spent (counted in its budget)
        out["subRuns"] = json{{"usage", usageJson(sub.usage)},
                              {"cost", sub.cost},
                              {"unpricedCalls", sub.unpricedCalls},
                              {"modelCalls", sub.modelCalls},
                              {"toolCalls", sub.toolCalls}};
    }
    if (!result.structuredOutput.is_null()) {
        out["output"] = result.structuredOutput;  // --output-schema: the validated value, not its text
    }
    if (result.outputRetries > 0) {
        out["outputRetries"] = result.outputRetries;
    }
    if (const auto& answer = result.finalAnswer) {
        out["finalAnswer"] =
            json{{"output", answer->output},
                 {"format", answer->format},
                 {"summary", answer->summary},
                 {"confidence", answer->confidence ? json(*answer->confidence) : json(nullptr)}};
    }
    return out;
}

json toJson(const std::vector<llm::ToolSpec>& specs) {
    json out = json::array();
    for (const auto& spec : specs) {
        out.push_back(
            json{{"name", spec.name}, {"description", spec.description}, {"inputSchema", spec.inputSchema}});
    }
    return out;
}

void printTools(std::ostream& out, const std::vector<llm::ToolSpec>& specs) {
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto& spec = specs[i];
        // Tool definitions may come from elsewhere (servers, plugins): shown, never interpreted.
        out << (i == 0 ? "" : "\n") << terminalSafe(spec.name, false) << "\n"
            << "  " << terminalSafe(spec.description, false) << "\n"
            << "  schema:\n"
            << indentLines(terminalSafe(dumpJson(spec.inputSchema, 2)), "    ") << "\n";
    }
}

std::string summaryLine(const agent::RunResult& result, std::chrono::microseconds wallTime) {
    std::ostringstream line;
    line << (result.success() ? "done" : "failed") << ": " << result.iterations
         << (result.iterations == 1 ? " iteration, " : " iterations, ") << result.toolCalls.size()
         << (result.toolCalls.size() == 1 ? " tool call, " : " tool calls, ") << "terminated by "
         << agent::toString(result.terminatedBy) << ", " << formatDuration(wallTime) << " wall time";
    if (!result.usage.empty()) {
        line << ", " << result.usage.total() << " tokens";
        if (result.usage.cacheReadTokens != 0) {
            line << " (" << result.usage.cacheReadTokens << " from cache)";
        }
    }
    if (result.cost) {
        char amount[32];
        std::snprintf(amount, sizeof amount, "%.4f", result.cost->amount);
        line << ", cost " << amount << " " << result.cost->currency;
        if (result.cost->unpricedCalls != 0) {
            line << " (+" << result.cost->unpricedCalls << " unpriced "
                 << (result.cost->unpricedCalls == 1 ? "call" : "calls") << ")";
        }
    }
    if (!result.subRuns.empty()) {
        line << "; sub-runs: " << result.subRuns.modelCalls << " model calls, "
             << result.subRuns.usage.total() << " tokens";
    }
    return line.str();
}

}  // namespace reagent::cli
