// grep through the facade: output modes, literal and regular expression patterns, filters, bounds and
// the files it skips.

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "reagent/builtins/file_tools.hpp"
#include "tools_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;
using nlohmann::json;

namespace {

struct GrepFixture : ToolsFixture {
    GrepFixture() {
        file("src/main.cpp",
             "#include <cstdio>\nint main() {\n    std::puts(\"Hello\");\n    return 0;\n}\n");
        file("src/util/helper.cpp", "int helper() { return 42; }\n// hello again\n");
        file("README.md", "Hello world\nhello there\n");
        file("notes.txt", "nothing to see\r\n");
    }
};

}  // namespace

TEST_CASE("grep output modes: files by default then content and counts", "[builtins][grep]") {
    GrepFixture ws;
    CHECK(ws.ok("grep", {{"pattern", "Hello"}}) == "README.md\nsrc/main.cpp");
    CHECK(ws.ok("grep", {{"pattern", "Hello"}, {"output_mode", "content"}}) ==
          "README.md:1:Hello world\nsrc/main.cpp:3:    std::puts(\"Hello\");");
    CHECK(ws.ok("grep", {{"pattern", "hello"}, {"output_mode", "counts"}, {"ignore_case", true}}) ==
          "README.md:2\nsrc/main.cpp:1\nsrc/util/helper.cpp:1");
}

TEST_CASE("grep patterns: regular expressions literal text and case", "[builtins][grep]") {
    GrepFixture ws;
    CHECK(ws.ok("grep", {{"pattern", "return [0-9]+;"}, {"output_mode", "content"}}) ==
          "src/main.cpp:4:    return 0;\nsrc/util/helper.cpp:1:int helper() { return 42; }");
    CHECK(ws.ok("grep", {{"pattern", "^hello"}, {"output_mode", "content"}, {"ignore_case", true}}) ==
          "README.md:1:Hello world\nREADME.md:2:hello there");
    // With fixed_strings, regular expression characters are plain text.
    CHECK(ws.ok("grep", {{"pattern", "main()"}, {"fixed_strings", true}}) == "src/main.cpp");
    CHECK(ws.ok("grep", {{"pattern", "see$"}, {"output_mode", "content"}}) == "notes.txt:1:nothing to see");
    const auto bad = ws.error("grep", {{"pattern", "(unclosed"}});
    CHECK(codeOf(bad) == "invalid_arguments");
    CHECK(contains(messageOf(bad), "not a valid regular expression in RE2 syntax"));
    CHECK(contains(ws.ok("grep", {{"pattern", "zebra"}}), "no matches for 'zebra' in 4 files under '.'"));
}

TEST_CASE("grep matches a backtracking pattern in linear time, and refuses what RE2 lacks",
          "[builtins][grep]") {
    GrepFixture ws;
    ws.file("aaa.txt", std::string(30, 'a') + "\n");
    const auto started = std::chrono::steady_clock::now();
    // std::regex takes minutes on this line, on the io thread, out of reach of every timeout.
    CHECK(contains(ws.ok("grep", {{"pattern", "((a*)*)*b"}}), "no matches for '((a*)*)*b' in 5 files"));
    CHECK(ws.ok("grep", {{"pattern", "((a*)*)*$"}, {"glob", "aaa.txt"}}) == "aaa.txt");
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));

    const auto backreference = ws.error("grep", {{"pattern", "(a)\\1"}});
    CHECK(codeOf(backreference) == "invalid_arguments");
    CHECK(contains(messageOf(backreference), "without backreferences or lookaround"));
    CHECK(codeOf(ws.error("grep", {{"pattern", "(?=a)a"}})) == "invalid_arguments");
}

TEST_CASE("grep narrows by path and glob", "[builtins][grep]") {
    GrepFixture ws;
    CHECK(ws.ok("grep", {{"pattern", "int"}, {"path", "src/util"}}) == "src/util/helper.cpp");
    CHECK(ws.ok("grep", {{"pattern", "int"}, {"path", "src/main.cpp"}, {"output_mode", "counts"}}) ==
          "src/main.cpp:1");
    // A filter without '/' matches file names at any depth.
    CHECK(ws.ok("grep", {{"pattern", "ello"}, {"glob", "*.cpp"}}) == "src/main.cpp\nsrc/util/helper.cpp");
    CHECK(ws.ok("grep", {{"pattern", "ello"}, {"glob", "*.md"}}) == "README.md");
    CHECK(codeOf(ws.error("grep", {{"pattern", "x"}, {"path", "nope"}})) == "path_not_found");
}

TEST_CASE("grep bounds its results and says what it skipped", "[builtins][grep]") {
    GrepFixture ws;
    SECTION("max_results in content mode") {
        const auto text = ws.ok("grep", {{"pattern", "e"}, {"output_mode", "content"}, {"max_results", 2}});
        CHECK(
            text ==
            "README.md:1:Hello world\nREADME.md:2:hello there\n[grep: stopped at max_results (2); narrow the "
            "pattern, path or glob, or raise max_results]");
    }
    SECTION("max_results in files mode") {
        const auto text = ws.ok("grep", {{"pattern", "e"}, {"max_results", 1}});
        CHECK(text.rfind("README.md\n[grep: stopped at max_results (1)", 0) == 0);
    }
    SECTION("binary files, files too large and links out are skipped") {
        ws.file("blob.bin", std::string("Hello\0\1\2", 8));
        ws.file("huge.log", std::string(2 * 1024 * 1024, 'a') + "\nHello\n");
        ws.link("door.txt", ws.outside / "secret.txt");
        const auto text = ws.ok("grep", {{"pattern", "Hello|secret"}});
        CHECK(text ==
              "README.md\nsrc/main.cpp\n[grep: files skipped: 1 binary, 1 over 1048576 bytes, 1 unreadable "
              "(links "
              "pointing out of the workspace, special files, ...)]");
    }
    SECTION("long lines are shown cut") {
        ws.file("long.txt", std::string(1000, 'x') + "Hello" + std::string(1000, 'y') + "\n");
        const auto text =
            ws.ok("grep", {{"pattern", "Hello"}, {"path", "long.txt"}, {"output_mode", "content"}});
        CHECK(text.size() < 500);
        CHECK(contains(text, "long.txt:1:xxxx"));
        CHECK(contains(text, "\xE2\x80\xA6"));
    }
    SECTION("a regular expression looks at the start of very long lines only") {
        ws.file("wide.txt", std::string(100000, 'a') + "needle\n");
        CHECK(contains(ws.ok("grep", {{"pattern", "need+le"}, {"path", "wide.txt"}}), "no matches"));
        CHECK(ws.ok("grep", {{"pattern", "needle"}, {"path", "wide.txt"}}) == "wide.txt");
    }
}

TEST_CASE("grep stops at its file count and time budget and says so", "[builtins][grep]") {
    GrepFixture ws;
    FileToolOptions options;
    const auto grepWith = [&ws](const FileToolOptions& opts, json args) {
        const auto tool = grepTool(ws.workspace, opts);
        reagent::tools::ToolContext context;
        auto result = ws.run(tool.handler(std::move(args), context));
        INFO((result ? *result : result.error().describe()));
        REQUIRE(result);
        return *result;
    };
    SECTION("file count") {
        options.grep.maxFiles = 1;
        CHECK(grepWith(options, {{"pattern", "Hello"}}) ==
              "README.md\n[grep: searched the first 1 file only; narrow the path or glob]");
    }
    SECTION("time budget") {
        options.grep.timeBudget = std::chrono::milliseconds(-1);
        CHECK(contains(grepWith(options, {{"pattern", "Hello"}}),
                       "[grep: stopped after the time budget of -1 ms, having searched 0 of 4 files"));
    }
}
