// LocalWorkspace: running commands, and reading the state of the git repository holding the root.

#include <filesystem>

#include "commands/run_process.hpp"
#include "reagent/core/subprocess.hpp"
#include "workspace/local_workspace_state.hpp"

namespace reagent::builtins {
namespace {

/// `base` with `overrides` (`NAME=value`) set over it.
std::vector<std::string> mergeEnvironment(std::vector<std::string> base,
                                          const std::vector<std::string>& overrides) {
    for (const std::string& entry : overrides) {
        const std::string name = entry.substr(0, entry.find('=') + 1);
        std::erase_if(base, [&](const std::string& existing) { return existing.rfind(name, 0) == 0; });
        base.push_back(entry);
    }
    return base;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.pop_back();
    }
    return text;
}

}  // namespace

Task<expected<CommandResult, WorkspaceError>> LocalWorkspace::execute(CommandRequest request) {
    if (request.argv.empty() == !request.shell.has_value()) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::invalid_argument,
                           "give either argv (a program and its arguments) or a shell command line, "
                           "not both nor neither"});
    }
    if (request.timeout.count() <= 0) {
        co_return fail(WorkspaceError{WorkspaceErrc::invalid_argument, "the timeout must be positive"});
    }
    for (const std::string& entry : request.environment) {
        if (entry.find('=') == std::string::npos || entry.front() == '=') {
            co_return fail(WorkspaceError{WorkspaceErrc::invalid_argument,
                                          "environment entry '" + entry + "' is not NAME=value"});
        }
    }
    // Opened to check it is a directory reached without symbolic links; the child then changes into the
    // checked real path (a swap in between is not covered: commands are not confined anyway).
    auto opened = state_->root.openResolvedDirectory(request.workingDirectory);
    if (!opened) {
        co_return fail(std::move(opened.error()));
    }
    std::optional<std::string> checkpointId;
    if (request.checkpoint) {
        const std::string what = request.shell ? *request.shell : request.argv.front();
        auto recording = checkpoint("before command: " + what.substr(0, 200));
        auto recorded = co_await std::move(recording);
        if (!recorded) {
            co_return fail(std::move(recorded.error()));
        }
        checkpointId = recorded->id;
    }
    detail::ProcessSpec spec;
    if (request.shell) {
        spec.program = "/bin/sh";
        spec.args = {"-c", *request.shell};
    } else {
        spec.program = request.argv.front();
        spec.args.assign(request.argv.begin() + 1, request.argv.end());
    }
    spec.environment = mergeEnvironment(state_->environment, request.environment);
    spec.workingDirectory = opened->path.absolute.string();
    spec.timeout = request.timeout;
    spec.maxOutputBytes = request.maxOutputBytes;
    auto running = detail::runProcess(std::move(spec));
    auto ran = co_await std::move(running);
    if (ran) {
        ran->checkpointId = std::move(checkpointId);
    }
    co_return ran;
}

Task<expected<GitRepositoryInfo, WorkspaceError>> LocalWorkspace::gitInfo() {
    // One git command in the root, with this workspace's environment less any GIT_DIR pointing elsewhere.
    const auto environment = detail::withoutGitVariables(state_->environment);
    auto git = [this, &environment](std::vector<std::string> args) {
        detail::ProcessSpec spec;
        spec.program = "git";
        // The repository's own configuration is workspace content the agent may have written: no
        // fsmonitor program runs on its say-so.
        spec.args = {"-c", "core.fsmonitor=false"};
        spec.args.insert(spec.args.end(), args.begin(), args.end());
        spec.environment = environment;
        spec.environment.emplace_back("GIT_OPTIONAL_LOCKS=0");  // status must not write the index
        spec.environment.emplace_back("LC_ALL=C");
        spec.workingDirectory = state_->root.path();
        spec.timeout = state_->config.gitTimeout;
        spec.maxOutputBytes = 64 * 1024;
        return detail::runProcess(std::move(spec));
    };
    const std::vector<std::string> topLevel{"rev-parse", "--show-toplevel"};
    auto topTask = git(topLevel);
    auto top = co_await std::move(topTask);
    if (!top) {
        co_return fail(std::move(top.error()));
    }
    if (top->timedOut) {
        co_return fail(WorkspaceError{WorkspaceErrc::timeout, "git rev-parse did not finish in time"});
    }
    if (top->exitCode != 0) {
        co_return fail(WorkspaceError{WorkspaceErrc::not_a_repository,
                                      "the workspace root '" + state_->root.path() +
                                          "' is not inside a git repository: " + trimmed(top->stderrText)});
    }
    GitRepositoryInfo info;
    info.rootPath = trimmed(top->stdoutText);

    const std::vector<std::string> branchArgs{"symbolic-ref", "--short", "-q", "HEAD"};
    auto branchTask = git(branchArgs);
    auto branch = co_await std::move(branchTask);
    if (!branch) {
        co_return fail(std::move(branch.error()));
    }
    info.currentBranch = branch->exitCode == 0 ? trimmed(branch->stdoutText) : "HEAD";

    const std::vector<std::string> commitArgs{"rev-parse", "-q", "--verify", "HEAD"};
    auto commitTask = git(commitArgs);
    auto commit = co_await std::move(commitTask);
    if (!commit) {
        co_return fail(std::move(commit.error()));
    }
    info.commitSha = commit->exitCode == 0 ? trimmed(commit->stdoutText) : "";

    const std::vector<std::string> statusArgs{"status", "--porcelain"};
    auto statusTask = git(statusArgs);
    auto status = co_await std::move(statusTask);
    if (!status) {
        co_return fail(std::move(status.error()));
    }
    if (status->timedOut || status->exitCode != 0) {
        co_return fail(
            WorkspaceError{WorkspaceErrc::io_error, "git status failed: " + trimmed(status->stderrText)});
    }
    info.isDirty = !status->stdoutText.empty() || status->stdoutCut > 0;

    const std::vector<std::string> remoteArgs{"config", "--get", "remote.origin.url"};
    auto remoteTask = git(remoteArgs);
    auto remote = co_await std::move(remoteTask);
    if (!remote) {
        co_return fail(std::move(remote.error()));
    }
    if (remote->exitCode == 0 && !trimmed(remote->stdoutText).empty()) {
        info.remoteUrl = trimmed(remote->stdoutText);
    }
    co_return info;
}

}  // namespace reagent::builtins
