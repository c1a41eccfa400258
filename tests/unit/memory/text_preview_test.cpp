#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "reagent/memory/result_compressor.hpp"
#include "utf8_check.hpp"

using reagent::memory::characterCount;
using reagent::memory::compress;
using reagent::memory::CompressionConfig;
using reagent::memory::exceedsBudget;
using reagent::memory::kMinPreviewChars;
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

std::string previewOf(const std::string& text, CompressionConfig config = {}) {
    const auto out = compress("fs/read_file", text, "_tool_result_3", config);
    REQUIRE(out.compressed);
    REQUIRE(isValidUtf8(out.preview));
    CHECK(codePoints(out.preview) <= std::max(config.budget, kMinPreviewChars) + 400);
    return out.preview;
}

const std::string kEllipsis = "\xE2\x80\xA6";
const std::string kAccess = "\xE2\x80\x94 use recall(\"_tool_result_3\") or | transform: to access full data";

}  // namespace

TEST_CASE("plain text shows its size and first lines", "[memory][compress][text]") {
    std::string text;
    for (int i = 0; i < 200; ++i) {
        text += "line " + std::to_string(i) + ": the quick brown fox\r\n";
    }
    const auto lines = linesOf(previewOf(text));
    CHECK(lines[0] == "[STORED: _tool_result_3 | fs/read_file]");
    CHECK(lines[1] == "Type: Text(200 lines, " + std::to_string(text.size()) + " chars)");
    REQUIRE(lines[2].rfind("Preview (first ", 0) == 0);
    const std::size_t shown = std::stoul(lines[2].substr(15));
    CHECK(shown >= 10);
    CHECK(lines[2] == "Preview (first " + std::to_string(shown) + " lines):");
    // Whole lines, carriage returns dropped.
    CHECK(lines[3] == "line 0: the quick brown fox");
    CHECK(lines[2 + shown] == "line " + std::to_string(shown - 1) + ": the quick brown fox");
    CHECK(lines[3 + shown] == "..." + std::to_string(200 - shown) + " more lines " + kAccess);
    CHECK(lines.size() == 4 + shown);
}

TEST_CASE("a huge single line is cut to the preview's size", "[memory][compress][text]") {
    const std::string line(1'000'000, 'x');
    const auto lines = linesOf(previewOf(line));
    REQUIRE(lines.size() == 5);
    CHECK(lines[1] == "Type: Text(1 line, 1000000 chars)");
    CHECK(lines[2] == "Preview (first 1 line):");
    CHECK(codePoints(lines[3]) > 300);
    CHECK(codePoints(lines[3]) < 800);
    CHECK(lines[3].substr(lines[3].size() - 3) == kEllipsis);
    CHECK(lines[4] == "Preview only " + kAccess);
}

TEST_CASE("non-ASCII text is cut between characters, never inside one", "[memory][compress][text][utf8]") {
    // Shift the text by 0..3 ASCII bytes so that the cut lands at every position of 2-, 3- and 4-byte
    // characters in turn.
    const std::vector<std::string> characters = {"\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x98\x80"};  // é 日 😀
    for (const std::string& character : characters) {
        for (int shift = 0; shift < 4; ++shift) {
            std::string text(static_cast<std::size_t>(shift), 'a');
            for (int i = 0; i < 2000; ++i) {
                text += character;
            }
            CAPTURE(character, shift);
            const std::string preview = previewOf(text);
            const auto lines = linesOf(preview);
            CHECK(lines[1] == "Type: Text(1 line, " + std::to_string(2000 + shift) + " chars)");
            // Only whole characters before the ellipsis.
            const std::string body = lines[3].substr(0, lines[3].size() - kEllipsis.size());
            CHECK(body.substr(0, static_cast<std::size_t>(shift)) ==
                  std::string(static_cast<std::size_t>(shift), 'a'));
            CHECK((body.size() - static_cast<std::size_t>(shift)) % character.size() == 0);
        }
    }
}

TEST_CASE("multi-line non-ASCII text keeps whole characters on every line",
          "[memory][compress][text][utf8]") {
    std::string text;
    for (int i = 0; i < 100; ++i) {
        text += "Zeile " + std::to_string(i) + ": Grüße aus Köln, 日本語のテキスト 😀\n";
    }
    const auto lines = linesOf(previewOf(text));
    CHECK(lines[1] == "Type: Text(100 lines, " + std::to_string(characterCount(text)) + " chars)");
    CHECK(lines[3] == "Zeile 0: Grüße aus Köln, 日本語のテキスト 😀");
}

TEST_CASE("malformed UTF-8 in text becomes U+FFFD", "[memory][compress][text][utf8]") {
    // A stray continuation byte, a truncated sequence, an overlong form and a surrogate.
    const std::string bad = "ok\x80 x\xE6\x97 y\xC0\xAF z\xED\xA0\x80 end";
    std::string text;
    for (int i = 0; i < 60; ++i) {
        text += bad + "\n";
    }
    const auto lines = linesOf(previewOf(text));
    const std::string replacement = "\xEF\xBF\xBD";
    CHECK(lines[3] == "ok" + replacement + " x" + replacement + replacement + " y" + replacement +
                          replacement + " z" + replacement + replacement + replacement + " end");
    // Each malformed byte counts as one character.
    CHECK(characterCount(bad) == 20);
}

TEST_CASE("character counting and the budget test agree", "[memory][compress][utf8]") {
    CHECK(characterCount("") == 0);
    CHECK(characterCount("abc") == 3);
    CHECK(characterCount("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80") == 3);
    CompressionConfig config;
    config.budget = 3;
    CHECK_FALSE(exceedsBudget("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80", config));
    CHECK(exceedsBudget("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80!", config));
}

TEST_CASE("tool names from outside are kept on one line and cut", "[memory][compress][text]") {
    const auto out = compress(std::string(200, 'n') + "\nnext", std::string(900, 'x'), "_tool_result_3",
                              CompressionConfig{});
    const auto lines = linesOf(out.preview);
    CHECK(lines[0] == "[STORED: _tool_result_3 | " + std::string(63, 'n') + kEllipsis + "]");
}
