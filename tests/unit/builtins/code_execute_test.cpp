// code-execute: real interpreters in real temporary directories, confined by Landlock when the kernel
// offers it; what the code must not reach is checked from inside the code itself.

#include "reagent/builtins/code_execute.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace {

namespace builtins = reagent::builtins;
using nlohmann::json;

struct Outcome {
    bool ok = false;
    json result;
    std::string error;
};

Outcome run(const reagent::tools::Tool& tool, json args) {
    auto called = reagent::test::runCoro(tool.handler(std::move(args), reagent::tools::ToolContext{}));
    Outcome outcome;
    outcome.ok = called.has_value();
    if (called) {
        outcome.result = json::parse(*called);
    } else {
        outcome.error = called.error().message;
    }
    return outcome;
}

const reagent::tools::Tool& codeExecute() {
    static const reagent::tools::Tool tool = builtins::codeExecuteTool().value();
    return tool;
}

bool confined() {
    return builtins::sandboxSupport().landlockAbi >= 1;
}

}  // namespace

TEST_CASE("code-execute runs sh and python3 and reports how it confined them", "[builtins][code-execute]") {
    auto sh = run(codeExecute(), {{"language", "sh"}, {"code", "echo hello; pwd; echo \"$HOME\"; exit 3"}});
    REQUIRE(sh.ok);
    CHECK(sh.result["exit_code"] == 3);
    const std::string out = sh.result["stdout"];
    CHECK(out.rfind("hello\n", 0) == 0);
    CHECK(out.find("reagent-code-") != std::string::npos);  // a fresh directory, also HOME
    CHECK(sh.result["timed_out"] == false);
    const std::string sandbox = sh.result["sandbox"];
    CHECK(sandbox.find(confined() ? "landlock" : "none") == 0);

    auto py = run(codeExecute(),
                  {{"language", "python3"}, {"code", "import sys\nprint(6*7)\nsys.stderr.write('e')"}});
    REQUIRE(py.ok);
    CHECK(py.result["stdout"] == "42\n");
    CHECK(py.result["stderr"] == "e");
    // The directory is gone afterwards.
    const std::string dir =
        out.substr(out.find('\n') + 1, out.find('\n', out.find('\n') + 1) - out.find('\n') - 1);
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("code-execute code cannot read the agent's secrets or the user's files",
          "[builtins][code-execute]") {
    if (!confined()) {
        WARN("the kernel offers no Landlock: the confinement is not tested here");
        return;
    }
    ::setenv("REAGENT_TEST_SECRET", "sk-very-secret", 1);
    reagent::test::TempDir outside;
    const std::string private_file = (outside.path / "private.txt").string();
    std::ofstream(private_file) << "private data";
    const std::string code =
        "echo \"env:$REAGENT_TEST_SECRET\"\n"
        "cat /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n' | grep SECRET\n"
        "cat " +
        private_file +
        " 2>&1\n"
        "echo x > " +
        (outside.path / "written.txt").string() +
        " 2>&1\n"
        "ls / >/dev/null && echo listed-root\n"
        "echo inside > mine.txt && cat mine.txt\n";
    auto ran = run(codeExecute(), {{"language", "sh"}, {"code", code}});
    REQUIRE(ran.ok);
    const std::string out = ran.result["stdout"].get<std::string>() + ran.result["stderr"].get<std::string>();
    INFO(out);
    CHECK(out.find("env:\n") != std::string::npos);
    CHECK(out.find("sk-very-secret") == std::string::npos);
    CHECK(out.find("private data") == std::string::npos);
    CHECK(out.find("Permission denied") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(outside.path / "written.txt"));
    CHECK(out.find("listed-root") == std::string::npos);
    CHECK(out.find("inside") != std::string::npos);
}

TEST_CASE("code-execute kills the code's whole group at its time limit", "[builtins][code-execute]") {
    const auto start = std::chrono::steady_clock::now();
    auto ran = run(codeExecute(), {{"language", "sh"}, {"code", "sleep 30 & sleep 30"}, {"timeoutMs", 300}});
    REQUIRE(ran.ok);
    CHECK(ran.result["timed_out"] == true);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("code-execute bounds the output and says how much was cut", "[builtins][code-execute]") {
    builtins::CodeExecuteOptions options;
    options.maxOutputBytes = 1000;
    const auto tool = builtins::codeExecuteTool(options).value();
    auto ran = run(tool, {{"language", "sh"}, {"code", "yes | head -c 100000"}});
    REQUIRE(ran.ok);
    CHECK(ran.result["stdout"].get<std::string>().size() == 1000);
    CHECK(ran.result["stdout_cut"] == 99000);
}

TEST_CASE("code-execute refuses unknown languages and bad limits with clear errors",
          "[builtins][code-execute]") {
    auto unknown = run(codeExecute(), {{"language", "cobol"}, {"code", "x"}});
    REQUIRE_FALSE(unknown.ok);
    CHECK(unknown.error.find("use sh, python3 or node") != std::string::npos);
    auto tooLong = run(codeExecute(), {{"language", "sh"}, {"code", "true"}, {"timeoutMs", 10'000'000}});
    REQUIRE_FALSE(tooLong.ok);
    CHECK(tooLong.error.find("timeoutMs") != std::string::npos);
    builtins::CodeExecuteOptions nowhere;
    nowhere.path = "/nonexistent";
    auto missing = run(builtins::codeExecuteTool(nowhere).value(), {{"language", "python3"}, {"code", "1"}});
    REQUIRE_FALSE(missing.ok);
    CHECK(missing.error.find("not installed") != std::string::npos);
    builtins::CodeExecuteOptions bad;
    bad.maxOutputBytes = 0;
    CHECK_FALSE(builtins::codeExecuteTool(bad));
}

TEST_CASE("code-execute runs node when it is installed", "[builtins][code-execute]") {
    auto ran = run(codeExecute(),
                   {{"language", "node"}, {"code", "console.log([1,2,3].map(x => x * 2).join(','))"}});
    if (!ran.ok && ran.error.find("not installed") != std::string::npos) {
        WARN("node is not installed: skipped");
        return;
    }
    REQUIRE(ran.ok);
    CHECK(ran.result["stdout"] == "2,4,6\n");
}
