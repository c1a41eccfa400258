#pragma once
// runHelper: one run of a helper executable with piped standard streams, a deadline and an output bound.
// The only user of the helper's pipes (src/helper_process.cpp, on core's Subprocess), kept non-template so
// that one translation unit pays their compile cost.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "reagent/core/task.hpp"

namespace reagent::transform::detail {

/// What to run and within which bounds.
struct HelperRequest {
    /// Path of the executable (never searched in PATH).
    std::string executable;
    /// argv[1..].
    std::vector<std::string> arguments;
    /// Written to the helper's standard input, followed by end of file.
    std::string input;
    /// The helper is killed when this passes (the caller counts its own set-up in).
    std::chrono::steady_clock::time_point deadline;
    /// Standard output beyond this many bytes kills the helper.
    std::size_t maxOutputBytes = 0;
    /// Standard error kept; the rest is read and dropped so that the helper never blocks on it.
    std::size_t maxDiagnosticBytes = 0;
};

/// How the run ended.
enum class HelperEnd {
    exited,            ///< The helper exited by itself; `status` is its exit status.
    signalled,         ///< A signal ended it (not ours); `status` is the signal number.
    timed_out,         ///< The deadline passed; the helper was killed.
    output_too_large,  ///< Standard output passed `maxOutputBytes`; the helper was killed.
    cancelled,         ///< The awaiting coroutine was cancelled; the helper was killed (or never started).
    not_started,       ///< The helper could not be started; `failure` says why.
};

/// The outcome of `runHelper`. On every end the helper is no longer running and has been reaped.
struct HelperRun {
    HelperEnd end = HelperEnd::not_started;
    int status = 0;
    std::string output;
    std::string diagnostics;
    std::string failure;
};

/// Starts the helper in its own process group with an empty environment and only the three standard
/// streams, feeds `input` while reading both outputs, and waits for it to exit, racing the deadline.
/// Timeout, output bound and cancellation kill the whole process group. Never throws.
[[nodiscard]] Task<HelperRun> runHelper(HelperRequest request);

}  // namespace reagent::transform::detail
