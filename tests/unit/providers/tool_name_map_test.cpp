#include "reagent/providers/tool_name_map.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

using reagent::llm::ToolSpec;
using reagent::providers::ToolNameMap;
using reagent::providers::ToolNameRules;

namespace {

std::vector<ToolSpec> toolsNamed(const std::vector<std::string>& names) {
    std::vector<ToolSpec> tools;
    for (const std::string& name : names) {
        tools.push_back(ToolSpec{name, "", nullptr});
    }
    return tools;
}

void checkRoundTrip(const ToolNameMap& map, const std::vector<std::string>& names, ToolNameRules rules) {
    std::set<std::string> wires;
    for (const std::string& name : names) {
        const std::string wire = map.toWire(name);
        INFO(name << " -> " << wire);
        CHECK(ToolNameMap::isValid(wire, rules));
        CHECK(map.toLocal(wire) == name);
        wires.insert(wire);
    }
    CHECK(wires.size() == std::set<std::string>(names.begin(), names.end()).size());
}

}  // namespace

TEST_CASE("valid names map to themselves", "[providers][names]") {
    const ToolNameMap map(toolsNamed({"get_weather", "read-file", "A1"}), ToolNameRules::standard);
    CHECK(map.toWire("get_weather") == "get_weather");
    CHECK(map.toWire("read-file") == "read-file");
    CHECK(map.toLocal("A1") == "A1");
    // A name the model made up comes back unchanged, for the executor to reject.
    CHECK(map.toLocal("no_such_tool") == "no_such_tool");
    CHECK(ToolNameMap().toWire("x") == "x");
}

TEST_CASE("MCP-style names map to safe names and back", "[providers][names]") {
    const ToolNameMap map(toolsNamed({"server/tool", "fs.read file", "caf\xC3\xA9"}),
                          ToolNameRules::standard);
    CHECK(map.toWire("server/tool") == "server_tool");
    CHECK(map.toWire("fs.read file") == "fs_read_file");
    // Each byte of a multi-byte character becomes '_'.
    CHECK(map.toWire("caf\xC3\xA9") == "caf__");
    CHECK(map.toLocal("server_tool") == "server/tool");
    checkRoundTrip(map, {"server/tool", "fs.read file", "caf\xC3\xA9"}, ToolNameRules::standard);
}

TEST_CASE("collisions get a hash suffix and valid names keep theirs", "[providers][names]") {
    const std::vector<std::string> names = {"server/tool", "server_tool", "a/b", "a.b", "a_b_"};
    const ToolNameMap map(toolsNamed(names), ToolNameRules::standard);
    // The valid name keeps its own; the renamed one yields.
    CHECK(map.toWire("server_tool") == "server_tool");
    CHECK(map.toWire("server/tool") == "server_tool_0f3c84f1");  // FNV-1a of "server/tool": stable forever
    // Two renamed names that collide: sorted order decides ("a.b" < "a/b").
    CHECK(map.toWire("a.b") == "a_b");
    CHECK(map.toWire("a/b") == "a_b_3a8e75c1");
    checkRoundTrip(map, names, ToolNameRules::standard);

    // The mapping depends on the set of names, not on their order.
    std::vector<std::string> reversed(names.rbegin(), names.rend());
    const ToolNameMap other(toolsNamed(reversed), ToolNameRules::standard);
    for (const std::string& name : names) {
        CHECK(other.toWire(name) == map.toWire(name));
    }
}

TEST_CASE("long names are shortened with a hash, within the limit", "[providers][names]") {
    const std::string longName(100, 'x');
    const std::string otherLong = std::string(99, 'x') + "y";
    const ToolNameMap map(toolsNamed({longName, otherLong}), ToolNameRules::standard);
    CHECK(map.toWire(longName) == std::string(55, 'x') + "_ac246ad5");
    CHECK(map.toWire(longName).size() == 64);
    CHECK(map.toWire(otherLong) != map.toWire(longName));
    checkRoundTrip(map, {longName, otherLong}, ToolNameRules::standard);
    CHECK(ToolNameMap::isValid(std::string(64, 'a'), ToolNameRules::standard));
    CHECK_FALSE(ToolNameMap::isValid(std::string(65, 'a'), ToolNameRules::standard));
    CHECK_FALSE(ToolNameMap::isValid("", ToolNameRules::standard));
}

TEST_CASE("Gemini rules want a leading letter or underscore and at most 63 characters",
          "[providers][names]") {
    const std::vector<std::string> names = {
        "1st-tool", "-dash", "server.tool", "ok_name", std::string(63, 'g'), std::string(64, 'g')};
    const ToolNameMap map(toolsNamed(names), ToolNameRules::gemini);
    CHECK(map.toWire("1st-tool") == "_1st-tool");
    CHECK(map.toWire("-dash") == "_-dash");
    CHECK(map.toWire("server.tool") == "server_tool");
    CHECK(map.toWire("ok_name") == "ok_name");
    CHECK(map.toWire(std::string(63, 'g')) == std::string(63, 'g'));
    CHECK(map.toWire(std::string(64, 'g')).size() == 63);
    checkRoundTrip(map, names, ToolNameRules::gemini);
    // The same name is valid for the other providers.
    CHECK(ToolNameMap::isValid("1st-tool", ToolNameRules::standard));
    CHECK_FALSE(ToolNameMap::isValid("1st-tool", ToolNameRules::gemini));
}

TEST_CASE("names only in the history are made valid the same way", "[providers][names]") {
    const ToolNameMap map(toolsNamed({"server_tool"}), ToolNameRules::standard);
    // A removed tool "old/tool" replayed from the history: valid, deterministic.
    CHECK(map.toWire("old/tool") == "old_tool");
    CHECK(map.toWire("old/tool") == map.toWire("old/tool"));
    // It must not borrow a current tool's wire name.
    CHECK(map.toWire("server/tool") == "server_tool_0f3c84f1");
    const std::regex valid("^[a-zA-Z0-9_-]{1,64}$");
    CHECK(std::regex_match(map.toWire(""), valid));
}
