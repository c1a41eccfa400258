#pragma once
/// \file
/// \brief `runToEnd`: a program run to its end with its input fed, both outputs drained with a cap, a
/// deadline, and a reaped process group whatever happens.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/core/subprocess.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief What happens to the bytes of an output stream past its cap.
enum class OverflowAction {
    /// The first `maxBytes` are kept; the rest is read, counted and dropped, so the program never blocks on
    /// a full pipe and runs on.
    truncate,
    /// The first `maxBytes` are kept and the whole process group is killed at once (the output is useless
    /// past the cap, and waiting for the deadline would only waste time).
    kill,
};

/// \brief The cap on one output stream.
struct StreamLimit {
    /// Bytes kept at most. Default 1 MiB.
    std::size_t maxBytes = 1024 * 1024;
    /// Default `truncate`.
    OverflowAction onOverflow = OverflowAction::truncate;
};

/// \brief The input and the bounds of one run.
struct RunLimits {
    /// Written to the program's stdin, followed by end of file; empty: end of file at once. A program that
    /// exits (or closes stdin) without reading all of it is not an error.
    std::string input;
    /// When it passes, the whole process group is killed and the outcome says `timedOut`. Default: none.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    StreamLimit stdoutLimit;
    StreamLimit stderrLimit;
};

/// \brief How a run ended. On every outcome the program has ended and has been reaped, and what was left of
/// its process group has been killed.
struct RunOutcome {
    /// The exit status when the program exited; -1 when a signal ended it (or it never started).
    int exitCode = -1;
    /// The signal that ended the program, if one did: SIGKILL after a deadline, a `kill` cap or a
    /// cancellation, or another signal the program received.
    std::optional<int> signal;
    /// The deadline passed before the program exited; the group was killed.
    bool timedOut = false;
    /// A stream with `OverflowAction::kill` passed its cap; the group was killed.
    bool killedForOutput = false;
    /// The awaiting coroutine was cancelled; the group was killed (or the program never started).
    bool cancelled = false;
    /// What the program wrote, at most the stream's `maxBytes` each; untrusted bytes, not necessarily
    /// UTF-8.
    std::string stdoutText;
    std::string stderrText;
    /// Bytes read past each stream's cap and dropped (with `kill`, what came in the last read only).
    std::size_t stdoutDropped = 0;
    std::size_t stderrDropped = 0;

    [[nodiscard]] bool stdoutTruncated() const noexcept { return stdoutDropped > 0; }
    [[nodiscard]] bool stderrTruncated() const noexcept { return stderrDropped > 0; }
};

/// \brief Starts `options.program` as a `Subprocess` on the awaiting coroutine's executor, writes
/// `limits.input` to it while draining stdout and stderr concurrently, waits for it to exit and reaps it.
///
/// When the program exits, what is left of its group is killed, so a background child that holds the
/// pipes cannot keep the run open (one that left the group escapes unless
/// `SubprocessOptions::containDescendants`).
///
/// \par Errors
/// `SpawnError` when the program cannot be started (`not_found`, `spawn_failed`). A non-zero exit, a
/// signal, the deadline, a cap and a cancellation are outcomes, not errors.
///
/// \par Cancellation
/// Cancelling the awaiting coroutine kills the process group and reaps it before the outcome, with
/// `cancelled`, is returned (a program not yet started is not started). Never throws.
[[nodiscard]] Task<expected<RunOutcome, SpawnError>> runToEnd(SubprocessOptions options, RunLimits limits);

}  // namespace reagent
