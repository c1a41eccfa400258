#pragma once
// `htmlText`: the readable text of an HTML page, as Markdown (private to the library).

#include <string>
#include <string_view>

namespace reagent::documents {

/// \brief The text a browser would show, in Markdown: headings as `#` lines, list items as `- ` lines,
/// `<pre>` as fenced code (whitespace kept), block elements on lines of their own, other whitespace
/// collapsed, entities decoded. Scripts, styles, `<head>`, `<svg>`, `<template>`, `<noscript>` and comments
/// are dropped. Any input is taken (malformed or unclosed markup included), in one linear pass. `html`
/// must be valid UTF-8 (the output is then too).
[[nodiscard]] std::string htmlText(std::string_view html);

}  // namespace reagent::documents
