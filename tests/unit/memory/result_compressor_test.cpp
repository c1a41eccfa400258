#include "reagent/memory/result_compressor.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commit_fixture.hpp"
#include "utf8_check.hpp"

using reagent::memory::characterCount;
using reagent::memory::compress;
using reagent::memory::compressAndStore;
using reagent::memory::CompressionConfig;
using reagent::memory::kMinPreviewChars;
using reagent::memory::WorkingMemory;
using reagent::memory::WorkingMemoryConfig;
using reagent::test::codePoints;
using reagent::test::isValidUtf8;

namespace {

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        lines.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return lines;
}

// Every preview: valid UTF-8 and within the documented bound.
void checkBounded(const std::string& preview, std::size_t budget) {
    REQUIRE(isValidUtf8(preview));
    CHECK(codePoints(preview) <= std::max(budget, kMinPreviewChars) + 400);
}

reagent::memory::CompressedResult compressed(const std::string& result, CompressionConfig config = {}) {
    auto out = compress("test/tool", result, "_tool_result_1", config);
    REQUIRE(out.compressed);
    checkBounded(out.preview, config.budget);
    return out;
}

const std::string kAccess = "use recall(\"_tool_result_1\") or | transform: to access full data";

}  // namespace

TEST_CASE("a JSON array of commits becomes the seed's structured preview", "[memory][compress]") {
    const std::string commits = reagent::test::commitsJson();
    REQUIRE(commits.size() > 28'000);
    REQUIRE(commits.size() < 34'000);

    const auto out = compress("github/list_commits", commits, "_tool_result_1", CompressionConfig{});
    REQUIRE(out.compressed);
    CHECK(out.key == "_tool_result_1");
    const auto lines = linesOf(out.preview);
    REQUIRE(lines.size() == 7);
    CHECK(lines[0] == "[STORED: _tool_result_1 | github/list_commits]");
    CHECK(lines[1] ==
          "Type: Array(30) | Schema: sha, node_id, parents, commit.message, commit.comment_count, "
          "author.login, "
          "author.id, author.type, author.site_admin, commit.author.name, commit.author.email, +11 more");
    CHECK(lines[2] == "Preview (first 3):");
    CHECK(lines[3] ==
          "[0] sha=e255a5d3c1f04b8e9a7d2c6b5f8e1a0d9c3b7f42 node_id=C_kwDOLkZ0CtoAKGUyNTVhNWQ0 "
          "parents=[1 item] message=\"chore: update bun.lock\" \xE2\x80\xA6");
    CHECK(lines[4].rfind("[1] sha=59bae87", 0) == 0);
    CHECK(lines[4].find("message=\"feat(examples): unified runner\"") != std::string::npos);
    CHECK(lines[5].rfind("[2] sha=efc816e", 0) == 0);
    CHECK(lines[6] == "...27 more \xE2\x80\x94 " + kAccess);
    // The preview fits within the budget itself, as the seed promises.
    CHECK(characterCount(out.preview) <= 800);
    checkBounded(out.preview, 800);
}

TEST_CASE("the budget counts code points: exactly budget passes, one more compresses", "[memory][compress]") {
    SECTION("ASCII") {
        const std::string at(800, 'a');
        const auto same = compress("t", at, "_tool_result_1", CompressionConfig{});
        CHECK_FALSE(same.compressed);
        CHECK(same.preview == at);
        CHECK(same.key.empty());
        CHECK(compress("t", at + "a", "_tool_result_1", CompressionConfig{}).compressed);
    }
    SECTION("multi-byte characters are one character each") {
        std::string at;
        for (int i = 0; i < 800; ++i) {
            at += i % 2 == 0 ? "\xC3\xA9" : "\xF0\x9F\x98\x80";  // é (2 bytes), 😀 (4 bytes)
        }
        REQUIRE(at.size() == 2400);
        CHECK_FALSE(compress("t", at, "_tool_result_1", CompressionConfig{}).compressed);
        const auto over = compress("t", at + "\xE2\x82\xAC", "_tool_result_1", CompressionConfig{});  // €
        CHECK(over.compressed);
        checkBounded(over.preview, 800);
    }
    SECTION("a custom budget") {
        CompressionConfig config;
        config.budget = 10;
        CHECK_FALSE(compress("t", "0123456789", "k", config).compressed);
        CHECK(compress("t", "0123456789A", "k", config).compressed);
    }
}

TEST_CASE("nested objects flatten to dotted paths with leaf names", "[memory][compress]") {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (int i = 0; i < 40; ++i) {
        items.push_back({{"id", i},
                         {"author", {{"name", "Ann"}, {"team", {{"name", "core"}, {"size", 4}}}}},
                         {"committer", {{"name", "Bob"}}},
                         {"labels", {"bug", "p1", "ui"}},
                         {"meta", nlohmann::ordered_json::object()},
                         {"note", "first line\nsecond \"quoted\" line"}});
    }
    const auto out = compressed(items.dump());
    const auto lines = linesOf(out.preview);
    CHECK(lines[1] ==
          "Type: Array(40) | Schema: id, labels, meta, note, author.name, committer.name, author.team.name, "
          "author.team.size");
    // Equal leaf names get their parent's name; nested arrays show their length; strings are escaped.
    CHECK(
        lines[3] ==
        "[0] id=0 labels=[3 items] meta={} note=\"first line\\nsecond \\\"quoted\\\" line\" author.name=Ann "
        "committer.name=Bob team.name=core size=4");
    CHECK(lines.back() == "...37 more \xE2\x80\x94 " + kAccess);
}

TEST_CASE("an empty array says so and still tells how to reach the data", "[memory][compress]") {
    CompressionConfig config;
    config.budget = 0;
    const auto out = compressed("[]", config);
    CHECK(linesOf(out.preview) == std::vector<std::string>{"[STORED: _tool_result_1 | test/tool]",
                                                           "Type: Array(0)",
                                                           "Preview only \xE2\x80\x94 " + kAccess});
}

TEST_CASE("an array of scalars shows its item types and values", "[memory][compress]") {
    SECTION("numbers") {
        nlohmann::json numbers = nlohmann::json::array();
        for (int i = 0; i < 500; ++i) {
            numbers.push_back(i * 3);
        }
        numbers[1] = 2.50;
        const auto lines = linesOf(compressed(numbers.dump()).preview);
        CHECK(lines == std::vector<std::string>{"[STORED: _tool_result_1 | test/tool]",
                                                "Type: Array(500) | Items: number",
                                                "Preview (first 3):", "[0] 0", "[1] 2.5", "[2] 6",
                                                "...497 more \xE2\x80\x94 " + kAccess});
    }
    SECTION("strings are quoted only when they could be misread") {
        const nlohmann::json strings = {"plain", "two words", "123",        "true",
                                        "",      "a=b",       "2026-02-27", std::string(900, 'x')};
        CompressionConfig config;
        config.previewItems = 8;
        const auto lines = linesOf(compressed(strings.dump(), config).preview);
        CHECK(lines[1] == "Type: Array(8) | Items: string");
        CHECK(lines[3] == "[0] plain");
        CHECK(lines[4] == "[1] \"two words\"");
        CHECK(lines[5] == "[2] \"123\"");
        CHECK(lines[6] == "[3] \"true\"");
        CHECK(lines[7] == "[4] \"\"");
        CHECK(lines[8] == "[5] \"a=b\"");
        CHECK(lines[9] == "[6] 2026-02-27");
        // A long string is cut with an ellipsis.
        CHECK(lines[10].rfind("[7] xxxx", 0) == 0);
        CHECK(lines[10].size() < 300);
        CHECK(lines[10].substr(lines[10].size() - 3) == "\xE2\x80\xA6");
    }
    SECTION("mixed kinds") {
        const nlohmann::json mixed = {
            1, "a", nullptr, true, nlohmann::json::array({1, 2}), std::string(900, 'y')};
        const auto lines = linesOf(compressed(mixed.dump()).preview);
        CHECK(lines[1] == "Type: Array(6) | Items: number, string, null, boolean, array");
    }
}

TEST_CASE("a JSON object shows its keys and leading members", "[memory][compress]") {
    nlohmann::ordered_json repo = {{"id", 1296269},
                                   {"name", "Hello-World"},
                                   {"private", false},
                                   {"owner", {{"login", "octocat"}, {"id", 1}}},
                                   {"topics", {"octocat", "api"}},
                                   {"description", "This your first repo!"},
                                   {"readme", std::string(2000, 'r')}};
    const auto lines = linesOf(compressed(repo.dump()).preview);
    CHECK(lines[1] == "Type: Object(7 keys) | Keys: id, name, private, owner, topics, description, readme");
    CHECK(lines[2] == "Preview (first 5 keys):");
    CHECK(lines[3] == "id=1296269");
    CHECK(lines[4] == "name=Hello-World");
    CHECK(lines[5] == "private=false");
    CHECK(lines[6] == "owner={login=octocat id=1}");
    CHECK(lines[7] == "topics=[2 items]");
    CHECK(lines[8] == "...2 more keys \xE2\x80\x94 " + kAccess);
}

TEST_CASE("invalid JSON and bare JSON scalars are previewed as text", "[memory][compress]") {
    const std::string broken = "[{\"a\": 1}, " + std::string(1000, ' ') + "oops";
    CHECK(linesOf(compressed(broken).preview)[1] == "Type: Text(1 line, 1015 chars)");
    const std::string scalar = "\"" + std::string(1000, 's') + "\"";
    CHECK(linesOf(compressed(scalar).preview)[1] == "Type: Text(1 line, 1002 chars)");
}

TEST_CASE("the preview stays bounded whatever the input", "[memory][compress]") {
    SECTION("an object with 10,000 keys") {
        nlohmann::json wide = nlohmann::json::object();
        for (int i = 0; i < 10'000; ++i) {
            wide["key" + std::to_string(100'000 + i)] = i;
        }
        const auto lines = linesOf(compressed(wide.dump()).preview);
        CHECK(lines[1].rfind("Type: Object(10000 keys) | Keys: key100000, key100001, ", 0) == 0);
        CHECK(lines[1].find(" more") != std::string::npos);
        CHECK(lines.back() == "...9995 more keys \xE2\x80\x94 " + kAccess);
    }
    SECTION("deep nesting") {
        const std::string arrays = std::string(20'000, '[') + std::string(20'000, ']');
        CHECK(linesOf(compressed(arrays).preview)[3] == "[0] [1 item]");
        std::string objects;
        for (int i = 0; i < 5'000; ++i) {
            objects += "{\"k\":";
        }
        objects += "1" + std::string(5'000, '}');
        const auto out = compressed("[" + objects + "," + objects + "]");
        CHECK(linesOf(out.preview)[1].rfind("Type: Array(2) | Schema: k.k.k.k.k", 0) == 0);
    }
    SECTION("huge strings, keys and many fields") {
        const std::string huge(1'000'000, 'h');
        nlohmann::json item = {{huge, huge}};
        for (int i = 0; i < 300; ++i) {
            item["field" + std::to_string(i)] = huge.substr(0, 100);
        }
        compressed(nlohmann::json::array({item, item, item, item}).dump());
        compressed(item.dump());
    }
    SECTION("many preview items and a tiny budget") {
        CompressionConfig config;
        config.previewItems = 1000;
        config.budget = 5;
        const auto out = compressed(reagent::test::commitsJson(), config);
        CHECK(codePoints(out.preview) <= kMinPreviewChars + 400);
        CHECK(linesOf(out.preview).size() < 12);
    }
}

TEST_CASE("without autoStore the header says the result was truncated and not stored", "[memory][compress]") {
    CompressionConfig config;
    config.autoStore = false;
    const auto out = compress("github/list_commits", reagent::test::commitsJson(), "_tool_result_9", config);
    REQUIRE(out.compressed);
    CHECK(out.key.empty());
    const auto lines = linesOf(out.preview);
    CHECK(lines[0] == "[TRUNCATED, NOT STORED | github/list_commits]");
    CHECK(out.preview.find("_tool_result_9") == std::string::npos);
    CHECK(lines.back() ==
          "...27 more \xE2\x80\x94 the full result was not stored; call the tool again with | transform: to "
          "select what you need");
    config.codeTransform = false;
    CHECK(linesOf(compress("t", reagent::test::commitsJson(), "", config).preview).back() ==
          "...27 more \xE2\x80\x94 the full result was not stored; call the tool again with narrower "
          "arguments");
}

TEST_CASE("without codeTransform the preview offers only recall", "[memory][compress]") {
    CompressionConfig config;
    config.codeTransform = false;
    const auto out = compress("t", reagent::test::commitsJson(), "_tool_result_4", config);
    CHECK(linesOf(out.preview).back() ==
          "...27 more \xE2\x80\x94 use recall(\"_tool_result_4\") to access full data");
}

TEST_CASE("previewItems sets how many array items are shown", "[memory][compress]") {
    CompressionConfig config;
    config.previewItems = 5;
    config.budget = 1200;
    const auto lines = linesOf(compressed(reagent::test::commitsJson(), config).preview);
    CHECK(lines[2] == "Preview (first 5):");
    CHECK(lines[7].rfind("[4] sha=", 0) == 0);
    CHECK(lines[8].rfind("...25 more", 0) == 0);
}

TEST_CASE("compressAndStore keeps the full result in working memory", "[memory][compress]") {
    WorkingMemory memory;
    const std::string commits = reagent::test::commitsJson();

    const auto first = compressAndStore(memory, "github/list_commits", commits, CompressionConfig{});
    REQUIRE(first.compressed);
    CHECK(first.key == "_tool_result_1");
    CHECK(linesOf(first.preview)[0] == "[STORED: _tool_result_1 | github/list_commits]");
    REQUIRE(memory.find("_tool_result_1") != nullptr);
    CHECK(*memory.find("_tool_result_1") == commits);
    CHECK(memory.list().at(0).sourceTool == "github/list_commits");

    const auto small = compressAndStore(memory, "t", "short", CompressionConfig{});
    CHECK_FALSE(small.compressed);
    CHECK(small.preview == "short");
    CHECK(memory.size() == 1);

    CHECK(compressAndStore(memory, "t", commits, CompressionConfig{}).key == "_tool_result_2");

    SECTION("a result larger than the memory's budget is previewed but not stored") {
        WorkingMemory tiny(WorkingMemoryConfig{1000});
        const auto out = compressAndStore(tiny, "github/list_commits", commits, CompressionConfig{});
        CHECK(out.compressed);
        CHECK(out.key.empty());
        CHECK(linesOf(out.preview)[0] == "[TRUNCATED, NOT STORED | github/list_commits]");
        CHECK(tiny.size() == 0);
    }
    SECTION("autoStore off stores nothing") {
        CompressionConfig config;
        config.autoStore = false;
        CHECK(compressAndStore(memory, "t", commits, config).key.empty());
        CHECK(memory.size() == 2);
    }
}

TEST_CASE("storedKeyOf reads the key back from a stored result's preview, and from nothing else",
          "[memory][compressor]") {
    using reagent::memory::storedKeyOf;
    reagent::memory::CompressionConfig config;
    const std::string large(5000, 'x');
    CHECK(storedKeyOf(compress("fetch", large, "_tool_result_7", config).preview) == "_tool_result_7");
    config.autoStore = false;
    CHECK(storedKeyOf(compress("fetch", large, "_tool_result_7", config).preview).empty());  // not stored
    CHECK(storedKeyOf("short result").empty());
    CHECK(storedKeyOf("[STORED:  | fetch]").empty());
    CHECK(storedKeyOf("[STORED: a\nb | fetch]").empty());
    CHECK(storedKeyOf("[STORED: no separator]").empty());
}
