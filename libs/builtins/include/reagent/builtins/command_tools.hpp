#pragma once
/// \file
/// \brief The command tools on a workspace: `shell-execute` (a shell line, or with an allowlist a program
/// and its arguments) and the `git-cli`, `gh-cli` and `gws-cli` tools (one program, no shell).

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/builtins/execution_adapter.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::builtins {

/// \brief Settings of `shell-execute`.
struct ShellToolOptions {
    /// When not empty, only these programs may run (matched on the name, as in `git` or `/usr/bin/git`),
    /// and the command is split into a program and its arguments (quotes honoured) and run without a
    /// shell, so that `;`, `|`, `$(...)` cannot start anything else.
    std::vector<std::string> allowedPrograms;
    /// `timeoutMs` when the model gives none. Default 30 s.
    std::chrono::milliseconds defaultTimeout{30'000};
    /// The largest `timeoutMs` accepted. Default 10 min.
    std::chrono::milliseconds maxTimeout{600'000};
    /// Bytes kept of stdout and of stderr. Default 32 KiB.
    std::size_t maxOutputBytes = 32U << 10U;
    /// Record a checkpoint of the workspace before each command (for `rollback`).
    bool checkpoint = true;
};

/// \brief `shell-execute` (parameters `command`, optional `cwd` inside the workspace and `timeoutMs`):
/// the result is the JSON object `{exit_code, stdout, stderr, signal, timed_out}` (plus `stdout_cut`,
/// `stderr_cut` and `checkpoint` when set); a non-zero exit is a result, not an error. It changes things:
/// a side effect that requires approval.
[[nodiscard]] expected<tools::Tool, tools::ToolError> shellExecuteTool(
    std::shared_ptr<ExecutionAdapter> workspace, ShellToolOptions options = {});

/// \brief Settings of the program tools (`git-cli`, `gh-cli`, `gws-cli`).
struct ProgramToolOptions {
    /// Limit of one command. Default 60 s.
    std::chrono::milliseconds timeout{60'000};
    /// Bytes of output kept; the model is told how many were cut. Default 32 KiB.
    std::size_t maxOutputBytes = 32U << 10U;
    /// Where the program is looked up; empty: this process's `PATH`.
    std::string path;
};

/// \brief `git-cli`: `git <command>` in the workspace root (parameter `command`: the subcommand and its
/// flags, split with quotes honoured, no shell). A non-zero exit is an error carrying stderr; a missing
/// `git` is reported at once, telling the model not to retry.
///
/// \par What runs
/// The first word must be a git subcommand of an allow-list (no global option such as `-c`, `-C`,
/// `--git-dir`; no alias); subcommands and options that run programs named in the call (`difftool`,
/// `bisect run`, `rebase --exec`, `--upload-pack`, `--ext-diff`, ...), paths outside the workspace
/// (absolute or with `..`, `--output`, `--no-index`) and `config --global/--system/--file` are refused
/// with `invalid_arguments`. git runs without system or global configuration, with `HOME` at a private
/// empty directory, no prompt, editor, pager, askpass or credential helper, and hooks and fsmonitor off.
/// A call known to only read (`status`, `log`, `diff`, `show`, `branch --list`, ...) runs without
/// approval; the others ask (`ToolDefinition::approvalRule`).
///
/// \par The repository's configuration
/// `.git/config` is still read: a filter driver the user configured there runs as in any git command.
/// The file tools do not write inside a `.git` directory, and `config` asks, so the model cannot add one
/// without approval.
[[nodiscard]] expected<tools::Tool, tools::ToolError> gitCliTool(std::shared_ptr<ExecutionAdapter> workspace,
                                                                 ProgramToolOptions options = {});
/// \brief `gh-cli`: the GitHub CLI, as `git-cli` without its rule: every call asks for approval except
/// the reading ones (`pr list`, `issue view`, `repo view`, ... without `--web`).
[[nodiscard]] expected<tools::Tool, tools::ToolError> ghCliTool(std::shared_ptr<ExecutionAdapter> workspace,
                                                                ProgramToolOptions options = {});
/// \brief `gws-cli`: the Google Workspace CLI, as `gh-cli`; every call asks for approval.
[[nodiscard]] expected<tools::Tool, tools::ToolError> gwsCliTool(std::shared_ptr<ExecutionAdapter> workspace,
                                                                 ProgramToolOptions options = {});

/// \brief Splits a command line into words as a POSIX shell would, without expanding anything: blanks
/// separate words; `'...'` is literal; `"..."` keeps blanks and takes `\` before `"`, `\`, `$` and a
/// backquote; `\` outside quotes escapes the next character. An unterminated quote is an error.
[[nodiscard]] expected<std::vector<std::string>, std::string> splitCommandLine(std::string_view line);

}  // namespace reagent::builtins
