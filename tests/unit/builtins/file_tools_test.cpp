// file-read, file-write, file-edit, ls and glob through the facade on real files, and every escape
// through each of them.

#include "reagent/builtins/file_tools.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "media_fixtures.hpp"
#include "reagent/core/base64.hpp"
#include "tools_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;
using nlohmann::json;

TEST_CASE("fileTools marks the mutating tools and leaves them out in read-only mode",
          "[builtins][file-tools]") {
    WorkspaceFixture ws;
    const auto all = fileTools(ws.workspace);
    REQUIRE(all.size() == 6);
    for (const auto& tool : all) {
        const auto& definition = tool.definition;
        const bool mutating = definition.name == "file-write" || definition.name == "file-edit";
        CHECK(definition.sideEffect == mutating);
        CHECK(definition.requiresApproval == (definition.name == "file-write"));
        CHECK(definition.category == "file");
    }
    FileToolOptions readOnly;
    readOnly.readOnly = true;
    CHECK(fileTools(ws.workspace, readOnly).size() == 4);
    FileToolOptions noApproval;
    noApproval.writeRequiresApproval = false;
    CHECK_FALSE(fileWriteTool(ws.workspace, noApproval).definition.requiresApproval);
}

TEST_CASE("file-read reads whole files and ranges", "[builtins][file-tools]") {
    ToolsFixture ws;
    ws.file("src/a.txt", "one\ntwo\nthree\nfour\n");
    CHECK(ws.ok("file-read", {{"path", "src/a.txt"}}) == "one\ntwo\nthree\nfour\n");
    SECTION("a range says where it lies and how to read on") {
        const auto text = ws.ok("file-read", {{"path", "src/a.txt"}, {"lineOffset", 1}, {"lineCount", 2}});
        CHECK(text == "two\nthree\n[file-read: lines 2-3 of 4 in 'src/a.txt'; read on with lineOffset 3]");
        const auto tail = ws.ok("file-read", {{"path", "src/a.txt"}, {"lineOffset", 3}});
        CHECK(tail == "four\n[file-read: lines 4-4 of 4 in 'src/a.txt'; end of file]");
    }
    SECTION("numbered lines") {
        CHECK(ws.ok("file-read", {{"path", "src/a.txt"}, {"numberLines", true}, {"lineCount", 1}}) ==
              "     1\tone\n[file-read: lines 1-1 of 4 in 'src/a.txt'; read on with lineOffset 1]");
    }
    SECTION("an empty file") {
        ws.file("empty.txt", "");
        CHECK(ws.ok("file-read", {{"path", "empty.txt"}}) == "'empty.txt' is empty (0 bytes)");
    }
    SECTION("errors the model can act on") {
        CHECK(codeOf(ws.error("file-read", {{"path", "missing.txt"}})) == "path_not_found");
        CHECK(codeOf(ws.error("file-read", {{"path", "src"}})) == "not_a_file");
        ws.file("bin.dat", std::string("ab\0cd", 5));
        CHECK(codeOf(ws.error("file-read", {{"path", "bin.dat"}})) == "binary_file");
        const auto large = ws.error("file-read", {{"path", "src/a.txt"}, {"maxSize", 4}});
        CHECK(codeOf(large) == "too_large");
        CHECK(codeOf(ws.error("file-read", {{"path", "src/a.txt"}, {"lineOffset", 10}})) ==
              "invalid_arguments");
    }
}

TEST_CASE("file-write creates and replaces files with a checkpoint that rolls back",
          "[builtins][file-tools]") {
    ToolsFixture ws;
    ws.file("keep.txt", "old\n");
    const auto created = ws.ok("file-write", {{"path", "deep/dir/new.txt"}, {"content", "hello\n"}});
    CHECK(contains(created, "wrote 6 bytes to 'deep/dir/new.txt' (a new file)"));
    CHECK(WorkspaceFixture::readFile(ws.root / "deep/dir/new.txt") == "hello\n");
    const auto replaced = ws.ok("file-write", {{"path", "keep.txt"}, {"content", "new\n"}});
    CHECK(contains(replaced, "(replaced); checkpoint "));
    CHECK(WorkspaceFixture::readFile(ws.root / "keep.txt") == "new\n");

    SECTION("the checkpoint restores the state before the write") {
        const auto at = replaced.find("checkpoint ") + 11;
        const std::string id = replaced.substr(at, 40);
        auto rolled = ws.run(ws.tools->workspace()->rollback(id));
        REQUIRE(rolled);
        CHECK(WorkspaceFixture::readFile(ws.root / "keep.txt") == "old\n");
    }
    SECTION("overwrite false and createDir false") {
        CHECK(
            codeOf(ws.error("file-write", {{"path", "keep.txt"}, {"content", "x"}, {"overwrite", false}})) ==
            "already_exists");
        CHECK(codeOf(ws.error("file-write",
                              {{"path", "no/dir/x.txt"}, {"content", "x"}, {"createDir", false}})) ==
              "path_not_found");
        CHECK_FALSE(fs::exists(ws.root / "no"));
    }
}

TEST_CASE("file-edit replaces text that matches exactly once", "[builtins][file-tools]") {
    AgentToolsConfig config;
    config.checkpoints = false;
    ToolsFixture ws(config);
    ws.file("a.py", "x = 1\ny = 2\nx = 1\n");
    SECTION("once") {
        CHECK(ws.ok("file-edit", {{"path", "a.py"}, {"searchCode", "y = 2"}, {"replaceCode", "y = 3"}}) ==
              "replaced 1 occurrence in 'a.py' (18 -> 18 bytes)");
        CHECK(WorkspaceFixture::readFile(ws.root / "a.py") == "x = 1\ny = 3\nx = 1\n");
    }
    SECTION("zero and two matches name the count and leave the file alone") {
        const auto none =
            ws.error("file-edit", {{"path", "a.py"}, {"searchCode", "z = 9"}, {"replaceCode", ""}});
        CHECK(codeOf(none) == "match_count");
        CHECK(contains(messageOf(none), "0 matches"));
        const auto two =
            ws.error("file-edit", {{"path", "a.py"}, {"searchCode", "x = 1"}, {"replaceCode", "x = 0"}});
        CHECK(codeOf(two) == "match_count");
        CHECK(contains(messageOf(two), "2 times"));
        CHECK(WorkspaceFixture::readFile(ws.root / "a.py") == "x = 1\ny = 2\nx = 1\n");
    }
    SECTION("replaceAll") {
        CHECK(contains(
            ws.ok(
                "file-edit",
                {{"path", "a.py"}, {"searchCode", "x = 1"}, {"replaceCode", "x = 10"}, {"replaceAll", true}}),
            "replaced 2 occurrences"));
        CHECK(WorkspaceFixture::readFile(ws.root / "a.py") == "x = 10\ny = 2\nx = 10\n");
    }
    SECTION("an empty search text is refused by the schema") {
        CHECK(codeOf(ws.error("file-edit", {{"path", "a.py"}, {"searchCode", ""}, {"replaceCode", "x"}})) ==
              "invalid_arguments");
    }
}

TEST_CASE("ls lists a directory with kinds and details", "[builtins][file-tools]") {
    ToolsFixture ws;
    ws.file("src/main.cpp", "int main() {}\n");
    ws.file(".hidden", "h");
    ws.link("alias", ws.root / "src");
    const auto text = ws.ok("ls", json::object());
    CHECK(text == "'.': 2 entries\nalias@\nsrc/");
    CHECK(contains(ws.ok("ls", {{"showHidden", true}}), ".hidden"));
    const auto detailed = ws.ok("ls", {{"path", "src"}, {"details", true}});
    CHECK(contains(detailed, "rw-"));
    CHECK(contains(detailed, "14  "));
    CHECK(contains(detailed, "main.cpp"));
    CHECK(codeOf(ws.error("ls", {{"path", "src/main.cpp"}})) == "not_a_directory");
}

TEST_CASE("glob finds files by pattern and bounds the result", "[builtins][file-tools]") {
    ToolsFixture ws;
    ws.file("src/a.cpp", "");
    ws.file("src/sub/b.cpp", "");
    ws.file("src/c.h", "");
    CHECK(ws.ok("glob", {{"pattern", "**/*.cpp"}}) == "src/a.cpp\nsrc/sub/b.cpp");
    CHECK(ws.ok("glob", {{"pattern", "*.{cpp,h}"}, {"path", "src"}}) == "src/a.cpp\nsrc/c.h");
    CHECK(ws.ok("glob", {{"pattern", "**/*"}, {"maxResults", 1}}) ==
          "src/a.cpp\n[glob: 2 more matches not shown; narrow the pattern or raise maxResults]");
    CHECK(contains(ws.ok("glob", {{"pattern", "*.cpp"}}), "use **/*.cpp to search every depth"));
}

TEST_CASE("every file tool refuses paths that escape the workspace", "[builtins][file-tools][security]") {
    ToolsFixture ws;
    ws.file("inside.txt", "top secret\n");
    ws.link("door", ws.outside);
    const std::string outsideAbsolute = (ws.outside / "secret.txt").string();
    const std::string sibling = (ws.evil / "secret.txt").string();
    for (const std::string& path :
         {std::string("../outside/secret.txt"), outsideAbsolute, sibling, std::string("door/secret.txt")}) {
        INFO(path);
        CHECK(codeOf(ws.error("file-read", {{"path", path}})) == "outside_workspace");
        CHECK(codeOf(ws.error("file-write", {{"path", path}, {"content", "pwned"}})) == "outside_workspace");
        CHECK(codeOf(ws.error("file-edit", {{"path", path}, {"searchCode", "top"}, {"replaceCode", "no"}})) ==
              "outside_workspace");
        CHECK(codeOf(ws.error("grep", {{"pattern", "secret"}, {"path", path}})) == "outside_workspace");
    }
    for (const std::string& dir :
         {std::string(".."), ws.outside.string(), ws.evil.string(), std::string("door")}) {
        INFO(dir);
        CHECK(codeOf(ws.error("ls", {{"path", dir}})) == "outside_workspace");
        CHECK(codeOf(ws.error("glob", {{"pattern", "*"}, {"path", dir}})) == "outside_workspace");
        CHECK(codeOf(ws.error("grep", {{"pattern", "secret"}, {"path", dir}})) == "outside_workspace");
    }
    CHECK(codeOf(ws.error("glob", {{"pattern", "../outside/*"}})) == "outside_workspace");
    CHECK(codeOf(ws.error("glob", {{"pattern", outsideAbsolute}})) == "outside_workspace");
    CHECK(codeOf(ws.error("grep", {{"pattern", "secret"}, {"glob", "../outside/*"}})) == "outside_workspace");
    CHECK(WorkspaceFixture::readFile(ws.outside / "secret.txt") == "top secret\n");
    CHECK(WorkspaceFixture::readFile(ws.evil / "secret.txt") == "evil secret\n");
    CHECK_FALSE(fs::exists(ws.temp.path / "outside" / "pwned"));
}

TEST_CASE("file-read returns an image or a PDF attached, by what its bytes are", "[builtins][file-tools]") {
    ToolsFixture ws;
    ws.file("charts/dot.png", reagent::test::tinyPng());
    ws.file("report.bin", reagent::test::tinyPdf());  // a PDF whatever its name
    ws.file("photo.png", "not a picture\n");          // text whatever its name

    const auto image = ws.tools->callToolBlocking("file-read", json{{"path", "charts/dot.png"}}.dump());
    REQUIRE_FALSE(image.isError);
    CHECK(image.text == "'charts/dot.png' (image/png, 70 bytes) is attached");
    REQUIRE(image.content.size() == 1);
    CHECK(image.content[0] == json{{"type", "image"},
                                   {"data", reagent::base64Encode(reagent::test::tinyPng())},
                                   {"mimeType", "image/png"}});

    const auto document = ws.tools->callToolBlocking("file-read", json{{"path", "report.bin"}}.dump());
    REQUIRE_FALSE(document.isError);
    REQUIRE(document.content.size() == 1);
    CHECK(document.content[0]["type"] == "resource");
    CHECK(document.content[0]["resource"]["mimeType"] == "application/pdf");
    CHECK(document.content[0]["resource"]["uri"] == "workspace:report.bin");

    const auto text = ws.tools->callToolBlocking("file-read", json{{"path", "photo.png"}}.dump());
    REQUIRE_FALSE(text.isError);
    CHECK(text.text == "not a picture\n");
    CHECK(text.content.empty());

    // Other binary files are refused as before.
    ws.file("bin.dat", std::string("ab\0cd", 5));
    CHECK(codeOf(ws.error("file-read", {{"path", "bin.dat"}})) == "binary_file");
}
