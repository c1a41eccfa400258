#include "checkpoint/shadow_repository.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "commands/run_process.hpp"

namespace reagent::builtins::detail {
namespace {

constexpr std::size_t kGitOutputBytes = 8 * 1024 * 1024;

/// Set for every git command of the shadow repository: no user or system configuration, a fixed identity,
/// no prompt, messages in English.
constexpr const char* kGitEnvironment[] = {
    "GIT_CONFIG_NOSYSTEM=1",      "GIT_CONFIG_GLOBAL=/dev/null",
    "GIT_AUTHOR_NAME=reagent",    "GIT_AUTHOR_EMAIL=reagent@localhost",
    "GIT_COMMITTER_NAME=reagent", "GIT_COMMITTER_EMAIL=reagent@localhost",
    "GIT_TERMINAL_PROMPT=0",      "LC_ALL=C"};

bool isCommitId(const std::string& id) {
    return id.size() == 40 && std::all_of(id.begin(), id.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

}  // namespace

ShadowRepository::ShadowRepository(std::string workTree, std::string directory,
                                   std::vector<std::string> environment, std::chrono::milliseconds timeout)
    : workTree_(std::move(workTree)),
      directory_(std::move(directory)),
      environment_(withoutGitVariables(std::move(environment))),
      timeout_(timeout) {}

ShadowRepository::~ShadowRepository() {
    if (ownsDirectory_) {
        std::error_code ignored;
        std::filesystem::remove_all(directory_, ignored);
    }
}

Task<expected<std::string, WorkspaceError>> ShadowRepository::git(std::vector<std::string> args) {
    ProcessSpec spec;
    spec.program = "git";
    // The user's and the system's git configuration (hooks, signing, fsmonitor) stay out of it.
    spec.args = {"-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false",
                 "-c", "core.autocrlf=false",      "-c", "core.fsmonitor=false"};
    spec.args.insert(spec.args.end(), args.begin(), args.end());
    spec.environment = environment_;
    const std::string gitDirectory = directory_ + "/shadow.git";
    spec.environment.push_back("GIT_DIR=" + gitDirectory);
    spec.environment.push_back("GIT_WORK_TREE=" + workTree_);
    for (const char* entry : kGitEnvironment) {
        spec.environment.emplace_back(entry);
    }
    spec.workingDirectory = workTree_;
    spec.timeout = timeout_;
    spec.maxOutputBytes = kGitOutputBytes;
    const std::string what = args.empty() ? std::string("git") : "git " + args.front();
    auto running = runProcess(std::move(spec));
    auto ran = co_await std::move(running);
    if (!ran) {
        ran.error().code = ran.error().code == WorkspaceErrc::cancelled ? WorkspaceErrc::cancelled
                                                                        : WorkspaceErrc::checkpoint_failed;
        co_return fail(std::move(ran.error()));
    }
    if (ran->timedOut) {
        co_return fail(WorkspaceError{WorkspaceErrc::timeout, what + " did not finish within " +
                                                                  std::to_string(timeout_.count()) + " ms"});
    }
    if (ran->exitCode != 0) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::checkpoint_failed, what + " failed: " + trimmed(ran->stderrText)});
    }
    if (ran->stdoutCut > 0) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::checkpoint_failed, what + " printed more than expected"});
    }
    co_return std::move(ran->stdoutText);
}

Task<expected<void, WorkspaceError>> ShadowRepository::ensureCreated() {
    if (created_) {
        co_return expected<void, WorkspaceError>{};
    }
    if (directory_.empty()) {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "reagent-checkpoints-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            co_return fail(WorkspaceError{
                WorkspaceErrc::checkpoint_failed,
                std::string("cannot create the checkpoint directory: ") + std::strerror(errno)});
        }
        directory_ = pattern;
        ownsDirectory_ = true;
    }
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::checkpoint_failed,
                           "cannot create the checkpoint directory '" + directory_ + "': " + ec.message()});
    }
    if (!std::filesystem::exists(directory_ + "/shadow.git/HEAD")) {
        auto initialisedTask = git({"init", "--quiet"});
        auto initialised = co_await std::move(initialisedTask);
        if (!initialised) {
            co_return fail(std::move(initialised.error()));
        }
    }
    created_ = true;
    co_return expected<void, WorkspaceError>{};
}

Task<expected<Checkpoint, WorkspaceError>> ShadowRepository::record(std::string label) {
    auto ready = co_await ensureCreated();
    if (!ready) {
        co_return fail(std::move(ready.error()));
    }
    auto addedTask = git({"add", "--all", "--", "."});
    auto added = co_await std::move(addedTask);
    if (!added) {
        co_return fail(std::move(added.error()));
    }
    const std::string message = label.empty() ? std::string("checkpoint") : label;
    auto committedTask = git({"commit", "--quiet", "--allow-empty", "--no-verify", "-m", message});
    auto committed = co_await std::move(committedTask);
    if (!committed) {
        co_return fail(std::move(committed.error()));
    }
    auto headTask = git({"rev-parse", "HEAD"});
    auto head = co_await std::move(headTask);
    if (!head) {
        co_return fail(std::move(head.error()));
    }
    Checkpoint checkpoint;
    checkpoint.id = trimmed(std::move(*head));
    checkpoint.label = message;
    co_return checkpoint;
}

Task<expected<RollbackResult, WorkspaceError>> ShadowRepository::restore(std::string id) {
    const WorkspaceError unknown{WorkspaceErrc::not_found, "no checkpoint '" + id + "' in this workspace"};
    // Checked before git sees it: an id is never taken for an option or a revision expression.
    if (!isCommitId(id) || (directory_.empty() && !created_)) {
        co_return fail(unknown);
    }
    auto ready = co_await ensureCreated();
    if (!ready) {
        co_return fail(std::move(ready.error()));
    }
    auto knownTask = git({"cat-file", "-e", id + "^{commit}"});
    auto known = co_await std::move(knownTask);
    if (!known) {
        co_return fail(known.error().code == WorkspaceErrc::checkpoint_failed ? unknown : known.error());
    }
    // Stage the present state, so that files created since the checkpoint are in the index and the reset
    // below removes them.
    auto addedTask = git({"add", "--all", "--", "."});
    auto added = co_await std::move(addedTask);
    if (!added) {
        co_return fail(std::move(added.error()));
    }
    // Recorded as a checkpoint of its own, so that the rollback can be undone.
    auto undoTask =
        git({"commit", "--quiet", "--allow-empty", "--no-verify", "-m", "before rollback to " + id});
    auto undo = co_await std::move(undoTask);
    if (!undo) {
        co_return fail(std::move(undo.error()));
    }
    auto undoHeadTask = git({"rev-parse", "HEAD"});
    auto undoHead = co_await std::move(undoHeadTask);
    if (!undoHead) {
        co_return fail(std::move(undoHead.error()));
    }
    auto changesTask = git({"diff", "--cached", "--name-status", "--no-renames", "-z", id});
    auto changes = co_await std::move(changesTask);
    if (!changes) {
        co_return fail(std::move(changes.error()));
    }
    RollbackResult result;
    result.id = id;
    result.undoId = trimmed(std::move(*undoHead));
    // -z output: status NUL path NUL, repeated.
    const std::string& text = *changes;
    std::size_t position = 0;
    while (position < text.size()) {
        const std::size_t statusEnd = text.find('\0', position);
        if (statusEnd == std::string::npos) {
            break;
        }
        const std::size_t pathEnd = text.find('\0', statusEnd + 1);
        const std::string status = text.substr(position, statusEnd - position);
        const std::string path = text.substr(
            statusEnd + 1, (pathEnd == std::string::npos ? text.size() : pathEnd) - statusEnd - 1);
        position = pathEnd == std::string::npos ? text.size() : pathEnd + 1;
        // The diff goes from the checkpoint to now: added now means created since.
        if (status == "A") {
            result.removed.push_back(path);
        } else if (status == "D") {
            result.recreated.push_back(path);
        } else {
            result.restored.push_back(path);
        }
    }
    auto resetTask = git({"read-tree", "--reset", "-u", id});
    auto reset = co_await std::move(resetTask);
    if (!reset) {
        co_return fail(std::move(reset.error()));
    }
    co_return result;
}

}  // namespace reagent::builtins::detail
