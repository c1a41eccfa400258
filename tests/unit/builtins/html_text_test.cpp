// Reducing HTML to text: what is dropped, what breaks a line, entities, malformed input.

#include "network/html_text.hpp"

#include <catch2/catch.hpp>

using namespace reagent::builtins::detail;

TEST_CASE("Entities decode, unknown ones stay", "[builtins][html]") {
    CHECK(decodeEntities("a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39;") == "a & b <c> \"d\" 'e'");
    CHECK(decodeEntities("&#x1F600; &#233; &eacute; &amp") == "\U0001F600 \u00e9 &eacute; &amp");
    CHECK(decodeEntities("&#0; &#xD800; &#99999999;") == "\uFFFD \uFFFD \uFFFD");
    CHECK(decodeEntities("AT&T; & more") == "AT&T; & more");
}

TEST_CASE("Scripts styles and comments vanish, blocks break lines, inline tags join", "[builtins][html]") {
    const auto page = htmlToText(
        "<html><head><title> A  &amp; B </title><script>alert('<p>x</p>')</script>"
        "<style>p{}</style></head><body><!-- hidden <p> --><div>one<b>tw</b>o</div>"
        "<p class=\"x>y\">three\n   four</p><SCRIPT type=x>bad()</SCRIPT ><br/>five<scriptx>six</scriptx>"
        "<svg><text>drawing</text></svg></body></html>");
    CHECK(page.title == "A & B");
    CHECK(page.text == "onetwo\nthree four\nfivesix");
}

TEST_CASE("Malformed HTML ends the text where a construct never closes", "[builtins][html]") {
    CHECK(htmlToText("before<!-- never closed").text == "before");
    CHECK(htmlToText("before<p unclosed").text == "before");
    CHECK(htmlToText("before<script>never closed").text == "before");
    CHECK(htmlToText("a < b and c<d").text == "a < b and c");
    CHECK(htmlToText("1 <2 and 3<=4").text == "1 <2 and 3<=4");
    CHECK(htmlToText("").text.empty());
    CHECK(htmlToText("<p></p>\n\n<p>  </p>").text.empty());
}
