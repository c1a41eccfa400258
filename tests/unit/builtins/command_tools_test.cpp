// shell-execute and the program tools on a real workspace, with real processes.

#include "reagent/builtins/command_tools.hpp"

#include <nlohmann/json.hpp>

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
