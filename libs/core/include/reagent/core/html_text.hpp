#pragma once
/// \file
/// \brief The readable text of an HTML page, as Markdown, and its title (no I/O, no DOM): what http-get
/// shows a model and what documents indexes.

#include <string>
#include <string_view>

namespace reagent {

/// \brief The text a browser would show of `html`, in Markdown: headings as `#` lines, list items as `- `
/// lines, `<pre>` as fenced code (whitespace kept), block elements on lines of their own (a blank line
/// between paragraphs), inline elements joined to the text around them, other whitespace collapsed,
/// character references decoded, a `#` starting a line escaped. Scripts, styles, `<head>`, `<title>`,
/// `<svg>`, `<template>`, `<noscript>` and comments are dropped with their content.
///
/// `html` is untrusted and any input is taken: malformed or unclosed markup is read in one linear pass
/// (an unclosed tag, comment or dropped element runs to the end of the input; a `<` that cannot start a
/// tag is text). Unknown or invalid character references stay as written. The result is empty or ends
/// with a line break; it is valid UTF-8 when `html` is (callers holding unchecked bytes check them).
[[nodiscard]] std::string htmlToMarkdown(std::string_view html);

/// \brief The text of the first `<title>` of `html` outside comments and dropped elements (an `<svg>`'s
/// title is not the page's): character references decoded, whitespace collapsed to single spaces and
/// trimmed, markup inside kept as text (as a browser shows it). Empty when there is none.
///
/// `html` is untrusted, read as `htmlToMarkdown` reads it: in one linear pass, an unclosed title running
/// to the end of the input.
[[nodiscard]] std::string htmlTitle(std::string_view html);

}  // namespace reagent
