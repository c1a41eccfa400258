// Reducing HTML to Markdown and reading its title: what is dropped, what breaks a line, entities, malformed
// input.

#include "reagent/core/html_text.hpp"

#include <catch2/catch.hpp>
#include <string>

using reagent::htmlTitle;
using reagent::htmlToMarkdown;

TEST_CASE("Entities decode, unknown and invalid ones stay as written", "[core][html]") {
    CHECK(htmlToMarkdown("a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39;") == "a & b <c> \"d\" 'e'\n");
    CHECK(htmlToMarkdown("&#x1F600; &#233; &eacute; &amp") == "\U0001F600 \u00e9 &eacute; &amp\n");
    CHECK(htmlToMarkdown("&#0; &#xD800; &#99999999;") == "&#0; &#xD800; &#99999999;\n");
    CHECK(htmlToMarkdown("AT&T; & more") == "AT&T; & more\n");
    CHECK(htmlToMarkdown("&pound;1 &times; 2&deg; &sect;3") == "\u00a31 \u00d7 2\u00b0 \u00a73\n");
    // A decoded '<' is text, never markup; a decoded '#' starting a line is no heading.
    CHECK(htmlToMarkdown("&lt;p&gt;x") == "<p>x\n");
    CHECK(htmlToMarkdown("&#35; one") == "\\# one\n");
}

TEST_CASE("Scripts styles and comments vanish, blocks break lines, inline tags join", "[core][html]") {
    const std::string page =
        "<html><head><title> A  &amp; B </title><script>alert('<p>x</p>')</script>"
        "<style>p{}</style></head><body><!-- hidden <p> --><div>one<b>tw</b>o</div>"
        "<p class=\"x>y\">three\n   four</p><SCRIPT type=x>bad()</SCRIPT ><br/>five<scriptx>six</scriptx>"
        "<svg><text>drawing</text></svg></body></html>";
    CHECK(htmlTitle(page) == "A & B");
    // Paragraphs are separated by a blank line, as Markdown writes them.
    CHECK(htmlToMarkdown(page) == "onetwo\n\nthree four\n\nfivesix\n");
}

TEST_CASE("Headings, list items and preformatted text come as Markdown", "[core][html]") {
    CHECK(htmlToMarkdown("<h1>Top</h1><p>text</p><h3>Sub <i>part</i></h3>") ==
          "# Top\n\ntext\n\n### Sub part\n");
    CHECK(htmlToMarkdown("<ul><li>first</li><li>second <b>2</b></li></ul><p>after</p>") ==
          "- first\n- second 2\n\nafter\n");
    CHECK(htmlToMarkdown("<pre>\n  a &lt; b\n    c</pre>") == "```\n  a < b\n    c\n```\n");
    // An empty heading or list item leaves no marker behind.
    CHECK(htmlToMarkdown("<h2></h2><ul><li></li></ul>x") == "x\n");
}

TEST_CASE("Malformed HTML is read to a bounded end", "[core][html]") {
    // A construct that never closes runs to the end of the input.
    CHECK(htmlToMarkdown("before<!-- never closed") == "before\n");
    CHECK(htmlToMarkdown("before<p unclosed") == "before\n");
    CHECK(htmlToMarkdown("before<script>never closed") == "before\n");
    CHECK(htmlToMarkdown("a < b and c<d") == "a < b and c\n");
    CHECK(htmlToMarkdown("1 <2 and 3<=4") == "1 <2 and 3<=4\n");
    CHECK(htmlToMarkdown("").empty());
    CHECK(htmlToMarkdown("<p></p>\n\n<p>  </p>").empty());
    // Unclosed elements whose end tags are optional, or forgotten, are tolerated.
    CHECK(htmlToMarkdown("<ul><li>one<li>two</ul><p>a<p>b") == "- one\n- two\n\na\n\nb\n");
    CHECK(htmlToMarkdown("<h1>never closed") == "# never closed\n");
    CHECK(htmlToMarkdown("<pre>never closed") == "```\nnever closed\n```\n");
    // Deep nesting costs nothing: one pass, no stack of open elements.
    std::string deep;
    for (int i = 0; i < 50000; ++i) {
        deep += "<div><b>";
    }
    CHECK(htmlToMarkdown(deep + "x") == "x\n");
}

TEST_CASE("The title: decoded, collapsed, the first outside comments and dropped elements", "[core][html]") {
    CHECK(htmlTitle("<html><head><title>\n  Fish &amp;\tchips &#233;t&#xE9; </title></head>") ==
          "Fish & chips \u00e9t\u00e9");
    CHECK(htmlTitle("<TITLE lang=en>Caps</Title>") == "Caps");
    CHECK(htmlTitle("<title>one</title><title>two</title>") == "one");
    // Its content is text: markup inside shows as written, as a browser shows it.
    CHECK(htmlTitle("<title>a <b>b</b> &lt;c&gt;</title>") == "a <b>b</b> <c>");
    CHECK(htmlTitle("<!-- <title>old</title> --><script>w('<title>no</title>')</script><title>yes</title>") ==
          "yes");
    CHECK(htmlTitle("<body><svg><title>icon</title></svg><p>text</p></body>").empty());
    CHECK(htmlTitle("<p>no title</p>").empty());
    CHECK(htmlTitle("<titles>not one</titles>").empty());
    CHECK(htmlTitle("<title>  </title>").empty());
    CHECK(htmlTitle("").empty());
    CHECK(htmlTitle("<title>never closed") == "never closed");
    CHECK(htmlTitle("<!-- never closed <title>x</title>").empty());
    // The title is the page's name, not its text.
    CHECK(htmlToMarkdown("<title>Name</title><p>body</p>") == "body\n");
}
