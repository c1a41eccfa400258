#pragma once
/// \file
/// \brief `CommandRequest` and `CommandResult`: a command run in the workspace.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace reagent::builtins {

/// \brief A command to run: either a program and its arguments (`argv`, no shell involved) or a shell
/// line (`shell`, run by `/bin/sh -c`). Exactly one of the two is set.
struct CommandRequest {
    /// The program (a path, or a name looked up on `PATH`) followed by its arguments.
    std::vector<std::string> argv;
    /// A shell command line; untrusted text (it often comes from the model) that the shell interprets.
    std::optional<std::string> shell;
    /// The working directory, relative to the workspace root (or absolute inside it). Default: the root.
    std::string workingDirectory = ".";
    /// Wall-clock limit; when it passes, the command's whole process group is killed and the result says
    /// `timedOut`. Default 60 s; must be positive.
    std::chrono::milliseconds timeout{60'000};
    /// The most bytes kept of stdout, and separately of stderr; the rest is read, counted and dropped
    /// (`stdoutCut`, `stderrCut`). Default 1 MiB.
    std::size_t maxOutputBytes = 1024 * 1024;
    /// `NAME=value` entries set over the workspace's base environment.
    std::vector<std::string> environment;
    /// Record a checkpoint before running (see `ExecutionAdapter::checkpoint`); its id is in the result.
    bool checkpoint = false;
};

/// \brief How a command ended. A non-zero exit status, a signal or a timeout is a result, not an error.
struct CommandResult {
    /// The exit status; -1 when the command was ended by a signal (see `signal`).
    int exitCode = -1;
    /// The signal that ended the command (9 after a timeout), if one did.
    std::optional<int> signal;
    /// True when the command outlived `timeout` and its process group was killed.
    bool timedOut = false;
    /// What the command wrote, at most `maxOutputBytes` each; untrusted bytes, not necessarily UTF-8.
    std::string stdoutText;
    std::string stderrText;
    /// How many bytes of stdout and stderr were dropped beyond `maxOutputBytes`.
    std::size_t stdoutCut = 0;
    std::size_t stderrCut = 0;
    /// Wall-clock time from start to reap.
    std::chrono::milliseconds duration{0};
    /// The checkpoint recorded before the command ran, when `CommandRequest::checkpoint` asked for one.
    std::optional<std::string> checkpointId;
};

}  // namespace reagent::builtins
