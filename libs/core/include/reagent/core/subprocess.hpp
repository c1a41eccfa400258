#pragma once
/// \file
/// \brief `Subprocess`: a child process in its own process group, with pipes, a cancellable wait and a
/// reap that never leaves a zombie.

#include <sys/types.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/describe/enum.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

enum class SpawnErrc {
    /// The program is not on `PATH`, or the path given does not exist.
    not_found,
    /// `posix_spawn`, a pipe or the process descriptor failed; the message says which and why.
    spawn_failed,
};
BOOST_DESCRIBE_ENUM(SpawnErrc, not_found, spawn_failed)

[[nodiscard]] std::string_view toString(SpawnErrc code) noexcept;

using SpawnError = Error<SpawnErrc>;

/// \brief What to start.
struct SubprocessOptions {
    /// A path, or a name looked up on the `PATH` of the child's environment.
    std::string program;
    std::vector<std::string> args;
    /// The child's whole environment as `NAME=value`; empty optional: this process's environment.
    std::optional<std::vector<std::string>> environment;
    /// The child's working directory; empty: this process's.
    std::string workingDirectory;
    /// Run the program under the `reagent-reaper` helper (a child subreaper), so that nothing it starts
    /// outlives it: a process that left the group or the session (`setsid`, a double fork) is killed when
    /// the program ends, when `signalGroup(SIGKILL)`, `reap` or the destructor kill it, and when this
    /// process exits, however it dies. Costs one more small process per run. The helper is found as
    /// `helperProgramPath` finds helpers (`$REAGENT_REAPER_HELPER` first). Default off.
    bool containDescendants = false;
};

/// \brief This process's environment with `overrides` (`NAME=value`) merged over it.
[[nodiscard]] std::vector<std::string> mergedEnvironment(const std::vector<std::string>& overrides);

/// \brief A started child: its own process group (so a kill reaches everything it started), default
/// signal dispositions, stdin, stdout and stderr pipes, no other descriptor inherited.
///
/// \par SIGPIPE
/// `writeInput` never raises SIGPIPE, whatever the process's disposition: a child that closed its stdin or
/// exited gives `broken_pipe`. The signal is blocked in the writing thread for each write alone and taken
/// back if the write raised it; the process's disposition and other threads are never touched.
///
/// \par Reaping
/// `wait` watches a pidfd (Linux >= 5.3) without reaping, so the group can still be killed safely;
/// `reap` collects the exit status. The destructor of a child not yet reaped kills its group and reaps
/// it (a short blocking wait after SIGKILL), so no zombie and no orphan outlive the object. A process that
/// leaves the group (`setsid`) escapes a group kill, unless `SubprocessOptions::containDescendants`.
///
/// \par Thread safety
/// Use from one strand.
class Subprocess {
  public:
    /// \brief Starts `options.program` with its descriptors bound to `executor`.
    ///
    /// \par Errors
    /// `not_found` naming the program and the `PATH` searched, `spawn_failed` with the system's reason.
    [[nodiscard]] static expected<Subprocess, SpawnError> spawn(const Executor& executor,
                                                                const SubprocessOptions& options);

    Subprocess(Subprocess&& other) noexcept;
    Subprocess& operator=(Subprocess&&) = delete;
    Subprocess(const Subprocess&) = delete;
    Subprocess& operator=(const Subprocess&) = delete;
    ~Subprocess();

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// \brief Writes all of `data` to the child's stdin; returns the error (none once all of it is written)
    /// and how many bytes went out.
    ///
    /// \par Errors
    /// `broken_pipe` when the child closed its stdin or exited (never SIGPIPE), `operation_aborted` when
    /// cancelled (cancellable only while the pipe is full), `bad_descriptor` after `closeInput`.
    /// \par Lifetime
    /// One write at a time.
    [[nodiscard]] Task<std::tuple<boost::system::error_code, std::size_t>> writeInput(std::string data);

    /// \brief Closes the child's stdin (it reads end of file); idempotent.
    void closeInput() noexcept;

    [[nodiscard]] boost::asio::readable_pipe& output() noexcept { return output_; }
    [[nodiscard]] boost::asio::readable_pipe& errors() noexcept { return errors_; }

    /// \brief Sends `signal` to the whole process group (nothing once reaped). With
    /// `containDescendants`, SIGKILL is the helper's to send: it kills every process the program started,
    /// in its group or not, then itself (a wait status of SIGKILL).
    void signalGroup(int signal) noexcept;

    /// \brief Waits until the child has exited (it is not reaped: `reap` collects it). Returns false
    /// when the wait was cancelled or failed. True means the exit happened: the pidfd's readiness is
    /// confirmed with `waitid` (a reactor may report a stale readiness; see the source).
    [[nodiscard]] Task<bool> waitExit();

    /// \brief Kills what is left of the group and collects the exit status (a wait status as `waitpid`
    /// gives). Not cancellable: after SIGKILL it is short, and a zombie must not be left behind.
    [[nodiscard]] Task<int> reap();

    /// \brief The wait status once reaped.
    [[nodiscard]] std::optional<int> status() const noexcept { return status_; }

    /// \brief Closes stdin, waits up to `grace` for the child to exit, then sends SIGTERM and waits up
    /// to `grace` again, then SIGKILL; always reaps. Cancelling the caller skips to SIGKILL. Returns the
    /// wait status.
    [[nodiscard]] Task<int> stop(std::chrono::milliseconds grace);

  private:
    Subprocess(const Executor& executor, pid_t pid, int pidfd, int control);
    void reapNow() noexcept;
    /// Whether the child has exited (it is not reaped).
    [[nodiscard]] bool exitedNow() const noexcept;
    /// Waits for an exit that waitid confirms; false when the wait was cancelled or failed.
    [[nodiscard]] Task<bool> awaitExit(bool cancellable);
    [[nodiscard]] Task<int> stopSteps(std::chrono::milliseconds grace);

    pid_t pid_ = -1;
    boost::asio::posix::stream_descriptor pidfd_;
    // A pipe's write end, non-blocking; written only by writeInput (never SIGPIPE).
    boost::asio::posix::stream_descriptor input_;
    boost::asio::readable_pipe output_;
    boost::asio::readable_pipe errors_;
    std::optional<int> status_;
    // With containDescendants: the write end of the reaper helper's control pipe; closing it kills all.
    int control_ = -1;
};

/// \brief `"exited with status 3"`, `"was killed by signal 9 (Killed)"`: a wait status for people.
[[nodiscard]] std::string describeWaitStatus(int status);

}  // namespace reagent
