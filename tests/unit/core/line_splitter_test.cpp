#include "reagent/core/line_splitter.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using reagent::LineSplitter;

namespace {

struct Collected {
    std::vector<std::string> lines;
    std::vector<std::size_t> dropped;
};

bool feedAll(LineSplitter& splitter, Collected& out, const std::vector<std::string>& pieces) {
    auto onLine = [&out](std::string_view line) { out.lines.emplace_back(line); };
    auto onTooLong = [&out](std::size_t size) { out.dropped.push_back(size); };
    for (const auto& piece : pieces) {
        if (!splitter.feed(piece, onLine, onTooLong)) {
            return false;
        }
    }
    splitter.finish(onLine, onTooLong);
    return true;
}

}  // namespace

TEST_CASE("line splitter: lines across pieces, CRLF, blank lines and a last line without newline",
          "[core][lines]") {
    LineSplitter splitter(100);
    Collected out;
    REQUIRE(feedAll(splitter, out, {"{\"a\"", ":1}\r\n\n   \t\n{\"b\":2}\n{\"c\"", ":3}"}));
    CHECK(out.lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"});
    CHECK(out.dropped.empty());
}

TEST_CASE("line splitter: a line over the limit is dropped and reported, the next one is read",
          "[core][lines]") {
    LineSplitter splitter(8);
    Collected out;
    REQUIRE(feedAll(splitter, out, {"short\n0123", "456789ab", "cdef\nafter\n12345678\n"}));
    CHECK(out.lines == std::vector<std::string>{"short", "after", "12345678"});
    CHECK(out.dropped == std::vector<std::size_t>{16});
}

TEST_CASE("line splitter: with LongLines::stop, nothing is read past the first long line", "[core][lines]") {
    LineSplitter splitter(4, LineSplitter::LongLines::stop);
    Collected out;
    CHECK_FALSE(feedAll(splitter, out, {"ok\ntoo long\nnever\n"}));
    CHECK(out.lines == std::vector<std::string>{"ok"});
    CHECK(out.dropped.empty());
    auto onLine = [&out](std::string_view line) { out.lines.emplace_back(line); };
    auto onTooLong = [&out](std::size_t size) { out.dropped.push_back(size); };
    CHECK_FALSE(splitter.feed("more\n", onLine, onTooLong));
    splitter.finish(onLine, onTooLong);
    CHECK(out.lines.size() == 1);
}
