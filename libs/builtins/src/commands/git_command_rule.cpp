// git-cli's rule: which git command lines run, which need approval, and the environment they run in.

#include "commands/git_command_rule.hpp"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string_view>

namespace reagent::builtins::detail {

namespace {

using Words = std::vector<std::string>;

[[nodiscard]] bool among(std::string_view word, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), word) != names.end();
}

// The lists below are arrays: g++ 12 refuses a constexpr std::initializer_list at namespace scope.
template <std::size_t N>
[[nodiscard]] bool among(std::string_view word, const std::string_view (&names)[N]) {
    return std::find(std::begin(names), std::end(names), word) != std::end(names);
}

// The subcommands that only read (given no option that changes things, checked per subcommand below).
constexpr std::string_view kReading[] = {
    "status",   "log",          "diff",          "show",         "rev-parse",  "rev-list",
    "ls-files", "ls-tree",      "cat-file",      "blame",        "shortlog",   "describe",
    "grep",     "show-ref",     "diff-tree",     "diff-index",   "diff-files", "merge-base",
    "name-rev", "for-each-ref", "count-objects", "check-ignore", "check-attr", "whatchanged",
    "version",  "cherry",       "fsck",          "show-branch",  "range-diff", "help"};

// The subcommands that change the repository, the work tree or a remote: they run after approval.
constexpr std::string_view kChanging[] = {"add",          "rm",
                                          "mv",           "restore",
                                          "reset",        "commit",
                                          "checkout",     "switch",
                                          "branch",       "tag",
                                          "merge",        "rebase",
                                          "cherry-pick",  "revert",
                                          "stash",        "init",
                                          "clone",        "fetch",
                                          "pull",         "push",
                                          "remote",       "config",
                                          "apply",        "am",
                                          "format-patch", "notes",
                                          "clean",        "worktree",
                                          "gc",           "prune",
                                          "update-index", "update-ref",
                                          "symbolic-ref", "sparse-checkout",
                                          "submodule",    "bisect",
                                          "ls-remote",    "archive",
                                          "bundle",       "repack",
                                          "pack-refs",    "hash-object",
                                          "commit-tree",  "mktree",
                                          "read-tree",    "write-tree",
                                          "replace",      "reflog",
                                          "mktag",        "request-pull"};

// Options that make git run a program named in the argument, or write where the model says.
constexpr std::string_view kRefusedOptions[] = {"--upload-pack",
                                                "--receive-pack",
                                                "--exec",
                                                "--ext-diff",
                                                "--textconv",
                                                "--output",
                                                "--output-directory",
                                                "--separate-git-dir",
                                                "--no-index",
                                                "--template",
                                                "--open-files-in-pager",
                                                "--filters",
                                                "--help"};

// Short options refused in one subcommand: each runs a program or writes outside.
struct RefusedShort {
    std::string_view subcommand;
    char letter;
    std::string_view why;
};
constexpr RefusedShort kRefusedShort[] = {
    {"clone", 'u', "-u names the upload-pack program"},
    {"ls-remote", 'u', "-u names the upload-pack program"},
    {"clone", 'c', "-c sets configuration that can name programs"},
    {"rebase", 'x', "-x runs a command after each commit"},
    {"grep", 'O', "-O opens a pager program"},
    {"archive", 'o', "-o writes to a file the command names"},
    {"format-patch", 'o', "-o writes to a directory the command names"},
};

// The long name of an option word (`--output=x` gives `--output`), or empty.
[[nodiscard]] std::string_view longName(std::string_view word) {
    if (word.size() < 3 || word.substr(0, 2) != "--") {
        return {};
    }
    return word.substr(0, word.find('='));
}

[[nodiscard]] bool isShortOptions(std::string_view word) {
    return word.size() >= 2 && word[0] == '-' && word[1] != '-';
}

// A path that leaves the workspace: absolute, or with a `..` component.
[[nodiscard]] bool leavesWorkspace(std::string_view value) {
    if (value.empty()) {
        return false;
    }
    if (value.front() == '/') {
        return true;
    }
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = value.find('/', start);
        if (value.substr(start, end == std::string_view::npos ? end : end - start) == "..") {
            return true;
        }
        if (end == std::string_view::npos) {
            return false;
        }
        start = end + 1;
    }
}

[[nodiscard]] bool has(const Words& words, std::initializer_list<std::string_view> names) {
    return std::any_of(words.begin() + 1, words.end(), [&](const std::string& w) { return among(w, names); });
}

// Words after the subcommand that are not options.
[[nodiscard]] std::size_t positionals(const Words& words) {
    return static_cast<std::size_t>(std::count_if(
        words.begin() + 1, words.end(), [](const std::string& w) { return w.empty() || w.front() != '-'; }));
}

// Whether an accepted command only reads.
[[nodiscard]] bool readsOnly(const Words& words) {
    const std::string& sub = words.front();
    if (among(sub, kReading)) {
        return true;
    }
    if (sub == "branch") {
        const bool changes = has(words, {"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy",
                                         "-f", "--force", "-u", "--set-upstream-to", "--unset-upstream",
                                         "--edit-description", "-t", "--track", "--no-track"}) ||
                             std::any_of(words.begin() + 1, words.end(), [](const std::string& w) {
                                 return w.rfind("--set-upstream-to=", 0) == 0 || w.rfind("--track=", 0) == 0;
                             });
        return !changes && (positionals(words) == 0 || has(words, {"-l", "--list"}));
    }
    if (sub == "tag") {
        const bool changes = has(words, {"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-u", "-f",
                                         "--force", "-m", "-F", "-v", "--verify"}) ||
                             std::any_of(words.begin() + 1, words.end(), [](const std::string& w) {
                                 return w.rfind("--message", 0) == 0 || w.rfind("--file", 0) == 0 ||
                                        w.rfind("--local-user", 0) == 0;
                             });
        return !changes && (positionals(words) == 0 || has(words, {"-l", "--list"}));
    }
    if (sub == "remote") {
        return words.size() == 1 || (words.size() == 2 && among(words[1], {"-v", "--verbose"})) ||
               (words.size() >= 2 && words[1] == "get-url");
    }
    if (sub == "config") {
        return has(words, {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"});
    }
    // Without options: theirs include log's, which can show diffs through a repository's drivers.
    if (sub == "stash" || sub == "worktree") {
        return words.size() == 2 && words[1] == "list";
    }
    if (sub == "reflog") {
        return words.size() == 1 || (words.size() == 2 && words[1] == "show");
    }
    return false;
}

// Why `words` is refused, or empty when it may run.
[[nodiscard]] std::string refusal(const Words& words) {
    const std::string& sub = words.front();
    if (!sub.empty() && sub.front() == '-') {
        return "'" + sub +
               "': git options before the subcommand (-c, -C, --git-dir, --work-tree, --exec-path, ...) are "
               "not allowed; start with the subcommand, e.g. \"status\"";
    }
    if (!among(sub, kReading) && !among(sub, kChanging)) {
        return "'" + sub +
               "' is not a git subcommand git-cli runs (aliases and subcommands that start other programs, "
               "such as difftool, mergetool, filter-branch, instaweb, daemon or credential, are refused)";
    }
    if ((sub == "bisect" && words.size() > 1 && words[1] == "run") ||
        (sub == "submodule" && std::find(words.begin(), words.end(), "foreach") != words.end())) {
        return "git " + sub + " " + (sub == "bisect" ? "run" : "foreach") +
               " runs a command: not allowed in git-cli (use shell-execute, which asks for approval)";
    }
    if (sub == "help" && !std::all_of(words.begin() + 1, words.end(), [](const std::string& w) {
            return among(w, {"-a", "--all", "-g", "--guides"});
        })) {
        return "git help opens a manual viewer: not allowed; use \"<subcommand> -h\" for a summary of its "
               "options";
    }
    for (std::size_t i = 1; i < words.size(); ++i) {
        const std::string& word = words[i];
        const std::string_view name = longName(word);
        if (word == "--") {
            continue;
        }
        if (among(name, kRefusedOptions) || (sub == "clone" && name == "--config") ||
            (sub == "archive" && name == "--remote")) {
            return "'" + std::string(name) + "' is not allowed in git-cli: it " +
                   (among(name, {"--output", "--output-directory", "--separate-git-dir", "--no-index"})
                        ? "reaches paths outside the workspace"
                        : (name == "--help" ? "opens a manual viewer (use -h)" : "runs another program"));
        }
        if (sub == "config" && among(name, {"--global", "--system", "--file", "--blob", "--edit"})) {
            return "git config " + std::string(name) +
                   " is not allowed: git-cli reads and writes the repository's own configuration only";
        }
        if (sub == "config" && among(word, {"-f", "-e"})) {
            return "git config " + word +
                   " is not allowed: git-cli reads and writes the repository's own configuration only";
        }
        if (isShortOptions(word)) {
            for (const RefusedShort& refused : kRefusedShort) {
                if (refused.subcommand == sub && word.find(refused.letter) != std::string::npos) {
                    return "'" + word + "' is not allowed in git " + sub + ": " + std::string(refused.why);
                }
            }
        }
        // A commit message is text, not a path.
        const bool message = (i > 1 && among(words[i - 1], {"-m", "--message"})) ||
                             word.rfind("-m", 0) == 0 || word.rfind("--message=", 0) == 0;
        const std::string_view value =
            name.empty() ? std::string_view(word)
                         : std::string_view(word).substr(std::min(word.size(), name.size() + 1));
        if (!message && leavesWorkspace(value)) {
            return "'" + word + "' is a path outside the workspace: git-cli works inside it only";
        }
    }
    return {};
}

}  // namespace

expected<GitCommand, std::string> gitCommand(Words words) {
    if (words.empty()) {
        return fail(std::string("the git command is empty; give a subcommand, e.g. \"status\""));
    }
    if (std::string why = refusal(words); !why.empty()) {
        return fail(std::move(why));
    }
    GitCommand command;
    command.readOnly = readsOnly(words);
    // Command-line settings outrank the repository's configuration (workspace content the model may have
    // written): no hook, fsmonitor, pager, ssh or credential program of its naming runs.
    command.args = {
        "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c",         "core.sshCommand=ssh",
        "-c", "core.pager=cat",           "-c", "credential.helper=",   "-c",         "core.askPass=",
        "-c", "protocol.ext.allow=never", "-c", "gpg.program=gpg",      words.front()};
    if (among(words.front(), {"diff", "log", "show", "whatchanged"})) {
        command.args.emplace_back("--no-ext-diff");
        command.args.emplace_back("--no-textconv");
    } else if (words.front() == "blame") {
        command.args.emplace_back("--no-textconv");
    }
    command.args.insert(command.args.end(), words.begin() + 1, words.end());
    return command;
}

std::vector<std::string> gitEnvironment(const std::string& home) {
    return {"HOME=" + home,
            "XDG_CONFIG_HOME=" + home,
            "GIT_CONFIG_NOSYSTEM=1",
            "GIT_CONFIG_GLOBAL=/dev/null",
            "GIT_TERMINAL_PROMPT=0",
            "GIT_ASKPASS=",
            "SSH_ASKPASS=",
            "GIT_EDITOR=true",
            "GIT_SEQUENCE_EDITOR=true",
            "GIT_PAGER=cat",
            "PAGER=cat",
            "GIT_OPTIONAL_LOCKS=0"};
}

bool ghReadOnly(const std::vector<std::string>& words) {
    if (words.size() < 2 || has(words, {"--web", "-w"})) {
        return false;
    }
    return among(words[0], {"pr", "issue", "repo", "release", "run", "workflow", "label", "gist", "cache"}) &&
           among(words[1], {"list", "view", "status", "diff", "checks"});
}

}  // namespace reagent::builtins::detail
