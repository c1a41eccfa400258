// `extractText`: text files checked (NUL bytes, invalid UTF-8) and normalised (BOM, CRLF), HTML turned into
// Markdown-flavoured text, and PDFs read through poppler, from a PDF written by hand here.

#include <catch2/catch.hpp>
#include <cstdio>
#include <reagent/documents/chunking.hpp>
#include <reagent/documents/extraction.hpp>
#include <string>
#include <vector>

#include "pdf_fixture.hpp"

namespace documents = reagent::documents;
using documents::DocumentErrc;
using documents::TextFormat;
using reagent::test::handWrittenPdf;
using reagent::test::textDrawing;

namespace {

documents::DocumentError extractionError(std::string_view path, std::string_view bytes) {
    const auto extracted = documents::extractText(path, bytes);
    REQUIRE_FALSE(extracted);
    return extracted.error();
}

}  // namespace

TEST_CASE("documents: text files are kept as they are, in their format", "[documents][extraction]") {
    const auto markdown = documents::extractText("docs/guide.md", "# Guide\n\nCaf\xC3\xA9 \xE2\x82\xAC\n");
    REQUIRE(markdown);
    CHECK(markdown->text == "# Guide\n\nCaf\xC3\xA9 \xE2\x82\xAC\n");
    CHECK(markdown->format == TextFormat::markdown);
    const auto code = documents::extractText("src/main.cpp", "int main() {}\n");
    REQUIRE(code);
    CHECK(code->format == TextFormat::code);
    const auto plain = documents::extractText("notes", "");
    REQUIRE(plain);
    CHECK(plain->text.empty());
    CHECK(plain->format == TextFormat::plain);
}

TEST_CASE("documents: a byte order mark is dropped and CRLF becomes LF", "[documents][extraction]") {
    const auto extracted = documents::extractText("a.md", "\xEF\xBB\xBF# T\r\nline\r\nold\rmac\r\n\r\n");
    REQUIRE(extracted);
    CHECK(extracted->text == "# T\nline\nold\rmac\n\n");
}

TEST_CASE("documents: bytes that are not text are refused, with the offset", "[documents][extraction]") {
    std::string binary = "# Title\nabcd";
    binary += '\0';
    binary += "\x01\x02 more";
    const auto nul = extractionError("docs/x.md", binary);
    CHECK(nul.code == DocumentErrc::not_text);
    CHECK(nul.message == "docs/x.md is not text: it has a NUL byte at offset 12 (a binary file?)");
    CHECK(nul.describe().rfind("not_text: docs/x.md", 0) == 0);

    const auto latin1 = extractionError("menu.txt", "caf\xE9 au lait");
    CHECK(latin1.code == DocumentErrc::not_text);
    CHECK_THAT(latin1.message, Catch::StartsWith("menu.txt is not text: it has invalid UTF-8 at offset 3"));
    CHECK_THAT(latin1.message, Catch::Contains("convert it to UTF-8"));

    const auto offsetOf = [](std::string_view bytes) {
        const std::string message = extractionError("f.txt", bytes).message;
        const std::size_t at = message.find("offset ");
        return std::stoul(message.substr(at + 7));
    };
    CHECK(offsetOf("ab\xC0\xAF") == 2);                // an overlong '/'
    CHECK(offsetOf("\xE2\x82\xAC\xED\xA0\x80") == 3);  // a surrogate
    CHECK(offsetOf("x\xF4\x90\x80\x80") == 1);         // past U+10FFFF
    CHECK(offsetOf("ab\xE2\x82") == 2);                // cut short by the end
    CHECK(offsetOf("\x80") == 0);                      // a stray continuation byte
    CHECK(offsetOf("ok\xE2\x82\xAC\xF0\x9F\x98\x80\xF5") == 9);
}

TEST_CASE("documents: HTML becomes Markdown-flavoured text", "[documents][extraction]") {
    const std::string html =
        "<!DOCTYPE html>\r\n<html><HEAD><title>Page title</title><style>p { color: red }</style></head>\n"
        "<body class=\"main\">\n"
        "<h1 id='top'>Title &amp; more</h1>\n"
        "<script type=\"text/javascript\">if (a < b) { document.write(\"<p>no</p>\"); }</script>\n"
        "<p>Hello&nbsp;<b>bold</b>   world\n   again &lt;tag&gt; &quot;q&quot; &#39;s&#39; &apos;a&apos; "
        "&#8364; &#x20AC; &bogus; &#xZZ; &#0; AT&T</p>\n"
        "<p><a href=\"x>y\" title='a > b' data-x=z>link</a> after<!-- a comment <p>hidden</p> --></p>\n"
        "<NoScript>enable scripts</NoScript><svg viewBox=\"0 0 1 1\"><text>drawn</text></svg>\n"
        "<template><p>later</p></template>\n"
        "<ul><li>one</li><li>two <i>2</i></li></ul>\n"
        "<p># not a heading</p>\n"
        "<pre>\n  line 1\n    line &lt;2&gt;</pre>\n"
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>\n"
        "<H2>Sub<br>title</H2><p>one<br/>two</p>\n"
        "<div>unclosed <span";
    const auto extracted = documents::extractText("site/index.HTML", html);
    REQUIRE(extracted);
    CHECK(extracted->format == TextFormat::markdown);
    CHECK(extracted->text ==
          "# Title & more\n"
          "\n"
          "Hello bold world again <tag> \"q\" 's' 'a' \xE2\x82\xAC \xE2\x82\xAC &bogus; &#xZZ; &#0; AT&T\n"
          "\n"
          "link after\n"
          "\n"
          "- one\n"
          "- two 2\n"
          "\n"
          "\\# not a heading\n"
          "\n"
          "```\n"
          "  line 1\n"
          "    line <2>\n"
          "```\n"
          "\n"
          "a b\n"
          "c\n"
          "\n"
          "## Sub title\n"
          "\n"
          "one\n"
          "two\n"
          "\n"
          "unclosed\n");

    // The text chunks at its headings.
    const auto chunks = documents::chunkText(extracted->text, extracted->format, {1500, 0});
    REQUIRE(chunks.size() == 2);
    CHECK(chunks[0].heading == "Title & more");
    CHECK(chunks[1].heading == "Title & more > Sub title");

    const auto htm = documents::extractText("a.htm", "<p>x</p><head>");
    REQUIRE(htm);
    CHECK(htm->text == "x\n");
    CHECK(extractionError("b.html", "<p>\xFF</p>").code == DocumentErrc::not_text);
}

TEST_CASE("documents: a PDF's text, pages separated by form feeds", "[documents][extraction]") {
    const std::string pdf = handWrittenPdf({textDrawing("Hello page one"), textDrawing("page two")});
    const auto extracted = documents::extractText("papers/two-pages.pdf", pdf);
    REQUIRE(extracted);
    CHECK(extracted->format == TextFormat::plain);
    CHECK(extracted->text == "Hello page one\fpage two");

    const auto chunks = documents::chunkText(extracted->text, extracted->format, {10, 0});
    REQUIRE(chunks.size() == 3);
    CHECK(chunks[0].text == "Hello page");
    CHECK(chunks[1].page == 1);
    CHECK(chunks[2].text == "page two");
    CHECK(chunks[2].page == 2);
}

TEST_CASE("documents: a PDF that cannot be read is refused, saying why", "[documents][extraction]") {
    const std::string pdf = handWrittenPdf({textDrawing("Hello page one")});
    for (const std::string& broken : {std::string("%PDF-1.4\n") + std::string(200, '\x9F') + "garbage",
                                      pdf.substr(0, 40), std::string()}) {
        const auto error = extractionError("scan/broken.pdf", broken);
        CHECK(error.code == DocumentErrc::parse_failed);
        CHECK_THAT(error.message, Catch::StartsWith("scan/broken.pdf could not be read as a PDF"));
    }

    const auto images = extractionError("scan/images.pdf", handWrittenPdf({"0 0 m 100 100 l S", ""}));
    CHECK(images.code == DocumentErrc::parse_failed);
    CHECK_THAT(images.message, Catch::Contains("no extractable text (it may be scanned images)"));
}
