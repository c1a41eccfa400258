// Every way out of the workspace is refused with outside_workspace and a message naming the rule.

#include <catch2/catch.hpp>

#include "files/file_io.hpp"
#include "workspace/workspace_root.hpp"
#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;

namespace {

void requireOutside(const WorkspaceError& error, const std::string& rule) {
    INFO(error.describe());
    CHECK(error.code == WorkspaceErrc::outside_workspace);
    CHECK(contains(error.message, rule));
}

}  // namespace

TEST_CASE("builtins confinement: creating a workspace needs an existing directory",
          "[builtins][confinement]") {
    reagent::test::TempDir temp;
    LocalWorkspaceConfig missing;
    missing.root = (temp.path / "nope").string();
    auto created = LocalWorkspace::create(missing);
    REQUIRE_FALSE(created);
    CHECK(created.error().code == WorkspaceErrc::not_found);
    CHECK(contains(created.error().message, "nope"));

    WorkspaceFixture::writeFile(temp.path / "plain.txt", "x");
    LocalWorkspaceConfig file;
    file.root = (temp.path / "plain.txt").string();
    auto notDirectory = LocalWorkspace::create(file);
    REQUIRE_FALSE(notDirectory);
    CHECK(notDirectory.error().code == WorkspaceErrc::not_a_directory);

    LocalWorkspaceConfig empty;
    CHECK(LocalWorkspace::create(empty).error().code == WorkspaceErrc::invalid_argument);
}

TEST_CASE("builtins confinement: a root given through a symbolic link is its real path",
          "[builtins][confinement]") {
    WorkspaceFixture fx;
    fs::create_symlink(fx.root, fx.temp.path / "alias");
    LocalWorkspaceConfig config;
    config.root = (fx.temp.path / "alias").string();
    auto created = LocalWorkspace::create(config);
    REQUIRE(created);
    CHECK((*created)->root() == fs::canonical(fx.root).string());
}

TEST_CASE("builtins confinement: '..' climbing out is refused", "[builtins][confinement]") {
    WorkspaceFixture fx;
    ReadFileRequest read;
    read.path = "../outside/secret.txt";
    auto result = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(result);
    requireOutside(result.error(), "climbs out of the workspace root with '..'");

    WriteFileRequest write;
    write.path = "sub/../../outside/new.txt";
    auto written = fx.run(fx.workspace->writeFile(write));
    REQUIRE_FALSE(written);
    requireOutside(written.error(), "'..'");
    CHECK_FALSE(fs::exists(fx.outside / "new.txt"));

    // `..` that stays inside is fine.
    fx.file("a/b.txt", "b\n");
    read.path = "a/../a/b.txt";
    auto inside = fx.run(fx.workspace->readFile(read));
    REQUIRE(inside);
    CHECK(inside->path == "a/b.txt");
}

TEST_CASE("builtins confinement: absolute paths must lie inside the root", "[builtins][confinement]") {
    WorkspaceFixture fx;
    ReadFileRequest read;
    read.path = (fx.outside / "secret.txt").string();
    auto result = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(result);
    requireOutside(result.error(), "is an absolute path outside the workspace root");

    read.path = "/etc/passwd";
    CHECK(fx.run(fx.workspace->readFile(read)).error().code == WorkspaceErrc::outside_workspace);

    fx.file("in.txt", "in\n");
    read.path = (fs::canonical(fx.root) / "in.txt").string();
    auto inside = fx.run(fx.workspace->readFile(read));
    REQUIRE(inside);
    CHECK(inside->path == "in.txt");
    CHECK(inside->content == "in\n");
}

TEST_CASE("builtins confinement: a sibling sharing the root's prefix is outside", "[builtins][confinement]") {
    WorkspaceFixture fx;
    ReadFileRequest read;
    read.path = (fs::canonical(fx.evil) / "secret.txt").string();
    auto absolute = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(absolute);
    requireOutside(absolute.error(), "outside the workspace root");

    read.path = "../ws-evil/secret.txt";
    auto relative = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(relative);
    requireOutside(relative.error(), "'..'");

    ListRequest list;
    list.path = fs::canonical(fx.evil).string();
    CHECK(fx.run(fx.workspace->list(list)).error().code == WorkspaceErrc::outside_workspace);
}

TEST_CASE("builtins confinement: a symbolic link to a file outside is refused", "[builtins][confinement]") {
    WorkspaceFixture fx;
    fx.link("leak.txt", fx.outside / "secret.txt");
    ReadFileRequest read;
    read.path = "leak.txt";
    auto result = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(result);
    requireOutside(result.error(), "symbolic link that points outside");

    EditFileRequest edit;
    edit.path = "leak.txt";
    edit.search = "top";
    edit.replace = "no";
    CHECK(fx.run(fx.workspace->editFile(edit)).error().code == WorkspaceErrc::outside_workspace);
    WriteFileRequest write;
    write.path = "leak.txt";
    write.content = "overwritten";
    CHECK(fx.run(fx.workspace->writeFile(write)).error().code == WorkspaceErrc::outside_workspace);
    CHECK(WorkspaceFixture::readFile(fx.outside / "secret.txt") == "top secret\n");
}

TEST_CASE("builtins confinement: a symbolic link to a directory outside is refused",
          "[builtins][confinement]") {
    WorkspaceFixture fx;
    fx.link("door", fx.outside);
    ReadFileRequest read;
    read.path = "door/secret.txt";
    requireOutside(fx.run(fx.workspace->readFile(read)).error(), "symbolic link");

    WriteFileRequest write;
    write.path = "door/new/deeper.txt";  // does not exist: its deepest existing ancestor is the link
    write.content = "x";
    requireOutside(fx.run(fx.workspace->writeFile(write)).error(), "symbolic link");
    CHECK_FALSE(fs::exists(fx.outside / "new"));

    ListRequest list;
    list.path = "door";
    CHECK(fx.run(fx.workspace->list(list)).error().code == WorkspaceErrc::outside_workspace);

    CommandRequest command;
    command.argv = {"pwd"};
    command.workingDirectory = "door";
    CHECK(fx.run(fx.workspace->execute(command)).error().code == WorkspaceErrc::outside_workspace);

    // Walks never follow the link.
    GlobRequest glob;
    glob.pattern = "**/*.txt";
    auto found = fx.run(fx.workspace->glob(glob));
    REQUIRE(found);
    CHECK(found->paths.empty());
    DirectoryMapRequest map;
    auto text = fx.run(fx.workspace->directoryMap(map));
    REQUIRE(text);
    CHECK_FALSE(contains(*text, "secret"));
    CHECK(contains(*text, "door -> "));
}

TEST_CASE("builtins confinement: a path through a symbolic link in a parent is resolved first",
          "[builtins][confinement]") {
    WorkspaceFixture fx;
    fx.file("sub/real/file.txt", "inner\n");
    fx.link("sub/up", "..");                     // points at the root: inside
    fx.link("sub/upup", "../..");                // points above the root: outside
    fx.link("alias", fx.root / "sub" / "real");  // absolute, inside

    ReadFileRequest read;
    read.path = "sub/up/sub/real/file.txt";
    auto inside = fx.run(fx.workspace->readFile(read));
    REQUIRE(inside);
    CHECK(inside->path == "sub/real/file.txt");

    read.path = "alias/file.txt";
    auto aliased = fx.run(fx.workspace->readFile(read));
    REQUIRE(aliased);
    CHECK(aliased->path == "sub/real/file.txt");

    read.path = "sub/upup/outside/secret.txt";
    requireOutside(fx.run(fx.workspace->readFile(read)).error(), "symbolic link");
    read.path = "sub/upup/ws-evil/secret.txt";
    requireOutside(fx.run(fx.workspace->readFile(read)).error(), "symbolic link");
}

TEST_CASE("builtins confinement: a component swapped for a link after the check is not followed",
          "[builtins][confinement]") {
    WorkspaceFixture fx;
    fx.file("sub/secret.txt", "inside\n");
    auto root = detail::WorkspaceRoot::open(fx.root.string());
    REQUIRE(root);
    auto resolved = root->resolve("sub/secret.txt");
    REQUIRE(resolved);
    // What an agent's command could do between the check and the use.
    fs::rename(fx.root / "sub", fx.root / "sub-moved");
    fs::create_symlink(fx.outside, fx.root / "sub");
    auto opened = detail::openForReading(*root, *resolved);
    REQUIRE_FALSE(opened);
    requireOutside(opened.error(), "made after the path was checked");

    // The last component swapped: refused as well.
    fx.file("last.txt", "inside\n");
    auto last = root->resolve("last.txt");
    REQUIRE(last);
    fs::remove(fx.root / "last.txt");
    fs::create_symlink(fx.outside / "secret.txt", fx.root / "last.txt");
    auto openedLast = detail::openForReading(*root, *last);
    REQUIRE_FALSE(openedLast);
    CHECK(openedLast.error().code == WorkspaceErrc::outside_workspace);
}

TEST_CASE("builtins confinement: a dangling link is not written through", "[builtins][confinement]") {
    WorkspaceFixture fx;
    fx.link("dangling", fx.outside / "created-by-link.txt");
    WriteFileRequest write;
    write.path = "dangling";
    write.content = "x";
    auto refused = fx.run(fx.workspace->writeFile(write));
    REQUIRE_FALSE(refused);
    requireOutside(refused.error(), "dangling link");
    CHECK_FALSE(fs::exists(fx.outside / "created-by-link.txt"));
}

TEST_CASE("builtins confinement: the file tools do not write into a .git directory",
          "[builtins][confinement]") {
    // A repository's configuration can name programs (filter drivers, an attributes file) that git-cli's
    // reading calls, which run without approval, would start.
    WorkspaceFixture fx;
    fs::create_directories(fx.root / ".git" / "info");
    WorkspaceFixture::writeFile(fx.root / ".git" / "config", "[core]\n");
    fs::create_directories(fx.root / "sub" / ".git");
    fx.link("gitlink", fx.root / ".git");

    EditFileRequest edit;
    edit.path = ".git/config";
    edit.search = "[core]";
    edit.replace = "[core]\n\tattributesFile = evil";
    auto edited = fx.run(fx.workspace->editFile(edit));
    REQUIRE_FALSE(edited);
    requireOutside(edited.error(), "inside a .git directory");
    CHECK(WorkspaceFixture::readFile(fx.root / ".git" / "config") == "[core]\n");

    for (const std::string path : {".git/info/attributes", "sub/.git/config", "gitlink/hooks/pre-commit"}) {
        WriteFileRequest write;
        write.path = path;
        write.content = "* filter=x";
        auto written = fx.run(fx.workspace->writeFile(write));
        INFO(path);
        REQUIRE_FALSE(written);
        requireOutside(written.error(), "inside a .git directory");
    }
    CHECK_FALSE(fs::exists(fx.root / ".git" / "info" / "attributes"));

    // A file merely named like it elsewhere is ordinary content.
    WriteFileRequest ordinary;
    ordinary.path = "notes/.gitignore";
    ordinary.content = "build/";
    CHECK(fx.run(fx.workspace->writeFile(ordinary)));
}

TEST_CASE("builtins confinement: glob patterns cannot leave the workspace", "[builtins][confinement]") {
    WorkspaceFixture fx;
    GlobRequest glob;
    glob.pattern = "../outside/*";
    requireOutside(fx.run(fx.workspace->glob(glob)).error(), "climbs with '..'");
    glob.pattern = "/etc/*";
    requireOutside(fx.run(fx.workspace->glob(glob)).error(), "absolute");
    glob.pattern = "*";
    glob.base = "..";
    requireOutside(fx.run(fx.workspace->glob(glob)).error(), "'..'");
}

TEST_CASE("builtins confinement: a checkpoint directory inside the root is refused",
          "[builtins][confinement]") {
    reagent::test::TempDir temp;
    LocalWorkspaceConfig config;
    config.root = temp.path.string();
    config.checkpointDirectory = (temp.path / "shadow").string();
    auto created = LocalWorkspace::create(config);
    REQUIRE_FALSE(created);
    CHECK(created.error().code == WorkspaceErrc::invalid_argument);
}
