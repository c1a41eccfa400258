#include "network/html_text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace reagent::builtins::detail {

namespace {

struct Entity {
    std::string_view name;
    std::string_view text;
};

constexpr Entity kEntities[] = {
    {"amp", "&"},        {"lt", "<"},          {"gt", ">"},          {"quot", "\""},
    {"apos", "'"},       {"nbsp", " "},        {"copy", "\u00a9"},   {"reg", "\u00ae"},
    {"trade", "\u2122"}, {"hellip", "\u2026"}, {"mdash", "\u2014"},  {"ndash", "\u2013"},
    {"lsquo", "\u2018"}, {"rsquo", "\u2019"},  {"ldquo", "\u201c"},  {"rdquo", "\u201d"},
    {"laquo", "\u00ab"}, {"raquo", "\u00bb"},  {"middot", "\u00b7"}, {"bull", "\u2022"},
    {"euro", "\u20ac"},  {"pound", "\u00a3"},  {"yen", "\u00a5"},    {"cent", "\u00a2"},
    {"deg", "\u00b0"},   {"times", "\u00d7"},  {"divide", "\u00f7"}, {"para", "\u00b6"},
    {"sect", "\u00a7"},
};

// Elements whose content is not text for a reader: dropped with everything inside.
constexpr std::string_view kDropped[] = {"script", "style", "noscript", "template", "svg"};

// Elements that start a new line.
constexpr std::string_view kBlocks[] = {
    "address",    "article", "aside",  "blockquote", "br",   "dd",  "div",   "dl",   "dt",
    "figcaption", "figure",  "footer", "form",       "h1",   "h2",  "h3",    "h4",   "h5",
    "h6",         "header",  "hr",     "li",         "main", "nav", "ol",    "p",    "pre",
    "section",    "table",   "td",     "th",         "tr",   "ul",  "title", "body", "html"};

void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Decodes the reference starting at `text[0] == '&'`; returns the bytes consumed (0: not a reference).
std::size_t decodeOne(std::string_view text, std::string& out) {
    const auto semicolon = text.find(';');
    if (semicolon == std::string_view::npos || semicolon < 2 || semicolon > 12) return 0;
    const auto body = text.substr(1, semicolon - 1);
    if (body[0] == '#') {
        const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
        const auto digits = body.substr(hex ? 2 : 1);
        std::uint32_t cp = 0;
        const auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
        if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) return 0;
        appendUtf8(out, cp);
        return semicolon + 1;
    }
    for (const auto& entity : kEntities) {
        if (entity.name == body) {
            out += entity.text;
            return semicolon + 1;
        }
    }
    return 0;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Collapses blanks: spaces and tabs to one space, any run holding a line break to one line break.
std::string collapse(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        if (!isBlank(text[i])) {
            out += text[i++];
            continue;
        }
        bool newline = false;
        for (; i < text.size() && isBlank(text[i]); ++i) {
            if (text[i] == '\n') newline = true;
        }
        if (!out.empty() && i < text.size()) out += newline ? '\n' : ' ';
    }
    return out;
}

// The end of the tag opened at `html[start] == '<'` (the index past '>'), quotes respected; npos when
// it never closes.
std::size_t tagEnd(std::string_view html, std::size_t start) {
    char quote = 0;
    for (std::size_t i = start + 1; i < html.size(); ++i) {
        const char c = html[i];
        if (quote != 0) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '>') {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

std::string tagName(std::string_view tag) {
    std::size_t i = 1;
    if (i < tag.size() && tag[i] == '/') ++i;
    const std::size_t from = i;
    while (i < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[i])) || tag[i] == '-')) ++i;
    return lower(tag.substr(from, i - from));
}

// The index past the closing tag `</name ...>` from `from`, or npos.
std::size_t pastClosing(std::string_view html, std::string_view lowered, std::size_t from,
                        std::string_view name) {
    const std::string closing = "</" + std::string(name);
    for (auto at = lowered.find(closing, from); at != std::string_view::npos;
         at = lowered.find(closing, at + 1)) {
        const std::size_t after = at + closing.size();
        if (after < html.size() && std::isalnum(static_cast<unsigned char>(html[after]))) continue;
        const auto end = tagEnd(html, at);
        return end;
    }
    return std::string_view::npos;
}

}  // namespace

std::string decodeEntities(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == '&') {
            if (const auto used = decodeOne(text.substr(i), out); used != 0) {
                i += used;
                continue;
            }
        }
        out += text[i++];
    }
    return out;
}

HtmlText htmlToText(std::string_view html) {
    const std::string lowered = lower(html);
    std::string raw;
    std::string title;
    raw.reserve(html.size() / 2);
    std::size_t i = 0;
    while (i < html.size()) {
        const auto open = html.find('<', i);
        // Line breaks in the source are blanks, as a browser shows them; only blocks break lines.
        const auto segment =
            html.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
        for (const char c : segment) raw += c == '\n' || c == '\r' ? ' ' : c;
        if (open == std::string_view::npos) break;
        // A '<' that cannot open a tag ("a < b") is text, as a browser reads it.
        const char next = open + 1 < html.size() ? html[open + 1] : ' ';
        if (!std::isalpha(static_cast<unsigned char>(next)) && next != '/' && next != '!' && next != '?') {
            raw += '<';
            i = open + 1;
            continue;
        }
        if (lowered.compare(open, 4, "<!--") == 0) {
            const auto end = lowered.find("-->", open + 4);
            i = end == std::string::npos ? html.size() : end + 3;
            continue;
        }
        const auto end = tagEnd(html, open);
        if (end == std::string_view::npos) break;
        const auto tag = html.substr(open, end - open);
        const std::string name = tagName(tag);
        i = end;
        if (name.empty()) continue;  // <!DOCTYPE>, <?xml?>, a stray '<' followed by a non-name
        const bool closing = tag.size() > 1 && tag[1] == '/';
        if (!closing && name == "title") {
            const auto past = pastClosing(html, lowered, end, name);
            const auto stop = past == std::string_view::npos ? html.size() : lowered.rfind("</", past);
            title = collapse(decodeEntities(html.substr(end, stop - end)));
            i = past == std::string_view::npos ? html.size() : past;
            continue;
        }
        if (!closing && std::find(std::begin(kDropped), std::end(kDropped), name) != std::end(kDropped)) {
            const auto past = pastClosing(html, lowered, end, name);
            i = past == std::string_view::npos ? html.size() : past;
            continue;
        }
        // Inline elements join their text as a browser does ("<b>bo</b>ld" reads "bold").
        if (std::find(std::begin(kBlocks), std::end(kBlocks), name) != std::end(kBlocks)) raw += '\n';
    }
    return HtmlText{std::move(title), collapse(decodeEntities(raw))};
}

}  // namespace reagent::builtins::detail
