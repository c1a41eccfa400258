#pragma once
// What `git-cli` lets a model run: the subcommand position is an allow-list, the options and subcommands
// that run programs named in arguments, reach paths outside the workspace or touch the user's own
// configuration are refused, and the calls known to be read-only run without approval.

#include <string>
#include <vector>

#include "reagent/core/expected.hpp"

namespace reagent::builtins::detail {

/// \brief A git command line `git-cli` accepted.
struct GitCommand {
    /// What follows `git`: the neutralising `-c` settings, the subcommand, the options `git-cli` adds
    /// (`--no-ext-diff`, ...), then the model's words.
    std::vector<std::string> args;
    /// Only reads the repository (`status`, `log`, `branch --list`, ...): runs without approval.
    bool readOnly = false;
};

/// \brief Checks the words after `git` (the model's, untrusted) and builds the command to run.
///
/// Refused, with a message saying what and why: an empty command; a word before the subcommand (`-c`,
/// `-C`, `--git-dir`, `--exec-path`, ... : git's global options); a subcommand not in the allow-list
/// (aliases included); subcommands that run programs (`difftool`, `mergetool`, `filter-branch`,
/// `instaweb`, `daemon`, `credential`, `bisect run`, `submodule foreach`, `rebase --exec`, ...); options
/// that name a program (`--upload-pack`, `--receive-pack`, `--exec`, `--ext-diff`, `--textconv`, ...) or
/// write outside the workspace (`--output`, `--separate-git-dir`, `--no-index`); `config` on a file other
/// than the repository's; `--help` (it starts a manual viewer); an absolute path or one with a `..`
/// component.
[[nodiscard]] expected<GitCommand, std::string> gitCommand(std::vector<std::string> words);

/// \brief The environment entries every `git-cli` command runs with: no system or global configuration,
/// `HOME` at `home` (a private empty directory), no prompts, no editor, pager or askpass program.
[[nodiscard]] std::vector<std::string> gitEnvironment(const std::string& home);

/// \brief True for a `gh` command known only to read (`pr list`, `issue view`, ... without `--web`).
[[nodiscard]] bool ghReadOnly(const std::vector<std::string>& words);

}  // namespace reagent::builtins::detail
