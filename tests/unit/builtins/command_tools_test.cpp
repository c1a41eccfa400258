// shell-execute and the program tools on a real workspace, with real processes.

#include "reagent/builtins/command_tools.hpp"

#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "workspace/secret_environment.hpp"
#include "workspace_fixture.hpp"

namespace {

using namespace reagent::builtins;
using nlohmann::json;
using reagent::builtins::test::contains;
using reagent::builtins::test::WorkspaceFixture;

reagent::tools::ToolResult call(const WorkspaceFixture& ws, const reagent::tools::Tool& tool, json args) {
    return ws.run(tool.handler(std::move(args), reagent::tools::ToolContext{}));
}

}  // namespace

TEST_CASE("splitCommandLine splits as a shell would without expanding", "[builtins][command]") {
    CHECK(splitCommandLine("log --oneline  -10").value() ==
          std::vector<std::string>{"log", "--oneline", "-10"});
    CHECK(splitCommandLine(R"(commit -m "a \"b\" c" 'd $e' f\ g)").value() ==
          std::vector<std::string>{"commit", "-m", R"(a "b" c)", "d $e", "f g"});
    CHECK(splitCommandLine("").value().empty());
    CHECK(splitCommandLine("a ''").value() == std::vector<std::string>{"a", ""});
    CHECK_FALSE(splitCommandLine("echo 'open"));
    CHECK_FALSE(splitCommandLine("echo \"open"));
}

TEST_CASE("shell-execute returns the exit status and output as JSON and checkpoints", "[builtins][command]") {
    WorkspaceFixture ws;
    const auto tool = shellExecuteTool(ws.workspace).value();
    CHECK(tool.definition.requiresApproval);
    auto ran = call(ws, tool, {{"command", "echo out; echo err >&2; echo made > new.txt; exit 4"}});
    REQUIRE(ran);
    const json result = json::parse(*ran);
    CHECK(result["exit_code"] == 4);
    CHECK(result["stdout"] == "out\n");
    CHECK(result["stderr"] == "err\n");
    CHECK(result["signal"].is_null());
    CHECK(result["timed_out"] == false);
    CHECK(result.contains("checkpoint"));
    CHECK(WorkspaceFixture::readFile(ws.root / "new.txt") == "made\n");

    auto slow = call(ws, tool, {{"command", "sleep 20"}, {"timeoutMs", 200}});
    REQUIRE(slow);
    CHECK(json::parse(*slow)["timed_out"] == true);
    auto outside = call(ws, tool, {{"command", "pwd"}, {"cwd", "../outside"}});
    REQUIRE_FALSE(outside);
    CHECK(contains(outside.error().message, "outside"));
}

TEST_CASE("shell-execute with an allowlist runs only those programs and without a shell",
          "[builtins][command]") {
    WorkspaceFixture ws;
    ShellToolOptions options;
    options.allowedPrograms = {"echo", "ls"};
    const auto tool = shellExecuteTool(ws.workspace, options).value();
    auto ran = call(ws, tool, {{"command", "echo 'a; rm -rf x' $(id)"}});
    REQUIRE(ran);
    CHECK(json::parse(*ran)["stdout"] == "a; rm -rf x $(id)\n");
    auto refused = call(ws, tool, {{"command", "rm -rf ."}});
    REQUIRE_FALSE(refused);
    CHECK(contains(refused.error().message, "'rm' is not an allowed program (allowed: echo, ls)"));
    auto bad = call(ws, tool, {{"command", "echo 'unterminated"}});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == reagent::tools::ToolErrc::invalid_arguments);
}

TEST_CASE("git-cli runs git in the workspace and reports failures with stderr", "[builtins][command]") {
    WorkspaceFixture ws;
    const auto tool = gitCliTool(ws.workspace).value();
    auto init = call(ws, tool, {{"command", "init -q -b main"}});
    if (!init && contains(init.error().message, "not installed")) {
        WARN("git is not installed: skipped");
        return;
    }
    REQUIRE(init);
    ws.file("a.txt", "a\n");
    auto status = call(ws, tool, {{"command", "status --short"}});
    REQUIRE(status);
    CHECK(contains(*status, "?? a.txt"));
    auto failed = call(ws, tool, {{"command", "checkout no-such-branch"}});
    REQUIRE_FALSE(failed);
    CHECK(contains(failed.error().message, "git failed (exit status"));
    CHECK(contains(failed.error().message, "no-such-branch"));
}

TEST_CASE("program tools cut long output and report a missing program at once", "[builtins][command]") {
    WorkspaceFixture ws;
    ProgramToolOptions options;
    options.maxOutputBytes = 100;
    options.path = "/nonexistent";
    auto missing = call(ws, gwsCliTool(ws.workspace, options).value(), {{"command", "calendar events list"}});
    REQUIRE_FALSE(missing);
    CHECK(contains(missing.error().message, "gws is not installed"));
    CHECK(contains(missing.error().message, "Do not retry"));

    options.path = "/usr/bin:/bin";
    auto git = gitCliTool(ws.workspace, options).value();
    auto help = call(ws, git, {{"command", "help -a"}});
    if (!help && contains(help.error().message, "not installed")) {
        WARN("git is not installed: skipped");
        return;
    }
    REQUIRE(help);
    CHECK(contains(*help, " more bytes cut]"));
    CHECK(help->size() < 200);
}

namespace {

// True when git is installed (a git-cli call can start it).
bool gitInstalled(const WorkspaceFixture& ws) {
    auto version = call(ws, gitCliTool(ws.workspace).value(), {{"command", "version"}});
    return version || !contains(version.error().message, "not installed");
}

bool asks(const reagent::tools::Tool& tool, const std::string& command) {
    REQUIRE(tool.definition.requiresApproval);
    REQUIRE(tool.definition.approvalRule);
    return tool.definition.approvalRule(json{{"command", command}});
}

}  // namespace

TEST_CASE("git-cli refuses an alias run through -c: nothing is created outside the workspace",
          "[builtins][command][git]") {
    WorkspaceFixture ws;
    if (!gitInstalled(ws)) {
        WARN("git is not installed: skipped");
        return;
    }
    const auto git = gitCliTool(ws.workspace).value();
    auto ran = call(ws, git, {{"command", "-c alias.x=!id>../pwned.txt x"}});
    REQUIRE_FALSE(ran);
    CHECK(ran.error().code == reagent::tools::ToolErrc::invalid_arguments);
    CHECK(contains(ran.error().message, "git options before the subcommand"));
    CHECK_FALSE(std::filesystem::exists(ws.temp.path / "pwned.txt"));
    CHECK_FALSE(std::filesystem::exists(ws.root / "pwned.txt"));
}

TEST_CASE("git-cli refuses every form that escapes the workspace or runs another program",
          "[builtins][command][git]") {
    WorkspaceFixture ws;
    const auto tool = gitCliTool(ws.workspace).value();
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"-C .. status", "options before the subcommand"},
        {"--git-dir=../outside status", "options before the subcommand"},
        {"--work-tree=.. status", "options before the subcommand"},
        {"--exec-path=/tmp version", "options before the subcommand"},
        {"--config-env=core.pager=X log", "options before the subcommand"},
        {"x", "'x' is not a git subcommand"},
        {"difftool", "'difftool' is not a git subcommand"},
        {"filter-branch --tree-filter id", "'filter-branch' is not a git subcommand"},
        {"instaweb", "'instaweb' is not a git subcommand"},
        {"daemon", "'daemon' is not a git subcommand"},
        {"credential fill", "'credential' is not a git subcommand"},
        {"web--browse http://x", "'web--browse' is not a git subcommand"},
        {"diff --no-index ../outside/secret.txt a.txt", "'--no-index' is not allowed"},
        {"diff /etc/passwd", "outside the workspace"},
        {"log -- ../outside", "outside the workspace"},
        {"config --global user.name x", "git config --global is not allowed"},
        {"config --system --list", "git config --system is not allowed"},
        {"config --file=../x a.b c", "git config --file is not allowed"},
        {"config -f x a.b c", "git config -f is not allowed"},
        {"fetch --upload-pack='id>x' origin", "'--upload-pack' is not allowed"},
        {"push --receive-pack=id origin", "'--receive-pack' is not allowed"},
        {"clone -u id x y", "'-u' is not allowed in git clone"},
        {"ls-remote --exec=id origin", "'--exec' is not allowed"},
        {"ls-remote -u id origin", "'-u' is not allowed in git ls-remote"},
        {"diff --ext-diff", "'--ext-diff' is not allowed"},
        {"log -p --textconv", "'--textconv' is not allowed"},
        {"bisect run id", "git bisect run runs a command"},
        {"rebase --exec id main", "'--exec' is not allowed"},
        {"rebase -x id main", "'-x' is not allowed in git rebase"},
        {"submodule foreach id", "git submodule foreach runs a command"},
        {"archive --remote=x HEAD", "'--remote' is not allowed"},
        {"diff --output=../x", "'--output' is not allowed"},
        {"clone --config core.fsmonitor=id x y", "'--config' is not allowed"},
        {"init --template=x", "'--template' is not allowed"},
        {"log --help", "'--help' is not allowed"},
        {"help log", "git help opens a manual viewer"},
        {"", "the git command is empty"},
    };
    for (const auto& [command, message] : refused) {
        CAPTURE(command);
        auto ran = call(ws, tool, {{"command", command}});
        REQUIRE_FALSE(ran);
        CHECK(ran.error().code == reagent::tools::ToolErrc::invalid_arguments);
        CHECK(contains(ran.error().message, message));
        CHECK_FALSE(asks(tool, command));  // refused at once, not asked about
    }
}

TEST_CASE("git-cli runs reading commands without approval and asks for the others",
          "[builtins][command][git]") {
    WorkspaceFixture ws;
    const auto tool = gitCliTool(ws.workspace).value();
    for (const std::string command :
         {"status", "status --short", "log --oneline -10", "diff HEAD~1..HEAD", "show HEAD", "branch",
          "branch --list 'feat*'", "branch -a -v", "tag", "tag -l", "remote -v", "config --get user.name",
          "rev-parse HEAD", "blame a.txt", "stash list", "git status", "help -a"}) {
        CAPTURE(command);
        CHECK_FALSE(asks(tool, command));
    }
    for (const std::string command :
         {"commit -m 'x'", "add .", "branch feature", "branch -D main", "tag v1", "push origin main",
          "checkout -- a.txt", "reset --hard", "config user.name x", "remote add o https://example.com/r",
          "stash", "stash pop", "clean -fdx", "fetch", "clone https://example.com/r"}) {
        CAPTURE(command);
        CHECK(asks(tool, command));
    }
    const auto gh = ghCliTool(ws.workspace).value();
    CHECK_FALSE(asks(gh, "pr list --state open"));
    CHECK(asks(gh, "pr view 3 --web"));
    CHECK(asks(gh, "pr merge 3"));
    CHECK(asks(gh, "api repos/o/r/issues -f title=x"));
    CHECK(asks(gwsCliTool(ws.workspace).value(), "calendar events list"));
}

TEST_CASE("git-cli runs git without the user's configuration, hooks or fsmonitor",
          "[builtins][command][git]") {
    WorkspaceFixture ws;
    auto tool = gitCliTool(ws.workspace).value();
    auto init = call(ws, tool, {{"command", "init -q -b main"}});
    if (!init && contains(init.error().message, "not installed")) {
        WARN("git is not installed: skipped");
        return;
    }
    REQUIRE(init);
    // A hook and an fsmonitor the repository's configuration names: neither runs.
    const auto marker = ws.temp.path / "ran.txt";
    ws.file(".git/hooks/pre-commit", "#!/bin/sh\necho hook >> " + marker.string() + "\n");
    std::filesystem::permissions(ws.root / ".git/hooks/pre-commit", std::filesystem::perms::owner_all);
    ws.file("monitor.sh", "#!/bin/sh\necho fsmonitor >> " + marker.string() + "\n");
    std::filesystem::permissions(ws.root / "monitor.sh", std::filesystem::perms::owner_all);
    REQUIRE(call(ws, tool, {{"command", "config core.fsmonitor ./monitor.sh"}}));
    ws.file("a.txt", "a\n");
    REQUIRE(call(ws, tool, {{"command", "config user.name T"}}));
    REQUIRE(call(ws, tool, {{"command", "config user.email t@example.com"}}));
    REQUIRE(call(ws, tool, {{"command", "add a.txt"}}));
    REQUIRE(call(ws, tool, {{"command", "commit -q -m first"}}));
    REQUIRE(call(ws, tool, {{"command", "status --short"}}));
    CHECK_FALSE(std::filesystem::exists(marker));

    // Only the repository's configuration is there: nothing from the user's home or the system.
    auto origins = call(ws, tool, {{"command", "config --list --show-origin"}});
    REQUIRE(origins);
    CHECK_FALSE(contains(*origins, "global"));
    CHECK_FALSE(contains(*origins, "/etc/gitconfig"));
    CHECK_FALSE(contains(*origins, ".gitconfig"));
}

TEST_CASE("isSecretVariable names the credentials by their words", "[builtins][command][environment]") {
    using reagent::builtins::detail::isSecretVariable;
    for (const char* name :
         {"OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
          "DB_PASSWORD", "my_secret", "NPM_CONFIG__AUTH", "GH_PAT", "SSH_AUTH_SOCK", "TOKEN"}) {
        CAPTURE(name);
        CHECK(isSecretVariable(name));
    }
    for (const char* name : {"PATH", "HOME", "LANG", "TERM", "KEYBOARD_LAYOUT", "MONKEY", "PWD", "EDITOR",
                             "DBUS_SESSION_BUS_ADDRESS", "TOKENIZERS_PARALLELISM"}) {
        CAPTURE(name);
        CHECK_FALSE(isSecretVariable(name));
    }
}

TEST_CASE("shell-execute and git-cli do not inherit credentials unless passed",
          "[builtins][command][environment]") {
    ::setenv("REAGENT_PROBE_API_KEY", "probe-secret", 1);
    ::setenv("REAGENT_PROBE_PLAIN", "plain-value", 1);
    {
        WorkspaceFixture ws;
        const auto shell = shellExecuteTool(ws.workspace).value();
        auto ran = call(ws, shell, {{"command", "env"}});
        REQUIRE(ran);
        CHECK_FALSE(contains(*ran, "probe-secret"));
        CHECK(contains(*ran, "REAGENT_PROBE_PLAIN=plain-value"));
    }
    {
        LocalWorkspaceConfig config;
        config.passEnvironment = {"REAGENT_PROBE_API_KEY"};
        WorkspaceFixture ws(config);
        auto ran = call(ws, shellExecuteTool(ws.workspace).value(), {{"command", "env"}});
        REQUIRE(ran);
        CHECK(contains(*ran, "REAGENT_PROBE_API_KEY=probe-secret"));
    }
    ::unsetenv("REAGENT_PROBE_API_KEY");
    ::unsetenv("REAGENT_PROBE_PLAIN");
}
