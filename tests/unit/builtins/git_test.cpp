// Git repository information and checkpoints with rollback, on real repositories made by git.

#include <catch2/catch.hpp>
#include <cstdlib>

#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;

namespace {

bool haveGit() {
    return std::system("git --version > /dev/null 2>&1") == 0;
}

/// Runs git in `directory` with a fixed identity and no user configuration.
void git(const fs::path& directory, const std::string& args) {
    const std::string command = "cd '" + directory.string() +
                                "' && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c user.name=t "
                                "-c user.email=t@example.com " +
                                args + " > /dev/null 2>&1";
    REQUIRE(std::system(command.c_str()) == 0);
}

#define REQUIRE_GIT()                               \
    if (!haveGit()) {                               \
        WARN("git is not installed: test skipped"); \
        return;                                     \
    }

}  // namespace

TEST_CASE("builtins git: a directory outside any repository", "[builtins][git]") {
    REQUIRE_GIT();
    WorkspaceFixture fx;
    auto info = fx.run(fx.workspace->gitInfo());
    REQUIRE_FALSE(info);
    CHECK(info.error().code == WorkspaceErrc::not_a_repository);
    CHECK(contains(info.error().message, "is not inside a git repository"));
}

TEST_CASE("builtins git: branch, commit, dirtiness and remote of a repository", "[builtins][git]") {
    REQUIRE_GIT();
    WorkspaceFixture fx;
    git(fx.root, "init -q -b trunk");
    auto empty = fx.run(fx.workspace->gitInfo());
    REQUIRE(empty);
    CHECK(empty->currentBranch == "trunk");
    CHECK(empty->commitSha.empty());
    CHECK_FALSE(empty->isDirty);
    CHECK_FALSE(empty->remoteUrl);

    fx.file("a.txt", "a\n");
    git(fx.root, "add a.txt");
    git(fx.root, "commit -q -m first");
    git(fx.root, "remote add origin https://example.com/repo.git");
    auto clean = fx.run(fx.workspace->gitInfo());
    REQUIRE(clean);
    CHECK(clean->rootPath == fs::canonical(fx.root).string());
    CHECK(clean->commitSha.size() == 40);
    CHECK_FALSE(clean->isDirty);
    CHECK(clean->remoteUrl == std::string("https://example.com/repo.git"));

    fx.file("a.txt", "changed\n");
    auto dirty = fx.run(fx.workspace->gitInfo());
    REQUIRE(dirty);
    CHECK(dirty->isDirty);

    git(fx.root, "checkout -q --detach");
    auto detached = fx.run(fx.workspace->gitInfo());
    REQUIRE(detached);
    CHECK(detached->currentBranch == "HEAD");
}

TEST_CASE("builtins checkpoints: rollback removes created, restores modified and recreates deleted files",
          "[builtins][checkpoints]") {
    REQUIRE_GIT();
    WorkspaceFixture fx;
    fx.file("keep.txt", "keep\n");
    fx.file("modify.txt", "before\n");
    fx.file("dir/delete.txt", "deleted later\n");

    auto checkpoint = fx.run(fx.workspace->checkpoint("start"));
    REQUIRE(checkpoint);
    CHECK(checkpoint->id.size() == 40);
    CHECK(checkpoint->label == "start");

    fx.file("modify.txt", "after\n");
    fs::remove(fx.root / "dir/delete.txt");
    fx.file("new/created.txt", "new\n");

    auto rolled = fx.run(fx.workspace->rollback(checkpoint->id));
    REQUIRE(rolled);
    CHECK(rolled->restored == std::vector<std::string>{"modify.txt"});
    CHECK(rolled->removed == std::vector<std::string>{"new/created.txt"});
    CHECK(rolled->recreated == std::vector<std::string>{"dir/delete.txt"});
    CHECK(WorkspaceFixture::readFile(fx.root / "modify.txt") == "before\n");
    CHECK(WorkspaceFixture::readFile(fx.root / "dir/delete.txt") == "deleted later\n");
    CHECK(WorkspaceFixture::readFile(fx.root / "keep.txt") == "keep\n");
    CHECK_FALSE(fs::exists(fx.root / "new/created.txt"));
    // The shadow repository lives outside the workspace.
    CHECK_FALSE(fs::exists(fx.root / ".git"));

    // The rollback itself can be undone.
    REQUIRE(rolled->undoId.size() == 40);
    auto undone = fx.run(fx.workspace->rollback(rolled->undoId));
    REQUIRE(undone);
    CHECK(WorkspaceFixture::readFile(fx.root / "modify.txt") == "after\n");
    CHECK(WorkspaceFixture::readFile(fx.root / "new/created.txt") == "new\n");
    CHECK_FALSE(fs::exists(fx.root / "dir/delete.txt"));
}

TEST_CASE("builtins checkpoints: mutating operations record one when asked", "[builtins][checkpoints]") {
    REQUIRE_GIT();
    WorkspaceFixture fx;
    fx.file("a.txt", "one\n");

    WriteFileRequest write;
    write.path = "a.txt";
    write.content = "two\n";
    write.checkpoint = true;
    auto written = fx.run(fx.workspace->writeFile(write));
    REQUIRE(written);
    REQUIRE(written->checkpointId);

    EditFileRequest edit;
    edit.path = "a.txt";
    edit.search = "two";
    edit.replace = "three";
    edit.checkpoint = true;
    auto edited = fx.run(fx.workspace->editFile(edit));
    REQUIRE(edited);
    REQUIRE(edited->checkpointId);

    CommandRequest command;
    command.shell = "rm a.txt";
    command.checkpoint = true;
    auto ran = fx.run(fx.workspace->execute(command));
    REQUIRE(ran);
    REQUIRE(ran->checkpointId);
    CHECK_FALSE(fs::exists(fx.root / "a.txt"));

    REQUIRE(fx.run(fx.workspace->rollback(*ran->checkpointId)));
    CHECK(WorkspaceFixture::readFile(fx.root / "a.txt") == "three\n");
    REQUIRE(fx.run(fx.workspace->rollback(*edited->checkpointId)));
    CHECK(WorkspaceFixture::readFile(fx.root / "a.txt") == "two\n");
    REQUIRE(fx.run(fx.workspace->rollback(*written->checkpointId)));
    CHECK(WorkspaceFixture::readFile(fx.root / "a.txt") == "one\n");
    // Later checkpoints stay valid after rolling back further.
    REQUIRE(fx.run(fx.workspace->rollback(*ran->checkpointId)));
    CHECK(WorkspaceFixture::readFile(fx.root / "a.txt") == "three\n");
}

TEST_CASE("builtins checkpoints: unknown ids are refused", "[builtins][checkpoints]") {
    REQUIRE_GIT();
    WorkspaceFixture fx;
    auto before = fx.run(fx.workspace->rollback("0123456789abcdef0123456789abcdef01234567"));
    REQUIRE_FALSE(before);
    CHECK(before.error().code == WorkspaceErrc::not_found);
    REQUIRE(fx.run(fx.workspace->checkpoint("x")));
    auto option = fx.run(fx.workspace->rollback("--help"));
    REQUIRE_FALSE(option);
    CHECK(option.error().code == WorkspaceErrc::not_found);
    auto unknown = fx.run(fx.workspace->rollback("0123456789abcdef0123456789abcdef01234567"));
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == WorkspaceErrc::not_found);
}

TEST_CASE("builtins checkpoints: a workspace that is a git repository keeps its own repository intact",
          "[builtins][checkpoints]") {
    REQUIRE_GIT();
    WorkspaceFixture fx;
    git(fx.root, "init -q -b main");
    fx.file("tracked.txt", "v1\n");
    fx.file(".gitignore", "build/\n");
    git(fx.root, "add -A");
    git(fx.root, "commit -q -m first");
    const std::string head = WorkspaceFixture::readFile(fx.root / ".git/refs/heads/main");

    auto checkpoint = fx.run(fx.workspace->checkpoint("start"));
    REQUIRE(checkpoint);
    fx.file("tracked.txt", "v2\n");
    fx.file("build/out.o", "ignored\n");
    auto rolled = fx.run(fx.workspace->rollback(checkpoint->id));
    REQUIRE(rolled);
    CHECK(WorkspaceFixture::readFile(fx.root / "tracked.txt") == "v1\n");
    // Ignored files are outside checkpoints: left as they are.
    CHECK(fs::exists(fx.root / "build/out.o"));
    CHECK(WorkspaceFixture::readFile(fx.root / ".git/refs/heads/main") == head);
    auto info = fx.run(fx.workspace->gitInfo());
    REQUIRE(info);
    CHECK_FALSE(info->isDirty);
}

TEST_CASE("builtins checkpoints: a configured directory keeps them across workspace objects",
          "[builtins][checkpoints]") {
    REQUIRE_GIT();
    reagent::test::TempDir state;
    LocalWorkspaceConfig config;
    config.checkpointDirectory = (state.path / "checkpoints").string();
    WorkspaceFixture fx(config);
    fx.file("a.txt", "one\n");
    auto checkpoint = fx.run(fx.workspace->checkpoint("start"));
    REQUIRE(checkpoint);
    fx.file("a.txt", "two\n");

    config.root = fx.root.string();
    auto reopened = LocalWorkspace::create(config);
    REQUIRE(reopened);
    auto rolled = fx.run((*reopened)->rollback(checkpoint->id));
    REQUIRE(rolled);
    CHECK(WorkspaceFixture::readFile(fx.root / "a.txt") == "one\n");
}
