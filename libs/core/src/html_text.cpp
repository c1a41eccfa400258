// `htmlToMarkdown`: HTML to Markdown-flavoured text in one forward pass, without a DOM: each tag only changes
// how the text after it is written (a line break, a heading marker, a fence, whitespace kept or collapsed),
// and the elements whose content is not text are skipped to their end tag. `htmlTitle` reads the same
// markup for the one element `htmlToMarkdown` drops but a reader wants.

#include "reagent/core/html_text.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace reagent {

namespace {

bool isHtmlSpace(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

bool isAsciiLetter(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isTagNameChar(char c) noexcept {
    return isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '_';
}

char asciiLower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// Whether the tag name at `at` is `name` (lowercase), case-insensitively and whole.
bool tagNameAt(std::string_view html, std::size_t at, std::string_view name) noexcept {
    if (html.size() - std::min(at, html.size()) < name.size()) {
        return false;
    }
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (asciiLower(html[at + i]) != name[i]) {
            return false;
        }
    }
    return at + name.size() == html.size() || !isTagNameChar(html[at + name.size()]);
}

/// What a tag does to the text around it.
enum class TagRole {
    other,           // inline (`<a>`, `<b>`, `<span>`, ...) or unknown: nothing
    skipped,         // content is not text: skipped to the end tag
    lineBreak,       // starts a line
    paragraphBreak,  // starts a paragraph (a blank line before it)
    listItem,        // a line starting with "- "
    cell,            // a table cell: a space between cells
    heading,         // `<h1>`..`<h6>`
    pre,             // preformatted: whitespace kept, written as fenced code
};

TagRole roleOf(std::string_view name) noexcept {
    static constexpr std::pair<std::string_view, TagRole> kRoles[] = {
        {"script", TagRole::skipped},
        {"style", TagRole::skipped},
        {"noscript", TagRole::skipped},
        {"template", TagRole::skipped},
        {"svg", TagRole::skipped},
        {"head", TagRole::skipped},
        {"title", TagRole::skipped},  // not shown in the page: htmlTitle reads it
        {"br", TagRole::lineBreak},
        {"div", TagRole::lineBreak},
        {"tr", TagRole::lineBreak},
        {"dt", TagRole::lineBreak},
        {"dd", TagRole::lineBreak},
        {"summary", TagRole::lineBreak},
        {"caption", TagRole::lineBreak},
        {"figcaption", TagRole::lineBreak},
        {"option", TagRole::lineBreak},
        {"p", TagRole::paragraphBreak},
        {"section", TagRole::paragraphBreak},
        {"article", TagRole::paragraphBreak},
        {"blockquote", TagRole::paragraphBreak},
        {"table", TagRole::paragraphBreak},
        {"ul", TagRole::paragraphBreak},
        {"ol", TagRole::paragraphBreak},
        {"dl", TagRole::paragraphBreak},
        {"header", TagRole::paragraphBreak},
        {"footer", TagRole::paragraphBreak},
        {"main", TagRole::paragraphBreak},
        {"nav", TagRole::paragraphBreak},
        {"aside", TagRole::paragraphBreak},
        {"figure", TagRole::paragraphBreak},
        {"hr", TagRole::paragraphBreak},
        {"form", TagRole::paragraphBreak},
        {"fieldset", TagRole::paragraphBreak},
        {"details", TagRole::paragraphBreak},
        {"address", TagRole::paragraphBreak},
        {"body", TagRole::paragraphBreak},
        {"li", TagRole::listItem},
        {"td", TagRole::cell},
        {"th", TagRole::cell},
        {"pre", TagRole::pre},
    };
    if (name.size() == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6') {
        return TagRole::heading;
    }
    for (const auto& [known, role] : kRoles) {
        if (known == name) {
            return role;
        }
    }
    return TagRole::other;
}

void appendUtf8(std::string& out, std::uint32_t codePoint) {
    if (codePoint < 0x80) {
        out += static_cast<char>(codePoint);
    } else if (codePoint < 0x800) {
        out += static_cast<char>(0xC0 | (codePoint >> 6));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else if (codePoint < 0x10000) {
        out += static_cast<char>(0xE0 | (codePoint >> 12));
        out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (codePoint >> 18));
        out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    }
}

/// `#NNN` or `#xHH` (what is between '&' and ';') as a code point; nothing when it is not a character a
/// text may hold (NUL, a control character, a surrogate, past U+10FFFF) or not a number.
std::optional<std::uint32_t> numericEntity(std::string_view body) noexcept {
    const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
    const std::string_view digits = body.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 7) {
        return std::nullopt;
    }
    std::uint32_t value = 0;
    for (const char c : digits) {
        std::uint32_t digit = 0;
        if (c >= '0' && c <= '9') {
            digit = static_cast<std::uint32_t>(c - '0');
        } else if (hex && asciiLower(c) >= 'a' && asciiLower(c) <= 'f') {
            digit = static_cast<std::uint32_t>(asciiLower(c) - 'a' + 10);
        } else {
            return std::nullopt;
        }
        value = value * (hex ? 16 : 10) + digit;
    }
    const bool control = (value < 0x20 && value != '\t' && value != '\n') || (value >= 0x7F && value < 0xA0);
    if (control || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) {
        return std::nullopt;
    }
    return value;
}

std::optional<std::string_view> namedEntity(std::string_view name) noexcept {
    static constexpr std::pair<std::string_view, std::string_view> kEntities[] = {
        {"amp", "&"},        {"lt", "<"},         {"gt", ">"},          {"quot", "\""},
        {"apos", "'"},       {"nbsp", " "},       {"copy", "\u00A9"},   {"reg", "\u00AE"},
        {"trade", "\u2122"}, {"mdash", "\u2014"}, {"ndash", "\u2013"},  {"hellip", "\u2026"},
        {"lsquo", "\u2018"}, {"rsquo", "\u2019"}, {"ldquo", "\u201C"},  {"rdquo", "\u201D"},
        {"laquo", "\u00AB"}, {"raquo", "\u00BB"}, {"middot", "\u00B7"}, {"bull", "\u2022"},
        {"euro", "\u20AC"},  {"pound", "\u00A3"}, {"yen", "\u00A5"},    {"cent", "\u00A2"},
        {"deg", "\u00B0"},   {"times", "\u00D7"}, {"divide", "\u00F7"}, {"para", "\u00B6"},
        {"sect", "\u00A7"},
    };
    for (const auto& [known, text] : kEntities) {
        if (known == name) {
            return text;
        }
    }
    return std::nullopt;
}

/// At `html[at] == '&'`: the character reference there decoded onto `out`, and the index past it; `at`
/// when there is none (an unknown or invalid reference: the '&' is then text).
std::size_t decodeReference(std::string_view html, std::size_t at, std::string& out) {
    std::size_t end = at + 1;
    while (end < html.size() && end - at <= 32 && (isTagNameChar(html[end]) || html[end] == '#')) {
        ++end;
    }
    if (end >= html.size() || html[end] != ';' || end == at + 1) {
        return at;
    }
    const std::string_view body = html.substr(at + 1, end - at - 1);
    if (body.front() == '#') {
        const auto codePoint = numericEntity(body);
        if (!codePoint) {
            return at;
        }
        appendUtf8(out, *codePoint);
    } else if (const auto named = namedEntity(body)) {
        out += *named;
    } else {
        return at;
    }
    return end + 1;
}

/// The end of a tag whose name ends at `at`: past its '>' (or the end of the input), skipping attribute
/// values, which may hold '>', when quoted right after an '='.
struct TagEnd {
    std::size_t next = 0;
    bool selfClosing = false;
};

TagEnd endOfTag(std::string_view html, std::size_t at) noexcept {
    bool afterEquals = false;
    bool slash = false;
    while (at < html.size()) {
        const char c = html[at];
        if (c == '>') {
            return {at + 1, slash};
        }
        if (afterEquals && (c == '"' || c == '\'')) {
            const std::size_t close = html.find(c, at + 1);
            at = close == std::string_view::npos ? html.size() : close + 1;
            afterEquals = false;
            slash = false;
            continue;
        }
        if (!isHtmlSpace(c)) {
            afterEquals = c == '=';
            slash = c == '/';
        }
        ++at;
    }
    return {html.size(), false};
}

/// The index past the end tag of the element `name` whose content, from `at`, is not text; the end of the
/// input when it is unclosed. `<head>` also ends where `<body>` starts, as its end tag is optional.
std::size_t pastElement(std::string_view html, std::size_t at, std::string_view name) noexcept {
    for (at = html.find('<', at); at != std::string_view::npos; at = html.find('<', at + 1)) {
        if (at + 1 < html.size() && html[at + 1] == '/' && tagNameAt(html, at + 2, name)) {
            return endOfTag(html, at + 2 + name.size()).next;
        }
        if (name == "head" && tagNameAt(html, at + 1, "body")) {
            return at;
        }
    }
    return html.size();
}

class HtmlToText {
  public:
    explicit HtmlToText(std::string_view html) : html_(html) { out_.reserve(html.size()); }

    std::string run() {
        while (at_ < html_.size()) {
            const char c = html_[at_];
            if (c == '<' && markup()) {
                continue;
            }
            if (c == '&') {
                entity();
                continue;
            }
            text(c);
            ++at_;
        }
        if (heading_) {
            endHeading();
        }
        if (preDepth_ > 0) {
            preDepth_ = 0;
            closeFence();
        }
        while (!out_.empty() && isHtmlSpace(out_.back())) {
            out_.pop_back();
        }
        if (!out_.empty()) {
            out_ += '\n';
        }
        return std::move(out_);
    }

  private:
    /// One character of text: whitespace collapses outside `<pre>`; a '#' starting a line is escaped so
    /// that it does not read as a heading.
    void text(char c) {
        if (preDepth_ > 0) {
            out_ += c;
            return;
        }
        if (isHtmlSpace(c)) {
            pendingSpace_ = true;
            return;
        }
        if (pendingSpace_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') {
            out_ += ' ';
        }
        pendingSpace_ = false;
        if (c == '#' && (out_.empty() || out_.back() == '\n')) {
            out_ += '\\';
        }
        out_ += c;
    }

    void lineBreak() {
        // A marker ("# ", "- ") with nothing after it is dropped.
        if (marker_ && out_.size() == marker_->second) {
            out_.resize(marker_->first);
        }
        marker_.reset();
        while (!out_.empty() && out_.back() == ' ') {
            out_.pop_back();
        }
        if (!out_.empty() && out_.back() != '\n') {
            out_ += '\n';
        }
        pendingSpace_ = false;
    }

    void paragraphBreak() {
        lineBreak();
        if (!out_.empty() && (out_.size() < 2 || out_[out_.size() - 2] != '\n')) {
            out_ += '\n';
        }
    }

    void writeMarker(std::string_view marker) {
        const std::size_t start = out_.size();
        out_ += marker;
        marker_ = {start, out_.size()};
    }

    void endHeading() {
        heading_ = false;
        paragraphBreak();
    }

    void closeFence() {
        lineBreak();
        out_ += "```";
        paragraphBreak();
    }

    /// At a '<': a comment, a declaration, or a tag, consumed whole; false when the '<' is text.
    bool markup() {
        const std::string_view rest = html_.substr(at_);
        if (rest.substr(0, 4) == "<!--") {
            const std::size_t end = html_.find("-->", at_ + 4);
            at_ = end == std::string_view::npos ? html_.size() : end + 3;
            return true;
        }
        if (rest.size() < 2) {
            return false;
        }
        const bool closing = rest[1] == '/';
        if (rest[1] == '!' || rest[1] == '?' || (closing && (rest.size() < 3 || !isAsciiLetter(rest[2])))) {
            // A doctype, a processing instruction, or a broken end tag: skipped to its '>'.
            const std::size_t end = html_.find('>', at_);
            at_ = end == std::string_view::npos ? html_.size() : end + 1;
            return true;
        }
        if (!closing && !isAsciiLetter(rest[1])) {
            return false;
        }
        const std::size_t nameStart = at_ + (closing ? 2 : 1);
        std::size_t nameEnd = nameStart;
        std::string name;
        while (nameEnd < html_.size() && isTagNameChar(html_[nameEnd])) {
            if (name.size() < 16) {  // no known tag is longer; a longer name stays unknown
                name += asciiLower(html_[nameEnd]);
            }
            ++nameEnd;
        }
        const TagEnd end = endOfTag(html_, nameEnd);
        at_ = end.next;
        if (closing) {
            endTag(roleOf(name), name);
        } else {
            startTag(roleOf(name), name, end.selfClosing);
        }
        return true;
    }

    void startTag(TagRole role, std::string_view name, bool selfClosing) {
        if (role == TagRole::skipped) {
            if (!selfClosing) {
                skipContent(name);
            }
            return;
        }
        if (preDepth_ > 0 && role != TagRole::pre) {
            // Inside <pre> only its own line breaks count: the fence must stay whole.
            if (role != TagRole::other && role != TagRole::cell && !out_.empty() && out_.back() != '\n') {
                out_ += '\n';
            }
            return;
        }
        if (heading_ && (role == TagRole::lineBreak || role == TagRole::listItem || role == TagRole::cell)) {
            pendingSpace_ = true;  // a heading stays on one line
            return;
        }
        switch (role) {
            case TagRole::lineBreak:
                lineBreak();
                break;
            case TagRole::listItem:
                lineBreak();
                writeMarker("- ");
                break;
            case TagRole::cell:
                pendingSpace_ = true;
                break;
            case TagRole::heading:
                if (heading_) {
                    endHeading();
                }
                paragraphBreak();
                writeMarker(std::string(static_cast<std::size_t>(name[1] - '0'), '#') + ' ');
                heading_ = true;
                break;
            case TagRole::paragraphBreak:
                if (heading_) {
                    endHeading();
                }
                paragraphBreak();
                break;
            case TagRole::pre:
                if (heading_) {
                    endHeading();
                }
                if (preDepth_++ == 0) {
                    paragraphBreak();
                    out_ += "```\n";
                    // A newline right after <pre> is not content.
                    if (at_ < html_.size() && html_[at_] == '\n') {
                        ++at_;
                    }
                }
                break;
            case TagRole::other:
            case TagRole::skipped:
                break;
        }
    }

    void endTag(TagRole role, std::string_view name) {
        if (role == TagRole::pre) {
            if (preDepth_ > 0 && --preDepth_ == 0) {
                closeFence();
            }
            return;
        }
        if (role == TagRole::heading && heading_) {
            endHeading();
            return;
        }
        // An end tag breaks where its start tag does; inside <pre> or a heading, as there.
        if (role != TagRole::heading && role != TagRole::skipped) {
            startTag(role == TagRole::listItem ? TagRole::lineBreak : role, name, false);
        }
    }

    /// Past the end tag of `name`, whose content is not text.
    void skipContent(std::string_view name) { at_ = pastElement(html_, at_, name); }

    /// At a '&': a character reference, decoded; an unknown or invalid one is text as it is.
    void entity() {
        std::string decoded;
        const std::size_t next = decodeReference(html_, at_, decoded);
        if (next == at_) {
            text('&');
            ++at_;
            return;
        }
        for (const char c : decoded) {
            text(c);
        }
        at_ = next;
    }

    std::string_view html_;
    std::size_t at_ = 0;
    std::string out_;
    bool pendingSpace_ = false;
    bool heading_ = false;
    std::size_t preDepth_ = 0;
    std::optional<std::pair<std::size_t, std::size_t>> marker_;  // where the last marker starts and ends
};

/// The text of a `<title>` whose content spans `[from, to)` of `html`: references decoded, whitespace
/// collapsed and trimmed, markup kept (a title holds no elements).
std::string titleText(std::string_view html, std::size_t from, std::size_t to) {
    std::string decoded;
    for (std::size_t at = from; at < to;) {
        if (html[at] == '&') {
            const std::size_t next = decodeReference(html.substr(0, to), at, decoded);
            if (next != at) {
                at = next;
                continue;
            }
        }
        decoded += html[at++];
    }
    std::string title;
    bool space = false;
    for (const char c : decoded) {
        if (isHtmlSpace(c)) {
            space = true;
            continue;
        }
        if (space && !title.empty()) {
            title += ' ';
        }
        space = false;
        title += c;
    }
    return title;
}

}  // namespace

std::string htmlToMarkdown(std::string_view html) {
    return HtmlToText(html).run();
}

std::string htmlTitle(std::string_view html) {
    std::size_t at = 0;
    while ((at = html.find('<', at)) != std::string_view::npos) {
        if (html.substr(at, 4) == "<!--") {
            const std::size_t end = html.find("-->", at + 4);
            at = end == std::string_view::npos ? html.size() : end + 3;
            continue;
        }
        if (at + 1 >= html.size() || !isAsciiLetter(html[at + 1])) {
            ++at;  // an end tag, a declaration, or a '<' that is text: nothing to enter
            continue;
        }
        std::size_t nameEnd = at + 1;
        while (nameEnd < html.size() && isTagNameChar(html[nameEnd])) {
            ++nameEnd;
        }
        const TagEnd end = endOfTag(html, nameEnd);
        if (tagNameAt(html, at + 1, "title")) {
            // Its content runs to the first `</title`, whatever it holds; an unclosed one to the end.
            std::size_t close = end.next;
            while ((close = html.find("</", close)) != std::string_view::npos &&
                   !tagNameAt(html, close + 2, "title")) {
                close += 2;
            }
            return titleText(html, end.next, close == std::string_view::npos ? html.size() : close);
        }
        // The content of the other dropped elements is not the page's (scripts, an <svg>'s own <title>);
        // <head> is entered, as it holds the title.
        std::string name;
        for (std::size_t i = at + 1; i < nameEnd && name.size() <= 16; ++i) {
            name += asciiLower(html[i]);  // past 16 characters, no known tag: the name stays unknown
        }
        const bool skipped = name != "head" && roleOf(name) == TagRole::skipped;
        at = skipped && !end.selfClosing ? pastElement(html, end.next, name) : end.next;
    }
    return {};
}

}  // namespace reagent
