// code-execute: the snippet is written into a fresh temporary directory and run there by its interpreter,
// through the reagent-sandbox helper (Landlock) when the kernel allows, with only PATH and HOME set.

#include "reagent/builtins/code_execute.hpp"

#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "commands/program_lookup.hpp"
#include "commands/run_process.hpp"
#include "reagent/core/helper_program.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "tool_support.hpp"

namespace reagent::builtins {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using tools::ToolContext;
using tools::ToolError;
using tools::ToolResult;

struct Language {
    const char* name;
    const char* program;
    const char* file;
};

constexpr Language kLanguages[] = {
    {"sh", "sh", "main.sh"}, {"python3", "python3", "main.py"}, {"node", "node", "main.js"}};

/// The Landlock ABI that scopes signals and abstract Unix sockets (Linux 6.12).
constexpr int kScopedAbi = 6;

/// Device files interpreters open.
constexpr const char* kDevices[] = {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"};

[[nodiscard]] const Language* languageNamed(const std::string& name) {
    const std::string canonical = name == "python"                       ? "python3"
                                  : name == "javascript" || name == "js" ? "node"
                                  : name == "bash" || name == "shell"    ? "sh"
                                                                         : name;
    for (const Language& language : kLanguages) {
        if (canonical == language.name) {
            return &language;
        }
    }
    return nullptr;
}

// A unique, private (0700) directory for one run.
[[nodiscard]] expected<std::string, ToolError> makeTemporaryDirectory(const CodeExecuteOptions& options) {
    std::string root = options.temporaryRoot;
    if (root.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        root = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::string pattern = root + "/reagent-code-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        return fail(ToolError::failure("cannot make a temporary directory under " + root + ": " +
                                       std::strerror(errno)));
    }
    return pattern;
}

struct Run {
    CodeExecuteOptions options;
    SandboxSupport sandbox;
    std::string helper;
};

// How the code was confined, for the model and the trace.
[[nodiscard]] std::string sandboxSummary(const SandboxSupport& sandbox, bool allowNetwork) {
    if (sandbox.landlockAbi < 1) {
        return "none: " + sandbox.description + "; the code ran with the files and the network of this user";
    }
    std::string summary = sandbox.description + ": only its temporary directory is writable; ";
    summary += allowNetwork ? "the network is allowed; " : "no network; ";
    summary +=
        sandbox.landlockAbi >= kScopedAbi
            ? "signals and abstract Unix sockets stay inside"
            : "this kernel's Landlock (ABI < 6) lets it signal this user's processes and reach abstract "
              "Unix sockets";
    return summary;
}

Task<ToolResult> runCode(std::shared_ptr<const Run> run, json args, ToolContext) {
    const CodeExecuteOptions& options = run->options;
    const std::string languageName = args.value("language", std::string());
    const Language* language = languageNamed(languageName);
    if (language == nullptr) {
        co_return fail(
            ToolError::failure("unknown language '" + languageName + "': use sh, python3 or node"));
    }
    const auto timeout = detail::timeoutArg(args, options.defaultTimeout, options.maxTimeout);
    if (!timeout) {
        co_return fail(timeout.error());
    }
    const std::string interpreter = detail::findProgram(language->program, options.path);
    if (interpreter.empty()) {
        co_return fail(ToolError::failure(std::string(language->program) +
                                          " is not installed here (looked on " + options.path +
                                          "): use another language, and do not retry"));
    }
    if (run->sandbox.landlockAbi < 1 && options.requireSandbox) {
        co_return fail(ToolError::failure("code cannot be confined here (" + run->sandbox.description +
                                          ") and the sandbox is required: code-execute is unavailable"));
    }
    auto directory = makeTemporaryDirectory(options);
    if (!directory) {
        co_return fail(std::move(directory.error()));
    }
    const std::string file = *directory + "/" + language->file;
    {
        std::ofstream out(file, std::ios::binary);
        out << args.value("code", std::string());
        if (!out) {
            std::error_code ignored;
            fs::remove_all(*directory, ignored);
            co_return fail(ToolError::failure("cannot write the code into " + *directory));
        }
    }
    detail::ProcessSpec spec;
    spec.environment = {"PATH=" + options.path, "HOME=" + *directory, "TMPDIR=" + *directory, "LANG=C.UTF-8"};
    spec.workingDirectory = *directory;
    spec.timeout = *timeout;
    spec.maxOutputBytes = options.maxOutputBytes;
    if (run->sandbox.landlockAbi >= 1) {
        spec.program = run->helper;
        for (const auto& dir : options.readOnlyDirectories) {
            spec.args.insert(spec.args.end(), {"--read", dir});
        }
        // The interpreter's installation (/usr, or a prefix elsewhere such as /opt/node).
        spec.args.insert(spec.args.end(),
                         {"--read", fs::path(interpreter).parent_path().parent_path().string()});
        for (const char* device : kDevices) {
            spec.args.insert(spec.args.end(), {"--device", device});
        }
        if (!options.allowNetwork) {
            spec.args.emplace_back("--no-network");
        }
        spec.args.insert(spec.args.end(), {"--write", *directory, "--", interpreter, file});
    } else {
        spec.program = interpreter;
        spec.args = {file};
    }
    auto running = detail::runProcess(std::move(spec));
    auto ran = co_await std::move(running);
    std::error_code ignored;
    fs::remove_all(*directory, ignored);
    if (!ran) {
        co_return fail(ToolError::failure(ran.error().message));
    }
    if (run->sandbox.landlockAbi >= 1 && ran->exitCode == 125 &&
        ran->stderrText.rfind("reagent-sandbox:", 0) == 0) {
        co_return fail(ToolError::failure("the sandbox could not be set up: " + ran->stderrText));
    }
    json result = detail::commandResultJson(*ran);
    result["stdout_cut"] = ran->stdoutCut;
    result["stderr_cut"] = ran->stderrCut;
    result["sandbox"] = sandboxSummary(run->sandbox, options.allowNetwork);
    co_return detail::dumpToolJson(result);
}

}  // namespace

SandboxSupport sandboxSupport() {
    const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        return {0, std::string("the kernel offers no Landlock (") + std::strerror(errno) + ")"};
    }
    return {static_cast<int>(abi), "landlock (ABI " + std::to_string(abi) + ")"};
}

expected<tools::Tool, ToolError> codeExecuteTool(CodeExecuteOptions options) {
    if (options.defaultTimeout.count() <= 0 || options.maxTimeout < options.defaultTimeout ||
        options.maxOutputBytes == 0) {
        return fail(
            ToolError{tools::ToolErrc::invalid_arguments,
                      "code-execute: the timeouts must be positive (default <= max) and the output cap "
                      "positive"});
    }
    auto run = std::make_shared<Run>();
    run->sandbox = sandboxSupport();
    run->helper = options.sandboxHelper.empty()
                      ? helperProgramPath("reagent-sandbox", "REAGENT_SANDBOX_HELPER",
                                          REAGENT_SANDBOX_HELPER_INSTALLED, REAGENT_SANDBOX_HELPER_BUILD)
                      : options.sandboxHelper;
    const auto toolTimeout = options.maxTimeout + std::chrono::seconds(10);
    run->options = std::move(options);
    tools::ParamOptions language;
    language.required = true;
    language.enumValues = {"sh", "python3", "node"};
    tools::ParamOptions code;
    code.required = true;
    return tools::ToolBuilder::create("code-execute")
        .description(
            "Run a short program and get its output. It runs in a fresh empty temporary directory (its "
            "working directory and HOME, deleted afterwards) with only PATH set: no API keys, no access to "
            "the user's files, files outside that directory cannot be read or written, and (unless the "
            "user allowed it) no network. Returns JSON "
            "{exit_code, stdout, stderr, signal, timed_out, stdout_cut, stderr_cut, sandbox}; a non-zero "
            "exit_code is a normal result to read.")
        .param("language", "string", "The interpreter: sh, python3 or node", std::move(language))
        .param("code", "string", "The program text", std::move(code))
        .param("timeoutMs", "integer", "Time limit in milliseconds (default 30000)", {})
        .action([](const json& args) { return "Running " + args.value("language", std::string("code")); })
        .category("code")
        .riskLevel(tools::RiskLevel::medium)
        .requiresApproval()
        .timeout(std::chrono::duration_cast<std::chrono::milliseconds>(toolTimeout))
        .handler([run](json args, ToolContext context) {
            return runCode(run, std::move(args), std::move(context));
        })
        .build();
}

}  // namespace reagent::builtins
