#pragma once
// Where the MCP test peers are, as ServerConfigs.

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/mcp/server_config.hpp"

namespace reagent::test {

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
