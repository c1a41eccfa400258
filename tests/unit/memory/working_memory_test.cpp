#include "reagent/memory/working_memory.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "utf8_check.hpp"

using reagent::memory::MemoryErrc;
using reagent::memory::WorkingMemory;
using reagent::memory::WorkingMemoryConfig;
using reagent::test::isValidUtf8;

namespace {

std::vector<std::string> keysOf(const WorkingMemory& memory) {
    std::vector<std::string> keys;
    for (const auto& info : memory.list()) {
        keys.push_back(info.key);
    }
    return keys;
}

std::string storeOk(WorkingMemory& memory, std::string tool, std::string value) {
    auto key = memory.store(std::move(tool), std::move(value));
    REQUIRE(key);
    return *key;
}

}  // namespace

TEST_CASE("store numbers keys from 1 in each memory", "[memory][working]") {
    WorkingMemory first;
    WorkingMemory second;
    CHECK(first.nextKey() == "_tool_result_1");
    CHECK(storeOk(first, "a", "x") == "_tool_result_1");
    CHECK(storeOk(first, "b", "y") == "_tool_result_2");
    CHECK(storeOk(second, "c", "z") == "_tool_result_1");

    // Numbers are never reused, not after erase and not after clear.
    CHECK(first.erase("_tool_result_2"));
    CHECK(storeOk(first, "a", "x") == "_tool_result_3");
    first.clear();
    CHECK(first.size() == 0);
    CHECK(storeOk(first, "a", "x") == "_tool_result_4");
}

TEST_CASE("put, find, read and list", "[memory][working]") {
    WorkingMemory memory;
    const std::string result = storeOk(memory, "github/list_commits", "[1,2,3]");
    REQUIRE(memory.put("notes", "remember the sha", "model"));
    REQUIRE(memory.put("plan.step:1-a", "first"));

    REQUIRE(memory.find("notes") != nullptr);
    CHECK(*memory.find("notes") == "remember the sha");
    CHECK(memory.find("missing") == nullptr);
    const auto read = memory.read(result);
    REQUIRE(read);
    CHECK(*read == "[1,2,3]");

    const auto infos = memory.list();
    REQUIRE(infos.size() == 3);
    CHECK(infos[0].key == "_tool_result_1");
    CHECK(infos[0].bytes == 7);
    CHECK(infos[0].sourceTool == "github/list_commits");
    CHECK(infos[1].key == "notes");
    CHECK(infos[1].sourceTool == "model");
    CHECK(infos[2].key == "plan.step:1-a");
    CHECK(infos[2].sourceTool.empty());
    CHECK(infos[0].sequence < infos[1].sequence);
    CHECK(infos[1].sequence < infos[2].sequence);

    SECTION("put replaces a value and makes it the most recent") {
        REQUIRE(memory.put("notes", "updated"));
        CHECK(*memory.find("notes") == "updated");
        CHECK(keysOf(memory) == std::vector<std::string>{"_tool_result_1", "plan.step:1-a", "notes"});
        CHECK(memory.bytes() == 7 + 5 + 7);
    }
}

TEST_CASE("read explains a missing key", "[memory][working]") {
    WorkingMemory memory(WorkingMemoryConfig{10});
    SECTION("empty memory") {
        const auto read = memory.read("notes");
        REQUIRE_FALSE(read);
        CHECK(read.error().code == MemoryErrc::not_found);
        CHECK(read.error().message == "nothing is stored under 'notes': working memory is empty");
        CHECK(read.error().describe() == "not_found: " + read.error().message);
    }
    SECTION("an evicted tool result") {
        storeOk(memory, "t", "0123456789");
        storeOk(memory, "t", "abc");  // evicts _tool_result_1
        const auto read = memory.read("_tool_result_1");
        REQUIRE_FALSE(read);
        CHECK(read.error().message ==
              "nothing is stored under '_tool_result_1': that tool result was evicted to keep working memory "
              "within its 10-byte budget, or was erased; call the tool again");
    }
    SECTION("an unknown key lists the stored ones") {
        storeOk(memory, "t", "abc");
        REQUIRE(memory.put("n", "x"));
        const auto read = memory.read("_tool_result_7");
        REQUIRE_FALSE(read);
        CHECK(read.error().message ==
              "nothing is stored under '_tool_result_7'; stored keys (oldest first): _tool_result_1, n");
    }
}

TEST_CASE("put rejects keys that break the rules", "[memory][working]") {
    WorkingMemory memory;
    const auto rejects = [&](const std::string& key, const std::string& fragment) {
        const auto put = memory.put(key, "v");
        REQUIRE_FALSE(put);
        CHECK(put.error().code == MemoryErrc::invalid_key);
        CHECK_THAT(put.error().message, Catch::Contains(fragment));
        CHECK(isValidUtf8(put.error().message));
    };
    rejects("", "at least one character");
    rejects(std::string(129, 'k'), "at most 128 characters (this one has 129)");
    rejects("two words", "may use only A-Z a-z 0-9 _ . : -");
    rejects("caf\xC3\xA9", "may use only");
    rejects("line\nbreak", "invalid key 'line?break'");
    rejects("_tool_result_5", "reserved for stored tool results");
    CHECK(memory.size() == 0);
    CHECK(memory.put(std::string(128, 'k'), "v"));
    CHECK(memory.put("A-z_0.9:x", "v"));
}

TEST_CASE("eviction removes the oldest entries until the new value fits", "[memory][working]") {
    WorkingMemory memory(WorkingMemoryConfig{100});
    storeOk(memory, "t", std::string(40, 'a'));  // _tool_result_1
    REQUIRE(memory.put("note", std::string(30, 'b')));
    storeOk(memory, "t", std::string(30, 'c'));  // _tool_result_2
    CHECK(memory.bytes() == 100);

    // 1 more byte evicts only the oldest entry.
    storeOk(memory, "t", "d");
    CHECK(keysOf(memory) == std::vector<std::string>{"note", "_tool_result_2", "_tool_result_3"});
    CHECK(memory.bytes() == 61);

    // 70 bytes evict the next two oldest.
    REQUIRE(memory.put("big", std::string(70, 'e')));
    CHECK(keysOf(memory) == std::vector<std::string>{"_tool_result_3", "big"});
    CHECK(memory.bytes() == 71);

    SECTION("replacing a key frees its own bytes first") {
        // 71 + 99 would exceed the budget, 1 + 99 does not: nothing else is evicted.
        REQUIRE(memory.put("big", std::string(99, 'f')));
        CHECK(keysOf(memory) == std::vector<std::string>{"_tool_result_3", "big"});
        CHECK(memory.bytes() == 100);
    }
    SECTION("a value larger than the whole budget is refused and nothing changes") {
        const auto stored = memory.store("t", std::string(101, 'g'));
        REQUIRE_FALSE(stored);
        CHECK(stored.error().code == MemoryErrc::too_large);
        CHECK(
            stored.error().message ==
            "a value of 101 bytes exceeds the whole working memory budget of 100 bytes; store a smaller part "
            "(select fields or summarise) or raise byteBudget");
        const auto put = memory.put("big", std::string(101, 'g'));
        REQUIRE_FALSE(put);
        CHECK(put.error().code == MemoryErrc::too_large);
        CHECK(keysOf(memory) == std::vector<std::string>{"_tool_result_3", "big"});
        CHECK(*memory.find("big") == std::string(70, 'e'));
        CHECK(memory.bytes() == 71);
        // The refused store used no number.
        CHECK(memory.nextKey() == "_tool_result_4");
        CHECK_FALSE(memory.fits(101));
        CHECK(memory.fits(100));
    }
    SECTION("a value of exactly the budget evicts everything else") {
        storeOk(memory, "t", std::string(100, 'h'));
        CHECK(keysOf(memory) == std::vector<std::string>{"_tool_result_4"});
        CHECK(memory.bytes() == 100);
    }
}

TEST_CASE("bytes counts the values stored", "[memory][working]") {
    WorkingMemory memory;
    CHECK(memory.bytes() == 0);
    CHECK(memory.config().byteBudget == 8u * 1024 * 1024);
    storeOk(memory, "t", "12345");
    REQUIRE(memory.put("k", "\xE6\x97\xA5"));  // bytes, not characters
    CHECK(memory.bytes() == 8);
    REQUIRE(memory.put("k", ""));
    CHECK(memory.bytes() == 5);
    CHECK(memory.erase("_tool_result_1"));
    CHECK_FALSE(memory.erase("_tool_result_1"));
    CHECK(memory.bytes() == 0);
    CHECK(memory.size() == 1);
    memory.clear();
    CHECK(memory.bytes() == 0);
    CHECK(memory.list().empty());
}

TEST_CASE("search finds keywords case-insensitively with a snippet", "[memory][working]") {
    WorkingMemory memory;
    storeOk(memory, "t", std::string(100, '.') + "The Quick brown FOX\njumps over " + std::string(100, '-'));
    REQUIRE(memory.put("short", "a fox"));
    REQUIRE(memory.put("other", "nothing here"));

    const auto hits = memory.search("fOx", 10);
    REQUIRE(hits.size() == 2);
    CHECK(hits[0].key == "_tool_result_1");
    CHECK(hits[0].snippet == "\xE2\x80\xA6" + std::string(24, '.') + "The Quick brown FOX jumps over " +
                                 std::string(28, '-') + "\xE2\x80\xA6");
    CHECK(hits[1].key == "short");
    CHECK(hits[1].snippet == "a fox");

    CHECK(memory.search("fox", 1).size() == 1);
    CHECK(memory.search("fox", 0).empty());
    CHECK(memory.search("", 10).empty());
    CHECK(memory.search("absent", 10).empty());

    SECTION("snippets never split a character") {
        std::string value;
        for (int i = 0; i < 100; ++i) {
            value += "\xE6\x97\xA5\xF0\x9F\x98\x80";
        }
        REQUIRE(memory.put("cjk", value + "needle" + value));
        const auto found = memory.search("NEEDLE", 5);
        REQUIRE(found.size() == 1);
        CHECK(isValidUtf8(found[0].snippet));
        CHECK_THAT(found[0].snippet, Catch::Contains("\xF0\x9F\x98\x80needle\xE6\x97\xA5"));
        CHECK(reagent::test::codePoints(found[0].snippet) == 40 + 6 + 40 + 2);
    }
}
