// The agent-tools facade: startup errors, the advertised tools, read-only mode, argument validation, the
// error envelope and the output cap.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tools_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;
using nlohmann::json;

namespace {

std::vector<std::string> namesOf(const std::vector<ToolInfo>& infos) {
    std::vector<std::string> names;
    for (const auto& info : infos) {
        names.push_back(info.name);
    }
    return names;
}

}  // namespace

TEST_CASE("createAgentTools refuses a bad configuration at once", "[builtins][facade]") {
    WorkspaceFixture ws;
    AgentToolsConfig config;
    SECTION("no workspace") {
        auto tools = createAgentTools(config);
        REQUIRE_FALSE(tools);
        CHECK(tools.error().code == StartupErrc::missing_workspace);
        CHECK(contains(tools.error().message, "workspaceRoot is required"));
    }
    SECTION("a workspace that does not exist") {
        config.workspaceRoot = (ws.temp.path / "missing").string();
        auto tools = createAgentTools(config);
        REQUIRE_FALSE(tools);
        CHECK(tools.error().code == StartupErrc::missing_workspace);
    }
    SECTION("a file as workspace") {
        ws.file("plain.txt", "x");
        config.workspaceRoot = (ws.root / "plain.txt").string();
        auto tools = createAgentTools(config);
        REQUIRE_FALSE(tools);
        CHECK(tools.error().code == StartupErrc::not_a_directory);
    }
    SECTION("limits out of range") {
        config.workspaceRoot = ws.root.string();
        AgentToolsConfig tooSmall = config;
        tooSmall.maxOutputBytes = 10;
        AgentToolsConfig noFile = config;
        noFile.maxFileBytes = 0;
        AgentToolsConfig noTime = config;
        noTime.toolTimeout = std::chrono::milliseconds(0);
        for (const auto& bad : {tooSmall, noFile, noTime}) {
            auto tools = createAgentTools(bad);
            REQUIRE_FALSE(tools);
            CHECK(tools.error().code == StartupErrc::out_of_range);
            CHECK(contains(tools.error().message, "it must lie in"));
        }
    }
    SECTION("a checkpoint directory inside the workspace") {
        config.workspaceRoot = ws.root.string();
        config.checkpointDirectory = (ws.root / "cp").string();
        auto tools = createAgentTools(config);
        REQUIRE_FALSE(tools);
        CHECK(tools.error().code == StartupErrc::invalid_setting);
    }
}

TEST_CASE("the resolved configuration is frozen with the real workspace path", "[builtins][facade]") {
    WorkspaceFixture ws;
    fs::create_symlink(ws.root, ws.temp.path / "alias");
    AgentToolsConfig config;
    config.workspaceRoot = (ws.temp.path / "alias").string();
    auto tools = createAgentTools(config);
    REQUIRE(tools);
    CHECK((*tools)->config().workspaceRoot == fs::canonical(ws.root).string());
    CHECK((*tools)->config().maxOutputBytes == 64 * 1024);
}

TEST_CASE("listTools gives each tool's name description and schema and read-only hides the mutating ones",
          "[builtins][facade]") {
    SECTION("read-write") {
        ToolsFixture ws;
        const auto infos = ws.tools->listTools();
        CHECK(namesOf(infos) ==
              std::vector<std::string>{"file-read", "file-write", "file-edit", "ls", "glob", "grep"});
        for (const auto& info : infos) {
            CHECK_FALSE(info.description.empty());
            CHECK(info.inputSchema.at("type") == "object");
        }
        const auto grep =
            std::find_if(infos.begin(), infos.end(), [](const ToolInfo& i) { return i.name == "grep"; });
        CHECK(grep->inputSchema["properties"]["output_mode"]["enum"] == json({"content", "files", "counts"}));
        CHECK(grep->inputSchema["required"] == json({"pattern"}));
    }
    SECTION("read-only") {
        AgentToolsConfig config;
        config.readOnly = true;
        ToolsFixture ws(config);
        CHECK(namesOf(ws.tools->listTools()) == std::vector<std::string>{"file-read", "ls", "glob", "grep"});
    }
}

TEST_CASE("callTool answers an unknown tool and a hidden mutating tool with not_found",
          "[builtins][facade]") {
    SECTION("unknown") {
        ToolsFixture ws;
        const auto error = ws.error("rm-rf", json::object());
        CHECK(codeOf(error) == "not_found");
        CHECK(error["tool"] == "rm-rf");
        CHECK(contains(messageOf(error), "available tools: file-read"));
    }
    SECTION("read-only refuses writes and edits without touching the files") {
        AgentToolsConfig config;
        config.readOnly = true;
        ToolsFixture ws(config);
        ws.file("a.txt", "one\n");
        const auto write = ws.error("file-write", {{"path", "b.txt"}, {"content", "x"}});
        CHECK(codeOf(write) == "not_found");
        CHECK(contains(messageOf(write), "read-only"));
        const auto edit =
            ws.error("file-edit", {{"path", "a.txt"}, {"searchCode", "one"}, {"replaceCode", "two"}});
        CHECK(codeOf(edit) == "not_found");
        CHECK_FALSE(fs::exists(ws.root / "b.txt"));
        CHECK(WorkspaceFixture::readFile(ws.root / "a.txt") == "one\n");
    }
}

TEST_CASE("callTool validates the arguments against the schema", "[builtins][facade]") {
    ToolsFixture ws;
    ws.file("a.txt", "one\n");
    SECTION("not JSON") {
        const auto error = ToolsFixture::errorOf(ws.tools->callToolBlocking("file-read", "{path:"));
        CHECK(codeOf(error) == "invalid_arguments");
        CHECK(contains(messageOf(error), "not valid JSON"));
    }
    SECTION("not an object") {
        CHECK(codeOf(ToolsFixture::errorOf(ws.tools->callToolBlocking("file-read", "[1]"))) ==
              "invalid_arguments");
    }
    SECTION("a missing required argument") {
        const auto error = ws.error("file-read", json::object());
        CHECK(codeOf(error) == "invalid_arguments");
        CHECK(contains(messageOf(error), "path"));
    }
    SECTION("a wrong type, an unknown property, a value outside the enum, a number below the minimum") {
        CHECK(codeOf(ws.error("file-read", {{"path", 3}})) == "invalid_arguments");
        CHECK(codeOf(ws.error("file-read", {{"path", "a.txt"}, {"encoding", "latin1"}})) ==
              "invalid_arguments");
        CHECK(codeOf(ws.error("grep", {{"pattern", "x"}, {"output_mode", "lines"}})) == "invalid_arguments");
        CHECK(codeOf(ws.error("grep", {{"pattern", "x"}, {"max_results", 0}})) == "invalid_arguments");
        CHECK(codeOf(ws.error("grep", {{"pattern", "x"}, {"max_results", 5000}})) == "invalid_arguments");
    }
    SECTION("empty arguments mean an empty object") {
        CHECK_FALSE(ws.tools->callToolBlocking("ls", "").isError);
        CHECK_FALSE(ws.tools->callToolBlocking("ls", "null").isError);
    }
}

TEST_CASE("callTool bounds the output to maxOutputBytes and says how much was cut", "[builtins][facade]") {
    AgentToolsConfig config;
    config.maxOutputBytes = 1024;
    ToolsFixture ws(config);
    std::string big;
    for (int i = 0; i < 500; ++i) {
        big += "line " + std::to_string(i) + " \xC3\xA9t\xC3\xA9\n";  // two-byte characters to cut around
    }
    ws.file("big.txt", big);
    const auto result = ws.tools->callToolBlocking("file-read", json{{"path", "big.txt"}}.dump());
    REQUIRE_FALSE(result.isError);
    CHECK(result.text.size() <= 1024);
    CHECK(contains(result.text, "[output truncated: "));
    CHECK(contains(result.text, " of " + std::to_string(big.size()) + " bytes not shown"));
    CHECK(result.text.rfind("line 0 ", 0) == 0);
    SECTION("small outputs are whole") {
        ws.file("small.txt", "tiny\n");
        CHECK(ws.ok("file-read", {{"path", "small.txt"}}) == "tiny\n");
    }
}

TEST_CASE("an approval handler can refuse file-write", "[builtins][facade]") {
    AgentToolsConfig config;
    config.approval = [](reagent::tools::ToolCallRequest,
                         reagent::tools::ToolDefinition) -> reagent::Task<bool> { co_return false; };
    ToolsFixture ws(config);
    const auto error = ws.error("file-write", {{"path", "a.txt"}, {"content", "x"}});
    CHECK(codeOf(error) == "approval_denied");
    CHECK_FALSE(fs::exists(ws.root / "a.txt"));
    // Only file-write needs approval: an edit still runs.
    ws.file("b.txt", "one\n");
    CHECK(contains(ws.ok("file-edit", {{"path", "b.txt"}, {"searchCode", "one"}, {"replaceCode", "two"}}),
                   "replaced 1 occurrence"));
}
