// `formatOf` and `chunkText`: a text cut at the boundaries its format offers. One pass finds the format's
// large units (Markdown sections and blocks, top-level code blocks, paragraphs); `ChunkBuilder` packs them
// greedily and cuts a unit too large for one chunk at the next finer boundary (paragraphs, lines, words,
// characters). Chunks are spans of the source until the last step, so each byte is looked at a bounded
// number of times: linear in the text's size.

#include "reagent/documents/chunking.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <utility>

namespace reagent::documents {

namespace {

/// A heading path names each heading by at most this many characters: a pathological heading line must not
/// be copied whole into every chunk of its section.
constexpr std::size_t kMaxHeadingTitleChars = 200;

/// A range of bytes of the source text.
struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// The separators between units: ASCII only, so a gap's bytes are its characters.
bool isChunkSpace(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool isUtf8Tail(char c) noexcept {
    return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

/// Characters (UTF-8 code points, counted by their lead bytes) in `span`.
std::size_t codePointsIn(std::string_view text, Span span) noexcept {
    std::size_t count = 0;
    for (std::size_t i = span.begin; i < span.end; ++i) {
        count += isUtf8Tail(text[i]) ? 0 : 1;
    }
    return count;
}

/// One line: [begin, end) without its terminator, '\n' or '\f' (a page break ends a line and a paragraph).
struct Line {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t contentEnd = 0;  // end without trailing whitespace; == begin for a blank line
    std::size_t next = 0;        // where the next line begins
    bool pageBreak = false;

    [[nodiscard]] bool blank() const noexcept { return contentEnd == begin; }
    [[nodiscard]] Span content() const noexcept { return {begin, contentEnd}; }
};

Line lineAt(std::string_view text, std::size_t at, std::size_t limit) noexcept {
    Line line;
    line.begin = at;
    line.end = at;
    while (line.end < limit && text[line.end] != '\n' && text[line.end] != '\f') {
        ++line.end;
    }
    line.contentEnd = line.end;
    while (line.contentEnd > at && isChunkSpace(text[line.contentEnd - 1])) {
        --line.contentEnd;
    }
    line.pageBreak = line.end < limit && text[line.end] == '\f';
    line.next = line.end < limit ? line.end + 1 : limit;
    return line;
}

/// Calls `onParagraph` with each run of non-blank lines in `span`; a page break ends a run too.
template <class OnParagraph>
void forEachParagraph(std::string_view text, Span span, OnParagraph&& onParagraph) {
    std::optional<Span> paragraph;
    for (std::size_t at = span.begin; at < span.end;) {
        const Line line = lineAt(text, at, span.end);
        if (!line.blank()) {
            if (!paragraph) {
                paragraph = Span{line.begin, line.begin};
            }
            paragraph->end = line.contentEnd;
        }
        if (paragraph && (line.blank() || line.pageBreak)) {
            onParagraph(*paragraph);
            paragraph.reset();
        }
        at = line.next;
    }
    if (paragraph) {
        onParagraph(*paragraph);
    }
}

template <class OnLine>
void forEachLine(std::string_view text, Span span, OnLine&& onLine) {
    for (std::size_t at = span.begin; at < span.end;) {
        const Line line = lineAt(text, at, span.end);
        if (!line.blank()) {
            onLine(line.content());
        }
        at = line.next;
    }
}

template <class OnWord>
void forEachWord(std::string_view text, Span span, OnWord&& onWord) {
    std::size_t at = span.begin;
    while (at < span.end) {
        while (at < span.end && isChunkSpace(text[at])) {
            ++at;
        }
        const std::size_t begin = at;
        while (at < span.end && !isChunkSpace(text[at])) {
            ++at;
        }
        if (at > begin) {
            onWord(Span{begin, at});
        }
    }
}

/// The boundaries a unit too large for one chunk is cut at, coarsest first.
enum class Cut { paragraphs, lines, words, characters };

/// Where the chunks' line and page numbers are read: moves forward only, as chunks come in order.
struct SourcePosition {
    std::size_t offset = 0;
    std::size_t line = 1;
    std::size_t page = 1;

    void advanceTo(std::string_view text, std::size_t target) noexcept {
        for (; offset < target; ++offset) {
            line += text[offset] == '\n' ? 1 : 0;
            page += text[offset] == '\f' ? 1 : 0;
        }
    }
};

/// Packs units (spans of the source, in order) into chunks of at most `maxChars` characters. A chunk is a
/// span too until `flush` copies it, with the overlap from the previous chunk in front.
class ChunkBuilder {
  public:
    ChunkBuilder(std::string_view text, const ChunkOptions& options)
        : text_(text),
          maxChars_(std::max<std::size_t>(options.maxChars, 1)),
          overlapChars_(options.overlapChars),
          paged_(text.find('\f') != std::string_view::npos) {}

    /// Adds `unit` to the open chunk, or to a new one; a unit larger than a chunk is cut at `finer`
    /// boundaries, starting a chunk of its own (its parts may share their last chunk with what follows).
    void add(Span unit, Cut finer) {
        const std::size_t chars = codePointsIn(text_, unit);
        if (chars <= maxChars_) {
            append(unit, chars);
            return;
        }
        flush();
        cut(unit, finer);
    }

    /// Ends the open chunk: what follows is under `heading`, and repeats nothing of the previous section.
    void startSection(std::string heading) {
        flush();
        heading_ = std::move(heading);
        previous_.reset();
    }

    [[nodiscard]] std::vector<TextChunk> finish() {
        flush();
        return std::move(chunks_);
    }

  private:
    void append(Span unit, std::size_t chars) {
        if (open_) {
            // The gap between two units is whitespace: ASCII, one character a byte.
            const std::size_t joined = openChars_ + (unit.begin - open_->end) + chars;
            if (joined <= maxChars_) {
                open_->end = unit.end;
                openChars_ = joined;
                return;
            }
            flush();
        }
        open_ = unit;
        openChars_ = chars;
    }

    void cut(Span unit, Cut finer) {
        switch (finer) {
            case Cut::paragraphs:
                forEachParagraph(text_, unit, [this](Span part) { add(part, Cut::lines); });
                break;
            case Cut::lines:
                forEachLine(text_, unit, [this](Span part) { add(part, Cut::words); });
                break;
            case Cut::words:
                forEachWord(text_, unit, [this](Span part) { add(part, Cut::characters); });
                break;
            case Cut::characters:
                cutCharacters(unit);
                break;
        }
    }

    /// A word longer than a chunk: pieces of `maxChars` characters, never inside a UTF-8 sequence.
    void cutCharacters(Span unit) {
        std::size_t at = unit.begin;
        while (at < unit.end) {
            std::size_t end = at;
            std::size_t chars = 0;
            while (end < unit.end && (isUtf8Tail(text_[end]) || chars < maxChars_)) {
                chars += isUtf8Tail(text_[end]) ? 0 : 1;
                ++end;
            }
            append(Span{at, end}, chars);
            at = end;
        }
    }

    /// What goes between the overlap and the chunk's own text: the gap's line breaks (at most two), or a
    /// space.
    [[nodiscard]] std::string_view separatorBefore(std::size_t begin) const noexcept {
        std::size_t breaks = 0;
        for (std::size_t i = previous_->end; i < begin && breaks < 2; ++i) {
            breaks += text_[i] == '\n' || text_[i] == '\f' ? 1 : 0;
        }
        if (breaks > 0) {
            return std::string_view("\n\n").substr(0, breaks);
        }
        return previous_->end < begin ? " " : "";
    }

    /// The end of the previous chunk's own text, at most `budget` characters, starting at a word or line
    /// boundary (at a character when the window holds no whitespace at all).
    [[nodiscard]] std::string_view overlapTail(std::size_t budget) const noexcept {
        const Span previous = *previous_;
        std::size_t start = previous.end;
        for (std::size_t chars = 0; start > previous.begin && chars < budget; ++chars) {
            --start;
            while (start > previous.begin && isUtf8Tail(text_[start])) {
                --start;
            }
        }
        if (start > previous.begin && !isChunkSpace(text_[start - 1])) {
            std::size_t boundary = start;
            while (boundary < previous.end && !isChunkSpace(text_[boundary])) {
                ++boundary;
            }
            if (boundary < previous.end) {
                start = boundary;
            }
        }
        while (start < previous.end && isChunkSpace(text_[start])) {
            ++start;
        }
        return text_.substr(start, previous.end - start);
    }

    void flush() {
        if (!open_) {
            return;
        }
        const Span own = *open_;
        open_.reset();
        TextChunk chunk;
        std::string_view overlap;
        std::string_view separator;
        if (previous_ && overlapChars_ > 0) {
            separator = separatorBefore(own.begin);
            if (separator.size() < overlapChars_) {
                overlap = overlapTail(overlapChars_ - separator.size());
            }
            if (overlap.empty()) {
                separator = {};
            }
        }
        chunk.text.reserve(overlap.size() + separator.size() + (own.end - own.begin));
        chunk.text.append(overlap).append(separator).append(text_.substr(own.begin, own.end - own.begin));
        position_.advanceTo(text_, own.begin);
        chunk.lineStart = position_.line;
        chunk.page = paged_ ? position_.page : 0;
        position_.advanceTo(text_, own.end - 1);
        chunk.lineEnd = position_.line;
        chunk.heading = heading_;
        chunks_.push_back(std::move(chunk));
        previous_ = own;
    }

    std::string_view text_;
    std::size_t maxChars_;
    std::size_t overlapChars_;
    bool paged_;
    std::optional<Span> open_;
    std::size_t openChars_ = 0;
    std::optional<Span> previous_;  // the last chunk's own text, in this section
    std::string heading_;
    SourcePosition position_;
    std::vector<TextChunk> chunks_;
};

void chunkPlain(std::string_view text, ChunkBuilder& builder) {
    forEachParagraph(text, Span{0, text.size()}, [&](Span paragraph) { builder.add(paragraph, Cut::lines); });
}

/// Blocks start at a line at column 0 that follows a blank line: top-level declarations, with the comments
/// right above them.
void chunkCode(std::string_view text, ChunkBuilder& builder) {
    std::optional<Span> block;
    bool afterBlank = false;
    for (std::size_t at = 0; at < text.size();) {
        const Line line = lineAt(text, at, text.size());
        if (line.blank()) {
            afterBlank = true;
        } else {
            if (block && afterBlank && !isChunkSpace(text[line.begin])) {
                builder.add(*block, Cut::paragraphs);
                block.reset();
            }
            if (!block) {
                block = Span{line.begin, line.begin};
            }
            block->end = line.contentEnd;
            afterBlank = line.pageBreak;
        }
        at = line.next;
    }
    if (block) {
        builder.add(*block, Cut::paragraphs);
    }
}

/// Up to three spaces of indentation, as Markdown allows before a heading or a fence.
std::string_view withoutIndent(std::string_view line) noexcept {
    std::size_t spaces = 0;
    while (spaces < 3 && spaces < line.size() && line[spaces] == ' ') {
        ++spaces;
    }
    return line.substr(spaces);
}

std::string_view trimmedSpaces(std::string_view text) noexcept {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && isChunkSpace(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

struct Heading {
    std::size_t level = 0;
    std::string_view title;
};

/// `## Title ##` -> {2, "Title"}; nothing unless the `#`s are followed by a space or a tab.
std::optional<Heading> headingOf(std::string_view line) noexcept {
    line = withoutIndent(line);
    std::size_t level = 0;
    while (level < line.size() && line[level] == '#') {
        ++level;
    }
    if (level == 0 || level > 6 || level == line.size() || (line[level] != ' ' && line[level] != '\t')) {
        return std::nullopt;
    }
    std::string_view title = trimmedSpaces(line.substr(level));
    // An optional closing run of '#'s, when a space separates it from the title (or it is all there is).
    const std::size_t closing = title.find_last_not_of('#');
    if (closing == std::string_view::npos) {
        title = {};
    } else if (closing + 1 < title.size() && (title[closing] == ' ' || title[closing] == '\t')) {
        title = trimmedSpaces(title.substr(0, closing));
    }
    return Heading{level, title};
}

struct Fence {
    char mark = '`';
    std::size_t length = 0;
};

std::size_t runOf(std::string_view text, char mark) noexcept {
    std::size_t length = 0;
    while (length < text.size() && text[length] == mark) {
        ++length;
    }
    return length;
}

std::optional<Fence> openingFence(std::string_view line) noexcept {
    line = withoutIndent(line);
    if (line.empty() || (line.front() != '`' && line.front() != '~')) {
        return std::nullopt;
    }
    const std::size_t length = runOf(line, line.front());
    return length >= 3 ? std::optional<Fence>(Fence{line.front(), length}) : std::nullopt;
}

bool closesFence(std::string_view line, const Fence& fence) noexcept {
    line = withoutIndent(line);
    const std::size_t length = runOf(line, fence.mark);
    return length >= fence.length && trimmedSpaces(line.substr(length)).empty();
}

/// The headings above the current line, one a level: `"Install > From source"`.
class HeadingPath {
  public:
    void enter(const Heading& heading) {
        while (!titles_.empty() && titles_.back().first >= heading.level) {
            titles_.pop_back();
        }
        std::string_view title = heading.title;
        std::size_t end = 0;
        for (std::size_t chars = 0; end < title.size() && chars < kMaxHeadingTitleChars; ++chars) {
            ++end;
            while (end < title.size() && isUtf8Tail(title[end])) {
                ++end;
            }
        }
        titles_.emplace_back(heading.level, std::string(title.substr(0, end)));
    }

    [[nodiscard]] std::string text() const {
        std::string path;
        for (const auto& [level, title] : titles_) {
            if (title.empty()) {
                continue;
            }
            path.append(path.empty() ? "" : " > ").append(title);
        }
        return path;
    }

  private:
    std::vector<std::pair<std::size_t, std::string>> titles_;
};

/// Sections start at headings; within them, paragraphs are cut at lines, and a fenced code block (closed
/// or running to the end) is one unit, cut at its blank lines only when it alone is larger than a chunk.
void chunkMarkdown(std::string_view text, ChunkBuilder& builder) {
    HeadingPath path;
    std::optional<Span> paragraph;
    std::optional<Fence> fence;
    Span fenced;
    const auto endParagraph = [&] {
        if (paragraph) {
            builder.add(*paragraph, Cut::lines);
            paragraph.reset();
        }
    };
    for (std::size_t at = 0; at < text.size();) {
        const Line line = lineAt(text, at, text.size());
        const std::string_view content = text.substr(line.begin, line.contentEnd - line.begin);
        at = line.next;
        if (fence) {
            if (!line.blank()) {
                fenced.end = line.contentEnd;
            }
            if (closesFence(content, *fence)) {
                builder.add(fenced, Cut::paragraphs);
                fence.reset();
            }
            continue;
        }
        if (line.blank()) {
            endParagraph();
            continue;
        }
        if (const auto heading = headingOf(content)) {
            endParagraph();
            path.enter(*heading);
            builder.startSection(path.text());
            builder.add(line.content(), Cut::words);
            continue;
        }
        fence = openingFence(content);
        if (fence) {
            endParagraph();
            fenced = line.content();
            continue;
        }
        if (!paragraph) {
            paragraph = Span{line.begin, line.begin};
        }
        paragraph->end = line.contentEnd;
        if (line.pageBreak) {
            endParagraph();
        }
    }
    endParagraph();
    if (fence) {
        builder.add(fenced, Cut::paragraphs);
    }
}

std::string lowercase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

}  // namespace

TextFormat formatOf(std::string_view path) {
    const std::string name = lowercase(path.substr(path.find_last_of("/\\") + 1));
    if (name == "cmakelists.txt") {
        return TextFormat::code;
    }
    const std::size_t dot = name.rfind('.');
    if (dot == std::string::npos) {
        return TextFormat::plain;
    }
    const std::string_view extension = std::string_view(name).substr(dot + 1);
    if (extension == "md" || extension == "markdown" || extension == "mdx") {
        return TextFormat::markdown;
    }
    static constexpr std::string_view kCodeExtensions[] = {
        "c",  "cc",   "cpp", "cxx", "h",   "hh", "hpp",   "py",    "js", "mjs",  "ts",  "tsx", "jsx",  "go",
        "rs", "java", "kt",  "rb",  "php", "cs", "swift", "scala", "sh", "bash", "lua", "sql", "cmake"};
    return std::find(std::begin(kCodeExtensions), std::end(kCodeExtensions), extension) !=
                   std::end(kCodeExtensions)
               ? TextFormat::code
               : TextFormat::plain;
}

std::vector<TextChunk> chunkText(std::string_view text, TextFormat format, const ChunkOptions& options) {
    ChunkBuilder builder(text, options);
    switch (format) {
        case TextFormat::plain:
            chunkPlain(text, builder);
            break;
        case TextFormat::markdown:
            chunkMarkdown(text, builder);
            break;
        case TextFormat::code:
            chunkCode(text, builder);
            break;
    }
    return builder.finish();
}

}  // namespace reagent::documents
