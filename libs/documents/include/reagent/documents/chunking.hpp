#pragma once
/// \file
/// \brief `chunkText`: a document's text cut into chunks for retrieval, at the boundaries its format
/// offers (Markdown headings and paragraphs, top-level code blocks, paragraphs, lines, words).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::documents {

/// \brief How a text is structured, which decides where `chunkText` prefers to cut it.
enum class TextFormat {
    /// Paragraphs separated by blank lines (and pages by form feeds).
    plain,
    /// Markdown: headings start sections, fenced code blocks stay whole.
    markdown,
    /// Source code: top-level declarations (a line at column 0 after a blank line) start blocks.
    code,
};

/// \brief The format a path's extension implies: `.md .markdown .mdx` -> markdown; source code extensions
/// (`.c .cc .cpp .cxx .h .hh .hpp .py .js .mjs .ts .tsx .jsx .go .rs .java .kt .rb .php .cs .swift .scala
/// .sh .bash .lua .sql .cmake`, and `CMakeLists.txt`) -> code; everything else plain. Case-insensitive.
[[nodiscard]] TextFormat formatOf(std::string_view path);

/// \brief How large chunks are. Characters are UTF-8 code points.
struct ChunkOptions {
    /// The most characters of a chunk's own text (its overlap comes on top); 0 is taken as 1.
    std::size_t maxChars = 1500;
    /// The most characters a chunk repeats from the end of the previous one, for context; 0: none.
    std::size_t overlapChars = 200;
};

/// \brief One piece of a text, with where it came from.
struct TextChunk {
    /// The chunk's text; starts with the overlap taken from the end of the previous chunk (cut at a word or
    /// line boundary), then the chunk's own text. The first chunk of a Markdown section has no overlap:
    /// its heading starts it.
    std::string text;
    /// 1-based line of the source where the chunk's own text (after the overlap) starts.
    std::size_t lineStart = 1;
    /// 1-based line of the source where the chunk's own text ends.
    std::size_t lineEnd = 1;
    /// When the text has form feeds ('\f', pages of a PDF): the 1-based page the chunk starts on; 0
    /// otherwise.
    std::size_t page = 0;
    /// Markdown: the heading path the chunk is under, `"Install > From source"` (each title at most 200
    /// characters); empty otherwise.
    std::string heading;
};

/// \brief Cuts `text` into chunks whose own text has at most `options.maxChars` characters.
///
/// Markdown: a heading line (`#`..`######` and a space, outside fenced code) always starts a chunk; a
/// longer section splits at blank lines, then at line ends, then (a single huge line) at spaces, then at
/// `maxChars` characters; a fenced code block is split only when it alone exceeds `maxChars`. Code: blank
/// lines followed by a line at column 0 separate blocks, packed up to `maxChars`; larger blocks split as
/// above. Plain: paragraphs packed up to `maxChars`, larger ones split as above. A form feed is a paragraph
/// boundary too. A UTF-8 sequence is never cut; empty or whitespace-only chunks are never made.
///
/// Deterministic, and linear in the text's size. Any bytes are taken (invalid UTF-8 counts by lead bytes).
[[nodiscard]] std::vector<TextChunk> chunkText(std::string_view text, TextFormat format,
                                               const ChunkOptions& options = {});

}  // namespace reagent::documents
