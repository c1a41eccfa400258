// code-execute: real interpreters in real temporary directories, confined by Landlock when the kernel
// offers it; what the code must not reach is checked from inside the code itself.

#include "reagent/builtins/code_execute.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

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

const reagent::tools::Tool& withNetwork() {
    static const reagent::tools::Tool tool = [] {
        builtins::CodeExecuteOptions options;
        options.allowNetwork = true;
        return builtins::codeExecuteTool(options).value();
    }();
    return tool;
}

// A listening socket that closes itself.
struct Listener {
    int fd = -1;
    ~Listener() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

// Python that connects to `address` (a TCP port on 127.0.0.1, or an abstract Unix name) and prints
// "connected" or "refused <errno>".
std::string connectCode(const std::string& family, const std::string& address) {
    return "import socket\n"
           "s = socket.socket(socket." +
           family +
           ", socket.SOCK_STREAM)\n"
           "try:\n"
           "    s.connect(" +
           address +
           ")\n"
           "    print('connected')\n"
           "except OSError as e:\n"
           "    print('refused', e.errno)\n";
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

TEST_CASE("code-execute requires approval", "[builtins][code-execute]") {
    CHECK(codeExecute().definition.requiresApproval);
}

TEST_CASE("code-execute code has no network unless the tool allows it", "[builtins][code-execute]") {
    if (!confined()) {
        WARN("the kernel offers no Landlock: the code runs unconfined and with the network");
        return;
    }
    Listener listener;
    listener.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener.fd, 4) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    const std::string code =
        connectCode("AF_INET", "('127.0.0.1', " + std::to_string(ntohs(address.sin_port)) + ")");

    auto cut = run(codeExecute(), {{"language", "python3"}, {"code", code}});
    REQUIRE(cut.ok);
    INFO(cut.result.dump());
    const std::string refused = cut.result["stdout"];
    CHECK(refused.rfind("refused", 0) == 0);  // ENETUNREACH: a namespace whose loopback is down
    CHECK(cut.result["sandbox"].get<std::string>().find("no network") != std::string::npos);

    auto allowed = run(withNetwork(), {{"language", "python3"}, {"code", code}});
    REQUIRE(allowed.ok);
    CHECK(allowed.result["stdout"] == "connected\n");
}

TEST_CASE("code-execute code cannot signal a process outside its sandbox nor reach an abstract socket",
          "[builtins][code-execute]") {
    if (builtins::sandboxSupport().landlockAbi < 6) {
        WARN("the kernel's Landlock has no scopes (ABI < 6): not tested here");
        return;
    }
    // A process of this user outside the sandbox.
    const pid_t victim = ::fork();
    REQUIRE(victim >= 0);
    if (victim == 0) {
        ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const std::string code =
        "kill -KILL " + std::to_string(victim) + "; echo \"victim=$?\"; kill -KILL $PPID; echo \"parent=$?\"";
    auto ran = run(codeExecute(), {{"language", "sh"}, {"code", code}});
    int victimStatus = 0;
    const bool victimAlive = ::waitpid(victim, &victimStatus, WNOHANG) == 0;  // not exited (nor killed)
    ::kill(victim, SIGKILL);
    ::waitpid(victim, nullptr, 0);
    REQUIRE(ran.ok);
    INFO(ran.result.dump());
    CHECK(victimAlive);
    CHECK(ran.result["stdout"] == "victim=1\nparent=1\n");
    CHECK(ran.result["stderr"].get<std::string>().find("not permitted") != std::string::npos);
    CHECK(ran.result["sandbox"].get<std::string>().find("signals and abstract Unix sockets stay inside") !=
          std::string::npos);

    // An abstract socket outside: refused (EPERM) even with the network allowed (an own network namespace
    // would hide it anyway).
    Listener listener;
    listener.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const std::string name = "reagent-test-" + std::to_string(::getpid());
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    name.copy(address.sun_path + 1, name.size());
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    REQUIRE(::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), length) == 0);
    REQUIRE(::listen(listener.fd, 4) == 0);
    auto reached =
        run(withNetwork(), {{"language", "python3"}, {"code", connectCode("AF_UNIX", "'\\0" + name + "'")}});
    REQUIRE(reached.ok);
    INFO(reached.result.dump());
    CHECK(reached.result["stdout"] == "refused 1\n");
}
