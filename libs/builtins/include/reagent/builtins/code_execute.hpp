#pragma once
/// \file
/// \brief The `code-execute` tool: a snippet of `sh`, `python3` or `node` run in a fresh temporary
/// directory, with an environment reduced to `PATH` and `HOME`, confined by Linux Landlock to that
/// directory and the system's read-only directories.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::builtins {

/// \brief What this kernel offers for confining code.
struct SandboxSupport {
    /// The Landlock ABI version; 0 when the kernel lacks Landlock (or it is disabled).
    int landlockAbi = 0;
    /// `landlock (ABI 7)`, or why there is none.
    std::string description;
};

/// \brief Probes the kernel (one system call).
[[nodiscard]] SandboxSupport sandboxSupport();

/// \brief Settings of `code-execute`.
struct CodeExecuteOptions {
    /// The child's `PATH`, where the interpreters are looked up. Default: the system's directories only,
    /// not the user's (version managers' shims would need the user's files).
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    /// Directories the code may read and execute from (besides its own temporary directory, which it may
    /// also write). Missing ones are skipped. The interpreter's own installation prefix is added.
    std::vector<std::string> readOnlyDirectories = {"/usr",   "/bin",    "/sbin", "/lib", "/lib32",
                                                    "/lib64", "/libx32", "/etc",  "/opt"};
    /// Where the temporary directories are made; empty: `$TMPDIR`, else `/tmp`.
    std::string temporaryRoot;
    /// `timeoutMs` when the model gives none; default 30 s. Must be positive.
    std::chrono::milliseconds defaultTimeout{30'000};
    /// The largest `timeoutMs` accepted; default 5 min.
    std::chrono::milliseconds maxTimeout{300'000};
    /// Bytes kept of stdout, and of stderr; the rest is counted (`stdout_cut`). Default 32 KiB.
    std::size_t maxOutputBytes = 32U << 10U;
    /// Refuse to run when Landlock is unavailable, instead of running unconfined (and saying so).
    bool requireSandbox = false;
    /// Let the code use the network. Default off: the code runs in a network namespace of its own (as
    /// root directly, otherwise inside a user namespace), where nothing, not even loopback, is reachable;
    /// when the kernel or the container allows no namespace the call fails and says so. Applies when the
    /// code is confined (Landlock available); unconfined code has the network (the result says so).
    bool allowNetwork = false;
    /// The `reagent-sandbox` helper; empty: found as `helperProgramPath` finds helpers
    /// (`$REAGENT_SANDBOX_HELPER` first).
    std::string sandboxHelper;
};

/// \brief The `code-execute` tool (parameters `language`: `sh`, `python3` or `node`; `code`; optional
/// `timeoutMs`). The result is a JSON object `{exit_code, stdout, stderr, signal, timed_out, stdout_cut,
/// stderr_cut, sandbox}`: a non-zero exit is still a result; `sandbox` says how the code was confined
/// (or plainly that it was not): files, network, and whether signals and abstract Unix sockets stay
/// inside (Landlock ABI 6 or later). Every process the code starts is killed at its timeout, when the run
/// is cancelled and when the code ends, also those that left its process group; its temporary directory
/// is removed afterwards. The tool requires approval, as `shell-execute` does.
///
/// \par Errors (to the model)
/// An unknown language or one whose interpreter is not installed, an out-of-range `timeoutMs`, a
/// sandbox required but unavailable, a process that cannot start.
[[nodiscard]] expected<tools::Tool, tools::ToolError> codeExecuteTool(CodeExecuteOptions options = {});

}  // namespace reagent::builtins
