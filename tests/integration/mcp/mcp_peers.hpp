#pragma once
// Where the MCP test peers are, as ServerConfigs.

#include <dirent.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "peer_process.hpp"
#include "reagent/core/subprocess.hpp"
#include "reagent/mcp/server_config.hpp"

namespace reagent::test {

using reagent::mergedEnvironment;
using reagent::Subprocess;
using reagent::SubprocessOptions;

inline std::string mcpModule(const std::string& path) {
    return std::string(REAGENT_MCP_NODE_MODULES) + "/" + path;
}

/// server-everything over stdio.
inline mcp::ServerConfig everythingStdio(std::string name = "everything") {
    mcp::ServerConfig config;
    config.name = std::move(name);
    config.command = REAGENT_NODE;
    config.args = {mcpModule("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"};
    return config;
}

/// server-filesystem over stdio, allowed `directory`.
inline mcp::ServerConfig filesystemStdio(const std::string& directory, std::string name = "fs") {
    mcp::ServerConfig config;
    config.name = std::move(name);
    config.command = REAGENT_NODE;
    config.args = {mcpModule("@modelcontextprotocol/server-filesystem/dist/index.js"), directory};
    return config;
}

/// tests/peers/mcp_fault_server.py with `args`.
inline mcp::ServerConfig faultServer(std::vector<std::string> args = {}, std::string name = "fault") {
    mcp::ServerConfig config;
    config.name = std::move(name);
    config.command = REAGENT_PYTHON3;
    config.args = {std::string(REAGENT_PEERS_DIR) + "/mcp_fault_server.py"};
    config.args.insert(config.args.end(), args.begin(), args.end());
    config.reconnectDelay = std::chrono::milliseconds(20);
    return config;
}

/// A Node peer that serves MCP on a loopback port (server-everything in `streamableHttp` or `sse` mode,
/// the WebSocket bridge): started in its own process group with its output discarded, ready once the
/// port accepts connections; killed with its group and reaped by the destructor.
class NodePeer {
  public:
    /// `script` and `args` after node; `PORT` is set in its environment when `portInEnvironment`.
    NodePeer(std::string script, std::vector<std::string> args, bool portInEnvironment)
        : port_(unusedPort()) {
        std::string command = "exec '" + std::string(REAGENT_NODE) + "' '" + script + "'";
        for (const std::string& arg : args) {
            command += " '" + (arg == "{port}" ? std::to_string(port_) : arg) + "'";
        }
        command += " > /dev/null 2>&1";
        SubprocessOptions options;
        options.program = "/bin/sh";
        options.args = {"-c", command};
        if (portInEnvironment) {
            options.environment = mergedEnvironment({"PORT=" + std::to_string(port_)});
        }
        auto child = Subprocess::spawn(io_.get_executor(), options);
        if (!child) {
            throw std::runtime_error("cannot start " + script + ": " + child.error().message);
        }
        child_.emplace(std::move(*child));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
        while (!accepting()) {
            if (std::chrono::steady_clock::now() > deadline) {
                throw std::runtime_error(script + " did not listen on port " + std::to_string(port_));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    NodePeer(const NodePeer&) = delete;
    NodePeer& operator=(const NodePeer&) = delete;
    ~NodePeer() {
        if (child_) {
            child_->signalGroup(SIGKILL);
        }
        child_.reset();  // reaps
    }

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] std::string url(const std::string& scheme, const std::string& path) const {
        return scheme + "://127.0.0.1:" + std::to_string(port_) + path;
    }

  private:
    bool accepting() {
        boost::asio::ip::tcp::socket socket(io_);
        boost::system::error_code ec;
        socket.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
        return !ec;
    }

    boost::asio::io_context io_;
    std::uint16_t port_;
    std::optional<Subprocess> child_;
};

/// server-everything over streamable HTTP (`/mcp`) or the legacy SSE transport (`/sse`).
inline NodePeer everythingHttp(const std::string& mode) {
    return NodePeer(mcpModule("@modelcontextprotocol/server-everything/dist/index.js"), {mode}, true);
}

/// The WebSocket bridge to server-everything (`ws://.../mcp`, subprotocol mcp).
inline NodePeer everythingWebSocket() {
    return NodePeer(std::string(REAGENT_PEERS_DIR) + "/mcp/ws_bridge.mjs", {"{port}"}, false);
}

/// Child processes of this process that are still alive or unreaped (zombies count).
inline std::vector<int> childProcesses() {
    std::vector<int> children;
    const int self = static_cast<int>(::getpid());
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) {
        return children;
    }
    while (dirent* entry = ::readdir(proc)) {
        const int pid = std::atoi(entry->d_name);
        if (pid <= 0) {
            continue;
        }
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        if (close == std::string::npos) {
            continue;
        }
        char state = 0;
        int parent = 0;
        if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &parent) == 2 && parent == self) {
            children.push_back(pid);
        }
    }
    ::closedir(proc);
    return children;
}

}  // namespace reagent::test
