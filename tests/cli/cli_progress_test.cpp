// Tool progress in the trace of `reagent run`: the demo's word_count reports how many lines it has
// counted, and each report is printed on stderr while the call runs, between its start and its end.

#include <catch2/catch.hpp>
#include <cstddef>
#include <string>

#include "cli_process.hpp"

using reagent::test::runCli;

namespace {

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
        ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("run traces a tool's progress reports while the call runs", "[cli][run][progress]") {
    SECTION("a one-line prompt: one report, after the last line") {
        const auto outcome = runCli({"run", "What is 6*7?"});
        INFO("stderr: " << outcome.err);
        REQUIRE(outcome.status == 0);
        CHECK(occurrences(outcome.err, "  progress word_count: ") == 1);
        CHECK(outcome.err.find("  progress word_count: 1/1 lines counted\n") != std::string::npos);
    }
    SECTION(
        "a prompt of 25 lines: a report every 2 lines and one after the last, in order, inside the call") {
        std::string prompt = "What is 6*7?";
        for (int line = 2; line <= 25; ++line) {
            prompt += "\nline " + std::to_string(line);
        }
        const auto outcome = runCli({"run", prompt});
        INFO("stderr: " << outcome.err);
        REQUIRE(outcome.status == 0);
        CHECK(outcome.out.find("25 lines.") != std::string::npos);
        CHECK(occurrences(outcome.err, "  progress word_count: ") == 13);
        const auto started = outcome.err.find("\u2192 word_count: ");
        const auto ended = outcome.err.find("\u2713 word_count (");
        REQUIRE(started != std::string::npos);
        REQUIRE(ended != std::string::npos);
        std::size_t previous = started;
        for (int done = 2; done <= 26; done += 2) {
            const int shown = done > 25 ? 25 : done;
            const std::string line =
                "  progress word_count: " + std::to_string(shown) + "/25 lines counted\n";
            const auto at = outcome.err.find(line);
            INFO(line);
            REQUIRE(at != std::string::npos);
            CHECK(at > previous);
            previous = at;
        }
        CHECK(previous < ended);
    }
    SECTION("--quiet and --json print no progress") {
        for (const char* flag : {"--quiet", "--json"}) {
            const auto outcome = runCli({"run", flag, "What is 6*7?"});
            INFO(flag << " stderr: " << outcome.err);
            REQUIRE(outcome.status == 0);
            CHECK(outcome.err.find("progress") == std::string::npos);
            CHECK(outcome.out.find("progress") == std::string::npos);
        }
    }
}
