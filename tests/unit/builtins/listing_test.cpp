// Listing, glob and the directory map of a local workspace; GlobPattern on its own.

#include <catch2/catch.hpp>

#include "reagent/builtins/glob_pattern.hpp"
#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;

TEST_CASE("builtins glob pattern: components, double star and braces", "[builtins][glob]") {
    CHECK(GlobPattern("*.cpp").matches("a.cpp"));
    CHECK_FALSE(GlobPattern("*.cpp").matches("src/a.cpp"));
    CHECK(GlobPattern("**/*.cpp").matches("a.cpp"));
    CHECK(GlobPattern("**/*.cpp").matches("src/deep/a.cpp"));
    CHECK(GlobPattern("src/**/*.cpp").matches("src/a.cpp"));
    CHECK(GlobPattern("src/**/*.cpp").matches("src/x/y/a.cpp"));
    CHECK_FALSE(GlobPattern("src/**/*.cpp").matches("lib/a.cpp"));
    CHECK(GlobPattern("src/**").matches("src/x/y"));
    CHECK(GlobPattern("?.txt").matches("a.txt"));
    CHECK_FALSE(GlobPattern("?.txt").matches("ab.txt"));
    CHECK(GlobPattern("[ab].txt").matches("b.txt"));
    CHECK_FALSE(GlobPattern("[!ab].txt").matches("b.txt"));
    CHECK(GlobPattern("*.{md,txt}").matches("notes.md"));
    CHECK(GlobPattern("*.{md,txt}").matches("notes.txt"));
    CHECK_FALSE(GlobPattern("*.{md,txt}").matches("notes.rst"));
    CHECK(GlobPattern("{src,lib/{a,b}}/*.h").matches("lib/b/x.h"));
    CHECK(GlobPattern("./src/*.h").matches("src/x.h"));

    CHECK(GlobPattern("src/*.cpp").mayMatchUnder("src"));
    CHECK_FALSE(GlobPattern("src/*.cpp").mayMatchUnder("docs"));
    CHECK_FALSE(GlobPattern("src/*.cpp").mayMatchUnder("src/deeper"));
    CHECK(GlobPattern("**/*.cpp").mayMatchUnder("any/where"));
    CHECK(GlobPattern("s*/**/x").mayMatchUnder("src/a/b"));
}

TEST_CASE("builtins listing: entries sorted with the seed's fields", "[builtins][listing]") {
    WorkspaceFixture fx;
    fx.file("b.txt", "12345");
    fx.file("a/inner.txt", "x");
    fx.file(".hidden", "h");
    fx.link("link", "b.txt");
    fs::permissions(fx.root / "b.txt", fs::perms(0644));

    ListRequest list;
    auto listed = fx.run(fx.workspace->list(list));
    REQUIRE(listed);
    CHECK(listed->path == ".");
    REQUIRE(listed->entries.size() == 3);
    const FileEntry& directory = listed->entries[0];
    CHECK(directory.name == "a");
    CHECK(directory.isDirectory);
    CHECK_FALSE(directory.isFile);
    const FileEntry& file = listed->entries[1];
    CHECK(file.name == "b.txt");
    CHECK(file.isFile);
    CHECK(file.size == 5u);
    CHECK(file.permissions == "rw-r--r--");
    REQUIRE(file.modified);
    CHECK(file.modified->size() == 20);
    CHECK(file.modified->back() == 'Z');
    const FileEntry& link = listed->entries[2];
    CHECK(link.name == "link");
    CHECK(link.isSymbolicLink);
    CHECK_FALSE(link.isFile);

    list.showHidden = true;
    list.details = false;
    list.maxEntries = 2;
    auto hidden = fx.run(fx.workspace->list(list));
    REQUIRE(hidden);
    REQUIRE(hidden->entries.size() == 2);
    CHECK(hidden->entries[0].name == ".hidden");
    CHECK_FALSE(hidden->entries[0].size);
    CHECK(hidden->omitted == 2);

    list.path = "a";
    auto sub = fx.run(fx.workspace->list(list));
    REQUIRE(sub);
    CHECK(sub->path == "a");
    list.path = "b.txt";
    CHECK(fx.run(fx.workspace->list(list)).error().code == WorkspaceErrc::not_a_directory);
    list.path = "nothing";
    CHECK(fx.run(fx.workspace->list(list)).error().code == WorkspaceErrc::not_found);
}

TEST_CASE("builtins listing: glob finds files by pattern", "[builtins][listing][glob]") {
    WorkspaceFixture fx;
    fx.file("README.md", "r");
    fx.file("notes.txt", "n");
    fx.file("src/main.cpp", "m");
    fx.file("src/util/strings.cpp", "s");
    fx.file("src/util/strings.hpp", "h");
    fx.file(".git/config", "c");
    fx.file(".github/ci.cpp", "c");

    GlobRequest glob;
    glob.pattern = "**/*.cpp";
    auto cpp = fx.run(fx.workspace->glob(glob));
    REQUIRE(cpp);
    CHECK(cpp->paths == std::vector<std::string>{"src/main.cpp", "src/util/strings.cpp"});
    CHECK_FALSE(cpp->incomplete);

    glob.includeHidden = true;
    auto hidden = fx.run(fx.workspace->glob(glob));
    REQUIRE(hidden);
    CHECK(hidden->paths ==
          std::vector<std::string>{".github/ci.cpp", "src/main.cpp", "src/util/strings.cpp"});

    glob.includeHidden = false;
    glob.pattern = "*.{md,txt}";
    auto top = fx.run(fx.workspace->glob(glob));
    REQUIRE(top);
    CHECK(top->paths == std::vector<std::string>{"README.md", "notes.txt"});

    glob.pattern = "util/*";
    glob.base = "src";
    auto based = fx.run(fx.workspace->glob(glob));
    REQUIRE(based);
    CHECK(based->paths == std::vector<std::string>{"src/util/strings.cpp", "src/util/strings.hpp"});

    glob.pattern = "**";
    glob.base = ".";
    glob.maxResults = 2;
    auto capped = fx.run(fx.workspace->glob(glob));
    REQUIRE(capped);
    CHECK(capped->paths.size() == 2);
    CHECK(capped->omitted == 3);

    glob.pattern = "src/*";
    glob.maxResults = 100;
    glob.includeDirectories = true;
    auto directories = fx.run(fx.workspace->glob(glob));
    REQUIRE(directories);
    CHECK(directories->paths == std::vector<std::string>{"src/main.cpp", "src/util"});
}

TEST_CASE("builtins listing: glob stops at the workspace's walk limit", "[builtins][listing][glob]") {
    LocalWorkspaceConfig config;
    config.maxWalkEntries = 5;
    WorkspaceFixture fx(config);
    for (int i = 0; i < 10; ++i) {
        fx.file("f" + std::to_string(i) + ".txt", "x");
    }
    GlobRequest glob;
    glob.pattern = "*.txt";
    auto found = fx.run(fx.workspace->glob(glob));
    REQUIRE(found);
    CHECK(found->incomplete);
    CHECK(found->paths.size() == 5);
}

TEST_CASE("builtins listing: the directory map stops at its depth", "[builtins][listing][map]") {
    WorkspaceFixture fx;
    fx.file("top.txt", "t");
    fx.file("src/main.cpp", "m");
    fx.file("src/deep/er/leaf.txt", "l");
    fx.file(".hidden/x", "x");
    fx.link("ln", "top.txt");

    DirectoryMapRequest map;
    map.maxDepth = 1;
    auto shallow = fx.run(fx.workspace->directoryMap(map));
    REQUIRE(shallow);
    CHECK(*shallow == "./\n  src/ …\n  ln -> top.txt\n  top.txt\n");

    map.maxDepth = 2;
    auto two = fx.run(fx.workspace->directoryMap(map));
    REQUIRE(two);
    CHECK(*two == "./\n  src/\n    deep/ …\n    main.cpp\n  ln -> top.txt\n  top.txt\n");

    map.maxDepth = 10;
    map.path = "src";
    auto full = fx.run(fx.workspace->directoryMap(map));
    REQUIRE(full);
    CHECK(*full == "src/\n  deep/\n    er/\n      leaf.txt\n  main.cpp\n");

    map.path = ".";
    map.maxEntries = 2;
    map.showHidden = true;
    auto capped = fx.run(fx.workspace->directoryMap(map));
    REQUIRE(capped);
    CHECK(contains(*capped, "  .hidden/\n    x\n"));
    CHECK(contains(*capped, "more entries not shown"));
}
