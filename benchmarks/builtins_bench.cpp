// The cost of one file-read call through the agent-tools facade (`callTool`: JSON parsing, lookup, schema
// validation, executor, output bound), against the workspace read it wraps, on a 4 KiB file.

#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "reagent/reagent.hpp"

extern char** environ;

namespace {

using namespace reagent;
namespace fs = std::filesystem;

// A workspace with one 4 KiB text file, removed at the end.
struct Workspace {
    fs::path root;
    Workspace() {
        root = fs::temp_directory_path() / ("reagent-builtins-bench-" + std::to_string(::getpid()));
        fs::create_directories(root);
        std::ofstream out(root / "a.txt");
        for (int i = 0; i < 64; ++i) {
            out << "line " << i << ": " << std::string(56, 'x') << '\n';
        }
    }
    ~Workspace() { fs::remove_all(root); }
};

// Runs `task` to completion on `io`, reused across iterations.
template <class T>
void runOn(boost::asio::io_context& io, Task<T> task) {
    boost::asio::co_spawn(io, std::move(task), boost::asio::detached);
    io.run();
    io.restart();
}

void BM_WorkspaceReadFile(benchmark::State& state) {
    Workspace ws;
    builtins::LocalWorkspaceConfig config;
    config.root = ws.root.string();
    auto workspace = builtins::LocalWorkspace::create(config);
    if (!workspace) {
        throw std::runtime_error(workspace.error().describe());
    }
    boost::asio::io_context io;
    for (auto _ : state) {
        builtins::ReadFileRequest request;
        request.path = "a.txt";
        runOn(io, (*workspace)->readFile(std::move(request)));
    }
}
BENCHMARK(BM_WorkspaceReadFile)->Unit(benchmark::kMicrosecond);

// The tools facade on `ws`.
std::shared_ptr<builtins::AgentTools> facadeOn(const Workspace& ws) {
    builtins::AgentToolsConfig config;
    config.workspaceRoot = ws.root.string();
    auto tools = builtins::createAgentTools(config);
    if (!tools) {
        throw std::runtime_error(tools.error().describe());
    }
    return *tools;
}

void BM_CallToolFileRead(benchmark::State& state) {
    Workspace ws;
    auto tools = facadeOn(ws);
    boost::asio::io_context io;
    for (auto _ : state) {
        runOn(io, tools->callTool("file-read", R"({"path": "a.txt"})"));
    }
}
BENCHMARK(BM_CallToolFileRead)->Unit(benchmark::kMicrosecond);

void BM_CallToolBlockingFileRead(benchmark::State& state) {
    Workspace ws;
    auto tools = facadeOn(ws);
    for (auto _ : state) {
        benchmark::DoNotOptimize(tools->callToolBlocking("file-read", R"({"path": "a.txt"})"));
    }
}
BENCHMARK(BM_CallToolBlockingFileRead)->Unit(benchmark::kMicrosecond);

// code-execute's cost is mostly process start: `sh -c true` through the tool (a temporary directory, the
// code file, the Landlock helper's exec then the shell's), against a bare posix_spawn + waitpid of the
// same shell, the floor.
void BM_CodeExecute(benchmark::State& state) {
    auto tool = builtins::codeExecuteTool();
    if (!tool) {
        throw std::runtime_error(tool.error().describe());
    }
    state.SetLabel(builtins::sandboxSupport().description);
    boost::asio::io_context io;
    for (auto _ : state) {
        runOn(io, tool->handler(nlohmann::json{{"language", "sh"}, {"code", "true"}}, tools::ToolContext{}));
    }
}
BENCHMARK(BM_CodeExecute)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_BareSpawnShell(benchmark::State& state) {
    for (auto _ : state) {
        pid_t pid = 0;
        const char* argv[] = {"/bin/sh", "-c", "true", nullptr};
        if (::posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) {
            throw std::runtime_error("posix_spawn failed");
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
    }
}
BENCHMARK(BM_BareSpawnShell)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
