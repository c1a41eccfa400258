// shell-execute and the program tools (git-cli, gh-cli, gws-cli), on ExecutionAdapter::execute.

#include "reagent/builtins/command_tools.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "commands/git_command_rule.hpp"
#include "commands/program_lookup.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "tool_support.hpp"

namespace reagent::builtins {

namespace {

using nlohmann::json;
using tools::ToolContext;
using tools::ToolErrc;
using tools::ToolError;
using tools::ToolResult;

[[nodiscard]] std::string cutNote(std::size_t cut) {
    return cut == 0 ? std::string() : "\n[" + std::to_string(cut) + " more bytes cut]";
}

struct ShellRun {
    std::shared_ptr<ExecutionAdapter> workspace;
    ShellToolOptions options;
};

Task<ToolResult> runShell(std::shared_ptr<const ShellRun> run, json args, ToolContext context) {
    const ShellToolOptions& options = run->options;
    const std::string command = args.value("command", std::string());
    CommandRequest request;
    const auto timeout = detail::timeoutArg(args, options.defaultTimeout, options.maxTimeout);
    if (!timeout) {
        co_return fail(timeout.error());
    }
    if (options.allowedPrograms.empty()) {
        request.shell = command;
    } else {
        auto words = splitCommandLine(command);
        if (!words) {
            co_return fail(ToolError{ToolErrc::invalid_arguments, words.error()});
        }
        if (words->empty()) {
            co_return fail(ToolError{ToolErrc::invalid_arguments, "the command is empty"});
        }
        const std::string program = std::filesystem::path(words->front()).filename().string();
        bool allowed = false;
        for (const auto& name : options.allowedPrograms) {
            allowed = allowed || name == program;
        }
        if (!allowed) {
            std::string list;
            for (const auto& name : options.allowedPrograms) {
                list += (list.empty() ? "" : ", ") + name;
            }
            co_return fail(
                ToolError::failure("'" + program + "' is not an allowed program (allowed: " + list +
                                   "); commands run without a shell, so | ; > $() are not available"));
        }
        request.argv = std::move(*words);
    }
    request.workingDirectory = args.value("cwd", std::string("."));
    request.timeout = *timeout;
    request.maxOutputBytes = options.maxOutputBytes;
    request.checkpoint = options.checkpoint;
    auto running = run->workspace->execute(std::move(request));
    auto ran = co_await std::move(running);
    if (!ran) {
        co_return fail(detail::toolError(ran.error()));
    }
    json result = detail::commandResultJson(*ran);
    if (ran->stdoutCut > 0 || ran->stderrCut > 0) {
        result["stdout_cut"] = ran->stdoutCut;
        result["stderr_cut"] = ran->stderrCut;
    }
    if (ran->checkpointId) {
        result["checkpoint"] = *ran->checkpointId;
    }
    detail::recordCheckpoint(context, ran->checkpointId);
    co_return detail::dumpToolJson(result);
}

// What a program tool lets through: the command to run, or why it is refused.
struct ProgramCommand {
    std::vector<std::string> args;
    /// Known only to read: runs without approval.
    bool readOnly = false;
    /// `git`: the environment of `detail::gitEnvironment` with a private `HOME`.
    bool gitEnvironment = false;
};

// The model's words after the program's name (a leading "git" given for "status" is dropped), checked by
// the program's rule. A refusal is `invalid_arguments`: the model can send another command.
expected<ProgramCommand, ToolError> programCommand(const std::string& program, const json& args) {
    auto words = splitCommandLine(args.value("command", std::string()));
    if (!words) {
        return fail(ToolError{ToolErrc::invalid_arguments, words.error()});
    }
    if (!words->empty() && words->front() == program) {
        words->erase(words->begin());
    }
    ProgramCommand command;
    if (program == "git") {
        auto checked = detail::gitCommand(std::move(*words));
        if (!checked) {
            return fail(ToolError{ToolErrc::invalid_arguments, "git-cli: " + checked.error()});
        }
        command.args = std::move(checked->args);
        command.readOnly = checked->readOnly;
        command.gitEnvironment = true;
        return command;
    }
    command.readOnly = program == "gh" && detail::ghReadOnly(*words);
    command.args = std::move(*words);
    return command;
}

// Asks for approval unless the call is known read-only; a refused call does not ask (it fails at once).
bool programCallNeedsApproval(const std::string& program, const json& args) {
    const auto command = programCommand(program, args);
    return command && !command->readOnly;
}

// A private (0700) empty directory, removed with this object: git's HOME, so that nothing of the user's
// home (configuration, credentials) is read and nothing is written there.
class PrivateDirectory {
  public:
    static expected<std::unique_ptr<PrivateDirectory>, ToolError> make() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern =
            std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/reagent-home-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) {
            return fail(ToolError::failure("cannot make a private directory for git's HOME under " +
                                           pattern.substr(0, pattern.rfind('/')) + ": " +
                                           std::strerror(errno)));
        }
        return std::unique_ptr<PrivateDirectory>(new PrivateDirectory(std::move(pattern)));
    }
    ~PrivateDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    PrivateDirectory(const PrivateDirectory&) = delete;
    PrivateDirectory& operator=(const PrivateDirectory&) = delete;
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

  private:
    explicit PrivateDirectory(std::string path) : path_(std::move(path)) {}
    std::string path_;
};

struct ProgramRun {
    std::shared_ptr<ExecutionAdapter> workspace;
    ProgramToolOptions options;
    std::string program;
};

Task<ToolResult> runProgram(std::shared_ptr<const ProgramRun> run, json args, ToolContext) {
    const std::string& program = run->program;
    const char* processPath = std::getenv("PATH");
    const std::string path = !run->options.path.empty()
                                 ? run->options.path
                                 : (processPath != nullptr ? processPath : "/usr/bin:/bin");
    const std::string found = detail::findProgram(program, path);
    if (found.empty()) {
        co_return fail(ToolError::failure(program +
                                          " is not installed (not found on PATH). Do not retry: tell the "
                                          "user that " +
                                          program + " must be installed to do this."));
    }
    auto command = programCommand(program, args);
    if (!command) {
        co_return fail(std::move(command.error()));
    }
    CommandRequest request;
    request.argv.push_back(found);
    request.argv.insert(request.argv.end(), command->args.begin(), command->args.end());
    request.timeout = run->options.timeout;
    request.maxOutputBytes = run->options.maxOutputBytes;
    std::unique_ptr<PrivateDirectory> home;  // lives until the command ended (or this frame is destroyed)
    if (command->gitEnvironment) {
        auto made = PrivateDirectory::make();
        if (!made) {
            co_return fail(std::move(made.error()));
        }
        home = std::move(*made);
        request.environment = detail::gitEnvironment(home->path());
    }
    auto running = run->workspace->execute(std::move(request));
    auto ran = co_await std::move(running);
    if (!ran) {
        co_return fail(detail::toolError(ran.error()));
    }
    if (ran->timedOut) {
        co_return fail(ToolError::failure(program + " did not finish within " +
                                          std::to_string(run->options.timeout.count()) +
                                          " ms and was stopped"));
    }
    if (ran->exitCode != 0) {
        std::string message = program + " failed (" +
                              (ran->signal ? "signal " + std::to_string(*ran->signal)
                                           : "exit status " + std::to_string(ran->exitCode)) +
                              ")";
        const std::string& detail = ran->stderrText.empty() ? ran->stdoutText : ran->stderrText;
        if (!detail.empty()) {
            message += ": " + detail + cutNote(ran->stderrText.empty() ? ran->stdoutCut : ran->stderrCut);
        }
        co_return fail(ToolError::failure(std::move(message)));
    }
    co_return ran->stdoutText + cutNote(ran->stdoutCut);
}

expected<tools::Tool, ToolError> programTool(std::shared_ptr<ExecutionAdapter> workspace,
                                             ProgramToolOptions options, std::string name,
                                             std::string program, std::string description,
                                             std::string example) {
    if (!workspace || options.timeout.count() <= 0 || options.maxOutputBytes == 0) {
        return fail(ToolError{ToolErrc::invalid_arguments,
                              name + ": needs a workspace, a positive timeout and a positive output cap"});
    }
    auto run = std::make_shared<ProgramRun>(ProgramRun{std::move(workspace), options, program});
    tools::ParamOptions command;
    command.required = true;
    return tools::ToolBuilder::create(name)
        .description(std::move(description) + " Output over " + std::to_string(options.maxOutputBytes) +
                     " bytes is cut (the cut is stated). Runs without a shell: | > ; are not available.")
        .param("command", "string",
               "The " + program + " subcommand and its flags, without the leading '" + program + "', e.g. " +
                   example,
               std::move(command))
        .action([program](const json& args) { return program + " " + args.value("command", std::string()); })
        .category("vcs")
        .riskLevel(tools::RiskLevel::medium)
        .sideEffect()
        .idempotent(false)  // `gh pr create` twice opens two pull requests
        .requiresApprovalWhen([program](const json& args) { return programCallNeedsApproval(program, args); })
        .timeout(options.timeout + std::chrono::seconds(5))
        .handler([run](json args, ToolContext context) {
            return runProgram(run, std::move(args), std::move(context));
        })
        .build();
}

}  // namespace

expected<std::vector<std::string>, std::string> splitCommandLine(std::string_view line) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord) {
                words.push_back(std::move(word));
                word.clear();
                inWord = false;
            }
            continue;
        }
        inWord = true;
        if (c == '\\') {
            if (++i < line.size()) {
                word += line[i];
            }
        } else if (c == '\'') {
            const std::size_t end = line.find('\'', i + 1);
            if (end == std::string_view::npos) {
                return fail(std::string("unterminated ' quote in the command"));
            }
            word += line.substr(i + 1, end - i - 1);
            i = end;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i >= line.size()) {
                    return fail(std::string("unterminated \" quote in the command"));
                }
                if (line[i] == '"') {
                    break;
                }
                if (line[i] == '\\' && i + 1 < line.size() &&
                    std::string_view("\"\\$`").find(line[i + 1]) != std::string_view::npos) {
                    ++i;
                }
                word += line[i];
            }
        } else {
            word += c;
        }
    }
    if (inWord) {
        words.push_back(std::move(word));
    }
    return words;
}

expected<tools::Tool, ToolError> shellExecuteTool(std::shared_ptr<ExecutionAdapter> workspace,
                                                  ShellToolOptions options) {
    if (!workspace || options.defaultTimeout.count() <= 0 || options.maxTimeout < options.defaultTimeout ||
        options.maxOutputBytes == 0) {
        return fail(ToolError{ToolErrc::invalid_arguments,
                              "shell-execute: needs a workspace, positive timeouts (default <= max) and a "
                              "positive output cap"});
    }
    const bool restricted = !options.allowedPrograms.empty();
    const auto toolTimeout = options.maxTimeout + std::chrono::seconds(10);
    auto run = std::make_shared<ShellRun>(ShellRun{std::move(workspace), std::move(options)});
    tools::ParamOptions command;
    command.required = true;
    return tools::ToolBuilder::create("shell-execute")
        .description(
            std::string("Run a command in the workspace") +
            (restricted ? " (only the allowed programs, without a shell: no | ; > $())" : " with /bin/sh") +
            ". Returns JSON {exit_code, stdout, stderr, signal, timed_out}; a non-zero exit_code is a "
            "normal result to read.")
        .param("command", "string", restricted ? "The program and its arguments" : "The shell command line",
               std::move(command))
        .param("cwd", "string", "Working directory inside the workspace (default: its root)", {})
        .param("timeoutMs", "integer", "Time limit in milliseconds (default 30000)", {})
        .action([](const json& args) { return "Running " + args.value("command", std::string()); })
        .category("shell")
        .riskLevel(tools::RiskLevel::high)
        .sideEffect()
        .idempotent(false)  // a command line can do anything, twice
        .requiresApproval()
        .timeout(std::chrono::duration_cast<std::chrono::milliseconds>(toolTimeout))
        .handler([run](json args, ToolContext context) {
            return runShell(run, std::move(args), std::move(context));
        })
        .build();
}

expected<tools::Tool, ToolError> gitCliTool(std::shared_ptr<ExecutionAdapter> workspace,
                                            ProgramToolOptions options) {
    return programTool(
        std::move(workspace), std::move(options), "git-cli", "git",
        "Run a git subcommand in the workspace (status, log, diff, show, branch, commit, ...). Start "
        "with the subcommand: options before it (-c, -C, --git-dir) are refused, as are "
        "aliases, paths outside the workspace and options that run other programs. Reading "
        "commands run at once; the others ask the user first.",
        "\"log --oneline -10\"");
}

expected<tools::Tool, ToolError> ghCliTool(std::shared_ptr<ExecutionAdapter> workspace,
                                           ProgramToolOptions options) {
    return programTool(std::move(workspace), std::move(options), "gh-cli", "gh",
                       "Run a GitHub CLI (gh) subcommand; add --json <fields> for machine-readable output.",
                       "\"pr list --state open\"");
}

expected<tools::Tool, ToolError> gwsCliTool(std::shared_ptr<ExecutionAdapter> workspace,
                                            ProgramToolOptions options) {
    return programTool(std::move(workspace), std::move(options), "gws-cli", "gws",
                       "Run a Google Workspace CLI (gws) subcommand: Gmail, Calendar, Drive.",
                       "\"calendar events list\"");
}

}  // namespace reagent::builtins
