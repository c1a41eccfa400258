#include "reagent/transform/jq_transform.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "helper_protocol.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/core/enum_name.hpp"
#include "reagent/core/helper_program.hpp"
#include "reagent/core/run_to_end.hpp"
#include "reagent/core/settle.hpp"

namespace reagent::transform {
namespace {

using Clock = std::chrono::steady_clock;

// Longest jq diagnostic carried in an error message (jq echoes the expression in syntax errors).
constexpr std::size_t kMaxMessageBytes = 2048;
// Linux refuses longer single command-line arguments (MAX_ARG_STRLEN) and the expression is one.
constexpr std::size_t kMaxCommandLineArgument = 128 * 1024 - 1;

TransformError error(TransformErrc code, std::string message) {
    return {code, std::move(message)};
}

std::string bytesText(std::size_t bytes) {
    return std::to_string(bytes) + " bytes";
}

// Trims whitespace and bounds the length, cutting at a UTF-8 character boundary.
std::string boundedMessage(std::string text) {
    const auto space = [](unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (!text.empty() && space(static_cast<unsigned char>(text.back()))) {
        text.pop_back();
    }
    const auto first = std::find_if_not(text.begin(), text.end(),
                                        [&](char c) { return space(static_cast<unsigned char>(c)); });
    text.erase(text.begin(), first);
    if (text.size() > kMaxMessageBytes) {
        text.resize(reagent::detail::utf8Prefix(text, kMaxMessageBytes).size());
        text += " [...]";
    }
    return text;
}

std::optional<TransformError> validate(const std::string& expression, const std::string& input,
                                       const JqLimits& limits) {
    if (limits.timeout.count() <= 0) {
        return error(TransformErrc::internal, "JqLimits::timeout must be positive (got " +
                                                  std::to_string(limits.timeout.count()) + " ms)");
    }
    const bool blank = std::all_of(expression.begin(), expression.end(),
                                   [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
    if (blank) {
        return error(TransformErrc::invalid_expression,
                     "the expression is empty; `.` returns the input unchanged");
    }
    const std::size_t maxExpression = std::min(limits.maxExpressionBytes, kMaxCommandLineArgument);
    if (expression.size() > maxExpression) {
        return error(TransformErrc::invalid_expression, "the expression has " + bytesText(expression.size()) +
                                                            ", more than the limit of " +
                                                            bytesText(maxExpression));
    }
    if (expression.find('\0') != std::string::npos) {
        return error(TransformErrc::invalid_expression, "the expression contains a NUL byte");
    }
    if (input.size() > limits.maxInputBytes) {
        return error(TransformErrc::invalid_input, "the input has " + bytesText(input.size()) +
                                                       ", more than the limit of " +
                                                       bytesText(limits.maxInputBytes));
    }
    return std::nullopt;
}

std::vector<std::string> helperArguments(std::string expression, const JqLimits& limits) {
    // CPU seconds: the backstop should the parent die; the parent's timer stops the helper first.
    const auto cpuSeconds = std::chrono::ceil<std::chrono::seconds>(limits.timeout).count() + 1;
    std::vector<std::string> args;
    args.emplace_back(protocol::kMaxInputOption);
    args.push_back(std::to_string(limits.maxInputBytes));
    args.emplace_back(protocol::kMaxOutputOption);
    args.push_back(std::to_string(limits.maxOutputBytes));
    args.emplace_back(protocol::kMemoryOption);
    args.push_back(std::to_string(limits.memoryBytes));
    args.emplace_back(protocol::kCpuOption);
    args.push_back(std::to_string(cpuSeconds));
    args.emplace_back("--");
    args.push_back(std::move(expression));
    return args;
}

std::string timeoutMessage(const JqLimits& limits) {
    return "the jq expression did not finish within " + std::to_string(limits.timeout.count()) +
           " ms and was stopped; simplify it or select less data";
}

std::string outputTooLargeMessage(const JqLimits& limits) {
    return "the output exceeds " + bytesText(limits.maxOutputBytes) +
           "; select fewer items or fields (e.g. `.[0:10]`, `map({id, name})`)";
}

expected<std::string, TransformError> interpretExit(RunOutcome run, const JqLimits& limits) {
    std::string diagnostics = boundedMessage(std::move(run.stderrText));
    switch (run.exitCode) {
        case protocol::kOk:
            if (run.stdoutText.empty()) {
                return fail(error(TransformErrc::internal, "the jq helper exited without a result"));
            }
            return std::move(run.stdoutText);
        case protocol::kInvalidExpression:
            return fail(error(TransformErrc::invalid_expression, std::move(diagnostics)));
        case protocol::kInvalidInput:
            return fail(error(TransformErrc::invalid_input, std::move(diagnostics)));
        case protocol::kRuntimeError:
            return fail(error(TransformErrc::runtime_error, "jq error: " + diagnostics));
        case protocol::kOutputTooLarge:
            return fail(error(TransformErrc::output_too_large, outputTooLargeMessage(limits)));
        case protocol::kOutOfMemory:
            return fail(error(TransformErrc::runtime_error, "the evaluation needed more than " +
                                                                bytesText(limits.memoryBytes) +
                                                                " of memory; select less data first"));
        default:
            return fail(error(TransformErrc::internal, "the jq helper failed with exit status " +
                                                           std::to_string(run.exitCode) +
                                                           (diagnostics.empty() ? "" : ": " + diagnostics)));
    }
}

// Our own kills first: the signal they leave says nothing about the expression.
expected<std::string, TransformError> interpret(RunOutcome run, const JqLimits& limits) {
    if (run.cancelled) {
        return fail(error(TransformErrc::cancelled, "the transform was cancelled and the jq helper stopped"));
    }
    if (run.killedForOutput) {
        return fail(error(TransformErrc::output_too_large, outputTooLargeMessage(limits)));
    }
    if (run.timedOut) {
        return fail(error(TransformErrc::timeout, timeoutMessage(limits)));
    }
    if (run.signal) {
        const int signal = *run.signal;
        if (signal == SIGXCPU) {
            return fail(error(TransformErrc::timeout, timeoutMessage(limits)));
        }
        return fail(error(TransformErrc::internal,
                          "the jq helper was killed by signal " + std::to_string(signal) + " (" +
                              ::strsignal(signal) + ")" +
                              (run.stderrText.empty() ? "" : ": " + boundedMessage(run.stderrText))));
    }
    return interpretExit(std::move(run), limits);
}

TransformError notStarted(const SpawnError& failure, const std::string& helper) {
    return error(TransformErrc::internal, "the jq helper could not be started (" + failure.message +
                                              "); build the reagent_jq_helper target, install reagent, "
                                              "or set REAGENT_JQ_HELPER to the reagent-jq executable (now '" +
                                              helper + "')");
}

}  // namespace

std::string_view toString(TransformErrc code) noexcept {
    return enumName(code);
}

std::string jqHelperPath() {
    return helperProgramPath("reagent-jq", "REAGENT_JQ_HELPER", REAGENT_JQ_HELPER_INSTALLED,
                             REAGENT_JQ_HELPER_BUILD);
}

Task<expected<std::string, TransformError>> applyJq(std::string expression, std::string jsonInput,
                                                    JqLimits limits) {
    // The deadline counts from here, process start included.
    const auto start = Clock::now();
    if (auto invalid = validate(expression, jsonInput, limits)) {
        co_return fail(std::move(*invalid));
    }
    std::string helper = jqHelperPath();
    SubprocessOptions options;
    options.program = helper;
    options.args = helperArguments(std::move(expression), limits);
    // An empty environment: the helper (and jq's `env`/`$ENV`) sees none of this process's variables.
    options.environment = std::vector<std::string>{};
    RunLimits bounds;
    bounds.input = std::move(jsonInput);
    bounds.deadline = start + limits.timeout;
    // Output past the bound is useless: the helper is stopped rather than left to run to the deadline.
    bounds.stdoutLimit = {.maxBytes = limits.maxOutputBytes, .onOverflow = OverflowAction::kill};
    bounds.stderrLimit.maxBytes = protocol::kMaxDiagnosticBytes;
    auto started = settle(runToEnd(std::move(options), std::move(bounds)));
    auto settled = co_await std::move(started);
    if (!settled && settled.error().code == EffectErrc::cancelled) {
        co_return fail(
            error(TransformErrc::cancelled, "the transform was cancelled before the jq helper started"));
    }
    if (!settled) {
        co_return fail(error(TransformErrc::internal, settled.error().message));
    }
    if (!*settled) {
        co_return fail(notStarted(settled->error(), helper));
    }
    co_return interpret(std::move(**settled), limits);
}

}  // namespace reagent::transform
