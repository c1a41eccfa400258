#pragma once
// Lists this process's children from /proc, to check that transforms leave no process behind.

#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace reagent::test {

struct ChildProcess {
    pid_t pid = 0;
    pid_t processGroup = 0;
    char state = '?';  // 'Z' for a zombie
};

/// The children (running or zombie) of the calling process.
inline std::vector<ChildProcess> childProcesses() {
    std::vector<ChildProcess> children;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream file(entry.path() / "stat");
        std::string stat;
        if (!std::getline(file, stat)) {
            continue;
        }
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so skip to the last ')'.
        const auto close = stat.rfind(')');
        if (close == std::string::npos) {
            continue;
        }
        std::istringstream rest(stat.substr(close + 1));
        ChildProcess child;
        pid_t parent = 0;
        rest >> child.state >> parent >> child.processGroup;
        if (parent == ::getpid()) {
            child.pid = static_cast<pid_t>(std::stol(name));
            children.push_back(child);
        }
    }
    return children;
}

}  // namespace reagent::test
