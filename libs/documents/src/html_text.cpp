// `htmlText`: HTML to Markdown-flavoured text in one forward pass, without a DOM: each tag only changes how
// the text after it is written (a line break, a heading marker, a fence, whitespace kept or collapsed), and
// the elements whose content is not text are skipped to their end tag.

#include "html_text.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace reagent::documents {

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
        {"euro", "\u20AC"},
    };
    for (const auto& [known, text] : kEntities) {
        if (known == name) {
            return text;
        }
    }
    return std::nullopt;
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

    /// Past the end tag of `name`, whose content is not text; an unclosed one runs to the end. `<head>`
    /// also ends where `<body>` starts, as its end tag is optional.
    void skipContent(std::string_view name) {
        for (std::size_t at = html_.find('<', at_); at != std::string_view::npos;
             at = html_.find('<', at + 1)) {
            if (at + 1 < html_.size() && html_[at + 1] == '/' && tagNameAt(html_, at + 2, name)) {
                at_ = endOfTag(html_, at + 2 + name.size()).next;
                return;
            }
            if (name == "head" && tagNameAt(html_, at + 1, "body")) {
                at_ = at;
                return;
            }
        }
        at_ = html_.size();
    }

    /// At a '&': a character reference, decoded; an unknown or invalid one is text as it is.
    void entity() {
        std::size_t end = at_ + 1;
        while (end < html_.size() && end - at_ <= 32 && (isTagNameChar(html_[end]) || html_[end] == '#')) {
            ++end;
        }
        if (end < html_.size() && html_[end] == ';' && end > at_ + 1) {
            const std::string_view body = html_.substr(at_ + 1, end - at_ - 1);
            std::string decoded;
            if (body.front() == '#') {
                if (const auto codePoint = numericEntity(body)) {
                    appendUtf8(decoded, *codePoint);
                }
            } else if (const auto named = namedEntity(body)) {
                decoded = *named;
            }
            if (!decoded.empty()) {
                for (const char c : decoded) {
                    text(c);
                }
                at_ = end + 1;
                return;
            }
        }
        text('&');
        ++at_;
    }

    std::string_view html_;
    std::size_t at_ = 0;
    std::string out_;
    bool pendingSpace_ = false;
    bool heading_ = false;
    std::size_t preDepth_ = 0;
    std::optional<std::pair<std::size_t, std::size_t>> marker_;  // where the last marker starts and ends
};

}  // namespace

std::string htmlText(std::string_view html) {
    return HtmlToText(html).run();
}

}  // namespace reagent::documents
