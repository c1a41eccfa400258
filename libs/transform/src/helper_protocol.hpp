#pragma once
// The contract between applyJq and the reagent-jq helper executable (libs/transform/helper/main.cpp).
//
// Command line: reagent-jq [--max-input-bytes N] [--max-output-bytes N] [--memory-bytes N]
//                          [--cpu-seconds N] -- EXPRESSION
// The JSON input is read from standard input until end of file. On success the result (compact JSON:
// one output, an array of several, `[]` for none) is written to standard output and the exit status is
// 0. Otherwise standard error carries one diagnostic and the exit status names its class.

#include <cstddef>
#include <string_view>

namespace reagent::transform::protocol {

inline constexpr int kOk = 0;
// Codes start at 10: 1 is used by the sanitizers, 2 by many runtimes for usage errors.
inline constexpr int kInvalidExpression = 10;
inline constexpr int kInvalidInput = 11;
inline constexpr int kRuntimeError = 12;
inline constexpr int kOutputTooLarge = 13;
inline constexpr int kOutOfMemory = 14;
inline constexpr int kInternal = 15;
inline constexpr int kUsage = 16;

inline constexpr std::string_view kMaxInputOption = "--max-input-bytes";
inline constexpr std::string_view kMaxOutputOption = "--max-output-bytes";
inline constexpr std::string_view kMemoryOption = "--memory-bytes";
inline constexpr std::string_view kCpuOption = "--cpu-seconds";

// The helper never writes more than this to standard error (the parent bounds it again).
inline constexpr std::size_t kMaxDiagnosticBytes = 4096;

}  // namespace reagent::transform::protocol
