#pragma once
// A workspace for tests: <temp>/ws (the root), <temp>/ws-evil (a sibling sharing its prefix) and
// <temp>/outside, each a real directory, with helpers to make files and links and to run tasks.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "reagent/builtins/local_workspace.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace reagent::builtins::test {

namespace fs = std::filesystem;

struct WorkspaceFixture {
    reagent::test::TempDir temp;
    fs::path root;
    fs::path evil;
    fs::path outside;
    std::shared_ptr<LocalWorkspace> workspace;

    explicit WorkspaceFixture(LocalWorkspaceConfig config = {}) {
        root = temp.path / "ws";
        evil = temp.path / "ws-evil";
        outside = temp.path / "outside";
        fs::create_directories(root);
        fs::create_directories(evil);
        fs::create_directories(outside);
        writeFile(outside / "secret.txt", "top secret\n");
        writeFile(evil / "secret.txt", "evil secret\n");
        config.root = root.string();
        auto created = LocalWorkspace::create(std::move(config));
        REQUIRE(created);
        workspace = *created;
    }

    static void writeFile(const fs::path& path, const std::string& content) {
        fs::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary);
        out << content;
    }

    static std::string readFile(const fs::path& path) {
        std::ifstream in(path, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    /// Makes `<root>/<relative>` with `content`.
    void file(const std::string& relative, const std::string& content) const {
        writeFile(root / relative, content);
    }

    /// Makes the symbolic link `<root>/<relative>` pointing at `target`.
    void link(const std::string& relative, const fs::path& target) const {
        fs::create_directories((root / relative).parent_path());
        fs::create_symlink(target, root / relative);
    }

    template <class T>
    T run(Task<T> task) const {
        return reagent::test::runCoro(std::move(task));
    }
};

/// True when `text` contains `part`.
inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// True when a process `pid` exists and is not a zombie.
inline bool processAlive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) {
        return false;
    }
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

}  // namespace reagent::builtins::test
