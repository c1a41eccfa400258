// Request bodies are written as text directly (no JSON tree): they must be exactly what a JSON library
// would write for the same document, every string escaped the same way, and the same whether the tools
// were encoded for this request or reused from an earlier one.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "codec_fixture.hpp"
#include "reagent/providers/wire_format.hpp"

using namespace reagent;
using namespace reagent::providers;
using nlohmann::json;

namespace {

using Format = ProviderKind;

CodecOptions options(bool stream = false) {
    CodecOptions opts;
    opts.model = "m";
    opts.stream = stream;
    return opts;
}

const WireFormat& wireFormat(Format format) {
    return wire::forKind(format);
}

EncodedTools tools(Format format, const llm::ToolList& list, const CodecOptions& opts) {
    return wireFormat(format).encodeTools(list, opts);
}

EncodedRequest encode(Format format, const llm::ModelRequest& request, const CodecOptions& opts) {
    return test::encode(wireFormat(format), request, opts);
}

EncodedRequest encodeWith(Format format, const llm::ModelRequest& request, const CodecOptions& opts,
                          const EncodedTools& encoded) {
    return wireFormat(format).encodeRequest(request, opts, encoded);
}

// What nlohmann writes for a string, invalid UTF-8 replaced by U+FFFD.
std::string dumped(const std::string& text) {
    return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("request bodies are the canonical compact JSON of their document", "[providers][encoding]") {
    const auto format = GENERATE(Format::anthropic, Format::openai, Format::gemini, Format::ollama);
    const bool stream = GENERATE(false, true);
    CAPTURE(static_cast<int>(format), stream);

    const auto encoded = encode(format, test::conversation(), options(stream));

    // Sorted keys, no spaces, the same number and string forms as the JSON library's own dump.
    CHECK(encoded.body == encoded.json().dump(-1, ' ', false, json::error_handler_t::replace));
}

TEST_CASE("strings in a request body are escaped exactly as a JSON library does", "[providers][encoding]") {
    const auto format = GENERATE(Format::anthropic, Format::openai, Format::gemini, Format::ollama);
    CAPTURE(static_cast<int>(format));
    const std::vector<std::string> texts = {
        "plain text",
        "quote \" backslash \\ slash /",
        std::string("controls \x01 \x1f \x7f and a NUL ") + std::string(1, '\0') + " inside",
        "tab\tnewline\ncarriage\rbackspace\bformfeed\f",
        "\u00e9t\u00e9 \u4e2d\u6587 \U0001F389",
        "lone byte \xff",
        "cut sequence \xc3",
        "surrogate \xed\xa0\x80 half",
        "too high \xf4\x90\x80\x80",
        "overlong \xe0\x80\xaf and \xc0\xaf",
        "mixed \xe2\x82 \xe2\x82\xac ok",
    };

    for (const std::string& text : texts) {
        CAPTURE(text);
        llm::ModelRequest request;
        request.messages.push_back(llm::Message::user(text));
        const auto encoded = encode(format, request, options());
        CHECK(encoded.body.find(dumped(text)) != std::string::npos);
        CHECK(encoded.body == encoded.json().dump(-1, ' ', false, json::error_handler_t::replace));
    }
}

TEST_CASE("tools encoded once give the same body as tools encoded per request", "[providers][encoding]") {
    const auto format = GENERATE(Format::anthropic, Format::openai, Format::gemini, Format::ollama);
    CAPTURE(static_cast<int>(format));
    const auto request = test::conversation();
    const auto opts = options();

    const EncodedTools shared = tools(format, request.tools, opts);
    const auto reused = encodeWith(format, request, opts, shared);
    const auto fresh = encode(format, request, opts);

    CHECK(reused.body == fresh.body);
    CHECK(reused.toolNames.toWire("files/read") == fresh.toolNames.toWire("files/read"));
    CHECK(fresh.toolNames.toWire("files/read") != "files/read");
    CHECK(json::parse(shared.json).is_array());

    SECTION("no tools: nothing to declare") {
        const EncodedTools none = tools(format, llm::ToolList{}, opts);
        CHECK(none.json.empty());
        llm::ModelRequest bare;
        bare.messages.push_back(llm::Message::user("hi"));
        CHECK_FALSE(encodeWith(format, bare, opts, none).json().contains("tools"));
    }
}
