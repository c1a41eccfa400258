// `chunkText`: chunks cut at Markdown headings (with their heading paths), paragraphs, top-level code blocks,
// lines, words and characters; never larger than asked, never inside a UTF-8 sequence or a fenced code
// block that fits; overlap from the previous chunk; line and page numbers that point at the source.

#include <catch2/catch.hpp>
#include <cstdint>
#include <reagent/documents/chunking.hpp>
#include <string>
#include <vector>

#include "utf8_check.hpp"

namespace documents = reagent::documents;
using documents::ChunkOptions;
using documents::TextChunk;
using documents::TextFormat;
using reagent::test::codePoints;
using reagent::test::isValidUtf8;

namespace {

bool isBlankText(std::string_view text) {
    return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

/// Line `number` (1-based) of `text`, lines ended by '\n'.
std::string_view sourceLine(std::string_view text, std::size_t number) {
    for (std::size_t line = 1; line < number; ++line) {
        const std::size_t end = text.find('\n');
        REQUIRE(end != std::string_view::npos);
        text.remove_prefix(end + 1);
    }
    return text.substr(0, text.find('\n'));
}

std::string withoutWhitespace(std::string_view text) {
    std::string kept;
    for (const char c : text) {
        if (!isBlankText(std::string_view(&c, 1))) {
            kept += c;
        }
    }
    return kept;
}

/// What every chunking must hold, checked on chunks made without overlap: each chunk fits, holds text,
/// points at its first and last lines, and together they hold all of the source's text, in order.
void checkChunks(std::string_view source, const std::vector<TextChunk>& chunks, std::size_t maxChars) {
    std::string joined;
    for (const TextChunk& chunk : chunks) {
        CAPTURE(chunk.text);
        CHECK(codePoints(chunk.text) <= std::max<std::size_t>(maxChars, 1));
        CHECK_FALSE(isBlankText(chunk.text));
        CHECK(isValidUtf8(chunk.text));
        CHECK(chunk.lineStart <= chunk.lineEnd);
        const std::string_view text = chunk.text;
        CHECK(sourceLine(source, chunk.lineStart).find(text.substr(0, text.find('\n'))) != std::string::npos);
        CHECK(sourceLine(source, chunk.lineEnd).find(text.substr(text.rfind('\n') + 1)) != std::string::npos);
        joined += chunk.text;
    }
    CHECK(withoutWhitespace(joined) == withoutWhitespace(source));
}

/// A deterministic text of `paragraphs` paragraphs of words of varied lengths, some lines long.
std::string sampleText(std::size_t paragraphs) {
    std::uint32_t state = 12345;
    const auto next = [&state](std::uint32_t bound) {
        state = state * 1103515245U + 12345U;
        return (state >> 16) % bound;
    };
    std::string text;
    for (std::size_t p = 0; p < paragraphs; ++p) {
        const std::uint32_t lines = 1 + next(6);
        for (std::uint32_t l = 0; l < lines; ++l) {
            const std::uint32_t words = 1 + next(l == 0 ? 60 : 12);
            for (std::uint32_t w = 0; w < words; ++w) {
                text += std::string(1 + next(9), static_cast<char>('a' + next(26)));
                text += w + 1 < words ? " " : "\n";
            }
        }
        text += "\n";
    }
    return text;
}

}  // namespace

TEST_CASE("documents: a path's extension gives its format", "[documents][chunking]") {
    CHECK(documents::formatOf("docs/guide.md") == TextFormat::markdown);
    CHECK(documents::formatOf("README.MARKDOWN") == TextFormat::markdown);
    CHECK(documents::formatOf("site/page.mdx") == TextFormat::markdown);
    for (const char* path : {"src/a.cpp", "a.CC", "x.h", "lib.rs", "app.py", "run.sh", "q.sql", "m.kt",
                             "cmake/Deps.cmake", "libs/CMakeLists.txt", "w.tsx", "s.swift"}) {
        CAPTURE(path);
        CHECK(documents::formatOf(path) == TextFormat::code);
    }
    for (const char* path :
         {"notes.txt", "Makefile", "data.json", "dir.md/file", "report.pdf", ".bashrc", ""}) {
        CAPTURE(path);
        CHECK(documents::formatOf(path) == TextFormat::plain);
    }
}

TEST_CASE("documents: Markdown headings start chunks, under their heading path", "[documents][chunking]") {
    const std::string source =
        "Intro text.\n"
        "\n"
        "# Install\n"
        "\n"
        "Get it.\n"
        "\n"
        "## From source ##\n"
        "Build it.\n"
        "```sh\n"
        "# not a heading: in fenced code\n"
        "```\n"
        "\n"
        "## From packages\n"
        "\n"
        "apt install.\n"
        "### Debian\n"
        "# Usage\n"
        "Run it.\n";
    const auto chunks = documents::chunkText(source, TextFormat::markdown, ChunkOptions{1500, 0});
    checkChunks(source, chunks, 1500);
    REQUIRE(chunks.size() == 6);
    CHECK(chunks[0].text == "Intro text.");
    CHECK(chunks[0].heading.empty());
    CHECK(chunks[1].text == "# Install\n\nGet it.");
    CHECK(chunks[1].heading == "Install");
    CHECK(chunks[2].text == "## From source ##\nBuild it.\n```sh\n# not a heading: in fenced code\n```");
    CHECK(chunks[2].heading == "Install > From source");
    CHECK(chunks[3].heading == "Install > From packages");
    CHECK(chunks[4].text == "### Debian");
    CHECK(chunks[4].heading == "Install > From packages > Debian");
    CHECK(chunks[5].heading == "Usage");
    const std::vector<std::size_t> lineStarts = {chunks[0].lineStart, chunks[1].lineStart,
                                                 chunks[2].lineStart, chunks[3].lineStart,
                                                 chunks[4].lineStart, chunks[5].lineStart};
    CHECK(lineStarts == std::vector<std::size_t>{1, 3, 7, 13, 16, 17});
    CHECK(chunks[2].lineEnd == 11);
    for (const TextChunk& chunk : chunks) {
        CHECK(chunk.page == 0);
    }

    // Overlap never reaches back into another section: the heading starts its chunk.
    for (const TextChunk& chunk :
         documents::chunkText(source, TextFormat::markdown, ChunkOptions{1500, 100})) {
        CHECK((chunk.text.front() == '#' || chunk.text == "Intro text."));
    }
}

TEST_CASE("documents: a fenced code block is cut only when it alone is too large", "[documents][chunking]") {
    std::string code;
    for (int i = 0; i < 12; ++i) {
        code += "    step(" + std::to_string(i) + ");\n" + (i % 4 == 3 ? "\n" : "");
    }
    const std::string fence = "```cpp\nvoid run() {\n" + code + "}\n```";
    const std::string paragraph = std::string(120, 'p') + "\n";
    const std::string source = "# Code\n\n" + paragraph + "\n" + fence + "\n\n" + paragraph;
    REQUIRE(codePoints(fence) < 300);

    const auto chunks = documents::chunkText(source, TextFormat::markdown, ChunkOptions{300, 0});
    checkChunks(source, chunks, 300);
    std::size_t holding = 0;
    for (const TextChunk& chunk : chunks) {
        holding += chunk.text.find(fence) != std::string::npos ? 1 : 0;
        CHECK(chunk.heading == "Code");
    }
    CHECK(holding == 1);

    // Too large for one chunk: cut at its blank lines, then at line ends.
    const auto cut = documents::chunkText(source, TextFormat::markdown, ChunkOptions{60, 0});
    checkChunks(source, cut, 60);
    CHECK(cut.size() > 4);
}

TEST_CASE("documents: chunks repeat the end of the previous one, at a word boundary",
          "[documents][chunking]") {
    const std::string source = sampleText(40);
    const ChunkOptions plainOptions{200, 0};
    const ChunkOptions overlapOptions{200, 50};
    const auto plain = documents::chunkText(source, TextFormat::plain, plainOptions);
    const auto overlapped = documents::chunkText(source, TextFormat::plain, overlapOptions);
    checkChunks(source, plain, 200);
    REQUIRE(plain.size() > 10);
    REQUIRE(overlapped.size() == plain.size());
    CHECK(overlapped[0].text == plain[0].text);
    std::size_t withOverlap = 0;
    for (std::size_t i = 1; i < plain.size(); ++i) {
        CAPTURE(i, overlapped[i].text);
        const std::string& own = plain[i].text;
        const std::string& text = overlapped[i].text;
        // The same cuts, each chunk's own text now after its overlap.
        REQUIRE(text.size() >= own.size());
        CHECK(text.compare(text.size() - own.size(), own.size(), own) == 0);
        CHECK(overlapped[i].lineStart == plain[i].lineStart);
        const std::string_view overlap = std::string_view(text).substr(0, text.size() - own.size());
        CHECK(codePoints(overlap) <= 50);
        CHECK(codePoints(text) <= 250);
        if (overlap.empty()) {
            continue;
        }
        ++withOverlap;
        // The overlap (without its separator) ends the previous chunk, starting at a word.
        const std::string_view tail = overlap.substr(0, overlap.find_last_not_of(" \n") + 1);
        const std::string& previous = plain[i - 1].text;
        REQUIRE(previous.size() >= tail.size());
        CHECK(previous.compare(previous.size() - tail.size(), tail.size(), tail) == 0);
        if (previous.size() > tail.size()) {
            CHECK(isBlankText(std::string_view(previous).substr(previous.size() - tail.size() - 1, 1)));
        }
    }
    CHECK(withOverlap > plain.size() / 2);
}

TEST_CASE("documents: no chunk is larger than maxChars, in every format", "[documents][chunking]") {
    const std::string source = sampleText(30);
    for (const TextFormat format : {TextFormat::plain, TextFormat::markdown, TextFormat::code}) {
        for (const std::size_t maxChars :
             {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
            CAPTURE(static_cast<int>(format), maxChars);
            checkChunks(source, documents::chunkText(source, format, ChunkOptions{maxChars, 0}), maxChars);
            for (const TextChunk& chunk : documents::chunkText(source, format, ChunkOptions{maxChars, 5})) {
                CHECK(codePoints(chunk.text) <= maxChars + 5);
            }
        }
    }
    // maxChars 0 is taken as 1.
    const auto single = documents::chunkText("ab c", TextFormat::plain, ChunkOptions{0, 0});
    REQUIRE(single.size() == 3);
    CHECK(single[0].text == "a");
    CHECK(single[2].text == "c");
}

TEST_CASE("documents: a UTF-8 sequence is never cut", "[documents][chunking]") {
    std::string source;
    for (int i = 0; i < 1000; ++i) {
        source += "\xE2\x82\xAC";  // U+20AC, three bytes
    }
    for (const std::size_t overlap : {std::size_t{0}, std::size_t{3}}) {
        const auto chunks = documents::chunkText(source, TextFormat::plain, ChunkOptions{7, overlap});
        if (overlap == 0) {
            checkChunks(source, chunks, 7);
        }
        REQUIRE(chunks.size() == 143);
        for (const TextChunk& chunk : chunks) {
            CHECK(isValidUtf8(chunk.text));
            CHECK(codePoints(chunk.text) <= 7 + overlap);
        }
        CHECK(codePoints(chunks[1].text) ==
              7 + overlap);  // no word boundary: the overlap cuts at a character
        CHECK(codePoints(chunks.back().text) == 1000 % 7 + overlap);
    }
}

TEST_CASE("documents: code is cut between top-level blocks", "[documents][chunking]") {
    const std::string source =
        "#include <string>\n#include <vector>\n"
        "\n"
        "int f() {\n    return 1;\n}\n"
        "\n"
        "struct S {\n    int a;\n\n    int b;\n};\n"
        "\n"
        "int g() { return 2; }\n";
    const auto chunks = documents::chunkText(source, TextFormat::code, ChunkOptions{45, 0});
    checkChunks(source, chunks, 45);
    REQUIRE(chunks.size() == 4);
    CHECK(chunks[0].text == "#include <string>\n#include <vector>");
    CHECK(chunks[1].text == "int f() {\n    return 1;\n}");
    CHECK(chunks[2].text == "struct S {\n    int a;\n\n    int b;\n};");  // the indented blank line stays
    CHECK(chunks[3].text == "int g() { return 2; }");
    CHECK(chunks[2].lineStart == 8);
    CHECK(chunks[2].lineEnd == 12);
    CHECK(chunks[3].lineStart == 14);

    // Blocks are packed while they fit; a block too large is cut at line ends.
    const auto packed = documents::chunkText(source, TextFormat::code, ChunkOptions{1500, 0});
    REQUIRE(packed.size() == 1);
    CHECK(packed[0].text == source.substr(0, source.size() - 1));
    const auto lines = documents::chunkText(source, TextFormat::code, ChunkOptions{12, 0});
    checkChunks(source, lines, 12);
    REQUIRE(lines.size() > 5);
    CHECK(lines[3].text == "<vector>");   // a line too long: cut at its spaces
    CHECK(lines[4].text == "int f() {");  // a block too long: cut at its line ends
    CHECK(lines[5].text == "return 1;\n}");
}

TEST_CASE("documents: a single line of 10,000 characters", "[documents][chunking]") {
    std::string words;
    for (int i = 0; words.size() < 10000; ++i) {
        words += "w" + std::to_string(i) + " ";
    }
    words.resize(10000);
    words.back() = 'x';
    const auto byWords = documents::chunkText(words, TextFormat::plain, ChunkOptions{1500, 0});
    checkChunks(words, byWords, 1500);
    std::string rejoined;
    for (const TextChunk& chunk : byWords) {
        CHECK(chunk.lineStart == 1);
        CHECK(chunk.lineEnd == 1);
        CHECK(chunk.text.front() == 'w');  // cut at spaces, never inside a word
        rejoined += (rejoined.empty() ? "" : " ") + chunk.text;
    }
    CHECK(rejoined == words);

    const std::string solid(10000, 'x');
    const auto hard = documents::chunkText(solid, TextFormat::markdown, ChunkOptions{1500, 0});
    checkChunks(solid, hard, 1500);
    REQUIRE(hard.size() == 7);
    CHECK(hard[0].text.size() == 1500);
    CHECK(hard[6].text.size() == 1000);
}

TEST_CASE("documents: form feeds give each chunk its page", "[documents][chunking]") {
    const std::string source = "First page, first line.\nMore of page one.\fPage two.\n\fPage three.\nEnd.";
    const auto chunks = documents::chunkText(source, TextFormat::plain, ChunkOptions{25, 0});
    checkChunks(source, chunks, 25);
    REQUIRE(chunks.size() == 4);
    CHECK(chunks[0].page == 1);
    CHECK(chunks[1].page == 1);
    CHECK(chunks[2].text == "Page two.");
    CHECK(chunks[2].page == 2);
    CHECK(chunks[2].lineStart == 2);
    CHECK(chunks[3].text == "Page three.\nEnd.");
    CHECK(chunks[3].page == 3);
    CHECK(chunks[3].lineStart == 3);
    CHECK(chunks[3].lineEnd == 4);

    // Paragraphs are packed across a page break, which is a paragraph boundary.
    const auto packed = documents::chunkText(source, TextFormat::plain, ChunkOptions{1500, 0});
    REQUIRE(packed.size() == 1);
    CHECK(packed[0].page == 1);
}

TEST_CASE("documents: empty and blank texts give no chunks", "[documents][chunking]") {
    for (const TextFormat format : {TextFormat::plain, TextFormat::markdown, TextFormat::code}) {
        CHECK(documents::chunkText("", format).empty());
        CHECK(documents::chunkText(" \n\n\t \r\n\f\n", format).empty());
    }
    const auto headed = documents::chunkText("#  \n\n   \n# Title\n", TextFormat::markdown);
    REQUIRE(headed.size() == 2);
    CHECK(headed[0].text == "#");
    CHECK(headed[1].heading == "Title");
}

TEST_CASE("documents: chunking is deterministic", "[documents][chunking]") {
    const std::string source =
        "# A\n\n" + sampleText(20) + "## B\n\n```\ncode\n\nmore\n```\n" + sampleText(10);
    const auto first = documents::chunkText(source, TextFormat::markdown, ChunkOptions{300, 40});
    const auto second = documents::chunkText(source, TextFormat::markdown, ChunkOptions{300, 40});
    REQUIRE(first.size() == second.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        CHECK(first[i].text == second[i].text);
        CHECK(first[i].lineStart == second[i].lineStart);
        CHECK(first[i].lineEnd == second[i].lineEnd);
        CHECK(first[i].page == second[i].page);
        CHECK(first[i].heading == second[i].heading);
    }
}

TEST_CASE("documents: large texts are chunked in one pass", "[documents][chunking]") {
    // Pathological shapes that a quadratic cutter would stall on: one huge paragraph, one huge line, one
    // huge word, a huge fenced block, many tiny headings.
    const std::size_t size = 2'000'000;
    std::string paragraph;
    while (paragraph.size() < size) {
        paragraph += "word word word word\n";
    }
    const std::string line(size, 'a');
    std::string spaced;
    while (spaced.size() < size) {
        spaced += "abc ";
    }
    std::string headings;
    while (headings.size() < size) {
        headings += "# h\n## i\ntext\n";
    }
    const std::string fence = "```\n" + paragraph + "```\n";
    for (const std::string* text :
         std::vector<const std::string*>{&paragraph, &line, &spaced, &headings, &fence}) {
        const auto chunks = documents::chunkText(*text, TextFormat::markdown, ChunkOptions{1500, 200});
        CHECK_FALSE(chunks.empty());
        for (const TextChunk& chunk : chunks) {
            CHECK(codePoints(chunk.text) <= 1700);
        }
    }
}
