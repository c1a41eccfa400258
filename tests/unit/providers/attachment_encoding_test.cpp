// Images and documents in each API's own parts: a user message's attachments, a tool result's, by value
// and by URL, and the requests an API cannot take refused before anything is sent.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "codec_fixture.hpp"
#include "media_fixtures.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/providers/wire_format.hpp"

using namespace reagent;
using namespace reagent::providers;
using nlohmann::json;

namespace {

llm::Attachment png() {
    return llm::Attachment::fromBytes(test::tinyPng(), "dot.png").value();
}

llm::Attachment pdf() {
    return llm::Attachment::fromBytes(test::tinyPdf(), "report.pdf").value();
}

llm::Attachment imageUrl() {
    return llm::Attachment::fromUrl("https://example.com/cat.jpg", "image/jpeg").value();
}

// Without Anthropic's cache breakpoints: the parts alone.
CodecOptions options() {
    CodecOptions opts;
    opts.model = "m";
    opts.promptCaching = false;
    return opts;
}

json body(ProviderKind kind, const llm::ModelRequest& request) {
    return test::encode(wire::forKind(kind), request, options()).json();
}

llm::ModelRequest asking(std::vector<llm::Attachment> attachments) {
    llm::ModelRequest request;
    request.messages = {llm::Message::user("What is in these?", std::move(attachments))};
    return request;
}

// A tool call, its result with an image, then nothing: the next request of a run whose tool saw a picture.
llm::ModelRequest afterToolImage() {
    llm::ModelRequest request;
    request.messages = {llm::Message::user("Look at the chart"),
                        llm::Message::assistant("", {llm::ToolCall{"call_1", "chart", json::object()},
                                                     llm::ToolCall{"call_2", "note", json::object()}})};
    llm::Message result = llm::Message::toolResult("call_1", "chart", "the chart");
    result.attachments = {png()};
    request.messages.push_back(result);
    request.messages.push_back(llm::Message::toolResult("call_2", "note", "a note"));
    return request;
}

std::optional<std::string> refusal(ProviderKind kind, const llm::ModelRequest& request) {
    const WireFormat& format = wire::forKind(kind);
    REQUIRE(format.refuse != nullptr);
    return format.refuse(request, options());
}

const std::string kPngBase64 = base64Encode(test::tinyPng());
const std::string kPdfBase64 = base64Encode(test::tinyPdf());

}  // namespace

TEST_CASE("attachments: OpenAI user content parts", "[providers][attachments]") {
    const json sent = body(ProviderKind::openai, asking({png(), pdf(), imageUrl()}));
    const json expected = json::parse(R"([
        {"text":"What is in these?","type":"text"},
        {"image_url":{"url":"data:image/png;base64,)" +
                                      kPngBase64 + R"("},"type":"image_url"},
        {"file":{"file_data":"data:application/pdf;base64,)" +
                                      kPdfBase64 + R"(","filename":"report.pdf"},"type":"file"},
        {"image_url":{"url":"https://example.com/cat.jpg"},"type":"image_url"}])");
    CHECK(sent["messages"][0]["content"] == expected);
    CHECK_FALSE(refusal(ProviderKind::openai, asking({png(), pdf(), imageUrl()})));
}

TEST_CASE("attachments: Anthropic blocks, images and documents before the text", "[providers][attachments]") {
    const auto documentUrl = llm::Attachment::fromUrl("https://example.com/a.pdf", "application/pdf").value();
    const json sent = body(ProviderKind::anthropic, asking({png(), pdf(), imageUrl(), documentUrl}));
    const json expected = json::parse(R"([
        {"source":{"data":")" + kPngBase64 +
                                      R"(","media_type":"image/png","type":"base64"},"type":"image"},
        {"source":{"data":")" + kPdfBase64 +
                                      R"(","media_type":"application/pdf","type":"base64"},"type":"document"},
        {"source":{"type":"url","url":"https://example.com/cat.jpg"},"type":"image"},
        {"source":{"type":"url","url":"https://example.com/a.pdf"},"type":"document"},
        {"text":"What is in these?","type":"text"}])");
    CHECK(sent["messages"][0]["content"] == expected);
}

TEST_CASE("attachments: Gemini inlineData and fileData parts", "[providers][attachments]") {
    const json sent = body(ProviderKind::gemini, asking({png(), imageUrl()}));
    const json expected = json::parse(R"([
        {"inlineData":{"data":")" + kPngBase64 +
                                      R"(","mimeType":"image/png"}},
        {"fileData":{"fileUri":"https://example.com/cat.jpg","mimeType":"image/jpeg"}},
        {"text":"What is in these?"}])");
    CHECK(sent["contents"][0]["parts"] == expected);
}

TEST_CASE("attachments: Ollama images", "[providers][attachments]") {
    const json sent = body(ProviderKind::ollama, asking({png(), png()}));
    CHECK(sent["messages"][0]["images"] == json{kPngBase64, kPngBase64});
    CHECK(sent["messages"][0]["content"] == "What is in these?");
}

TEST_CASE("attachments: a tool result's image reaches the model", "[providers][attachments]") {
    SECTION("Anthropic: in the tool_result's own content") {
        const json sent = body(ProviderKind::anthropic, afterToolImage());
        const json& results = sent["messages"][2]["content"];
        REQUIRE(results.size() == 2);
        CHECK(results[0]["content"] ==
              json::parse(R"([{"text":"the chart","type":"text"},
                 {"source":{"data":")" +
                          kPngBase64 + R"(","media_type":"image/png","type":"base64"},"type":"image"}])"));
        CHECK(results[1]["content"] == "a note");
    }
    SECTION("OpenAI: a user message after the batch's tool messages") {
        const json sent = body(ProviderKind::openai, afterToolImage());
        const json& messages = sent["messages"];
        REQUIRE(messages.size() == 5);
        CHECK(messages[2]["role"] == "tool");
        CHECK(messages[2]["content"] == "the chart");
        CHECK(messages[3]["role"] == "tool");
        CHECK(messages[4]["role"] == "user");
        CHECK(messages[4]["content"][0]["text"] ==
              "Attached by the tool results above: chart (call call_1): 1 file(s).");
        CHECK(messages[4]["content"][1]["image_url"]["url"] == "data:image/png;base64," + kPngBase64);
    }
    SECTION("Gemini: inlineData parts after the function responses, in the same turn") {
        const json sent = body(ProviderKind::gemini, afterToolImage());
        const json& parts = sent["contents"][2]["parts"];
        REQUIRE(parts.size() == 3);
        CHECK(parts[0].contains("functionResponse"));
        CHECK(parts[1].contains("functionResponse"));
        CHECK(parts[2]["inlineData"]["mimeType"] == "image/png");
    }
    SECTION("Ollama: a user message with the images after the tool messages") {
        const json sent = body(ProviderKind::ollama, afterToolImage());
        const json& messages = sent["messages"];
        REQUIRE(messages.size() == 5);
        CHECK(messages[4]["role"] == "user");
        CHECK(messages[4]["images"] == json{kPngBase64});
        CHECK_FALSE(messages[2].contains("images"));
    }
}

TEST_CASE("attachments: what an API cannot take is refused, naming it", "[providers][attachments]") {
    CHECK(refusal(ProviderKind::ollama, asking({pdf()})) ==
          "ollama cannot take a PDF document (message 1, 'report.pdf')");
    CHECK(refusal(ProviderKind::ollama, asking({imageUrl()})) ==
          "ollama cannot take an image by URL (message 1): attach the file's bytes instead");
    const auto documentUrl = llm::Attachment::fromUrl("https://example.com/a.pdf", "application/pdf").value();
    CHECK(refusal(ProviderKind::openai, asking({png(), documentUrl})) ==
          "openai cannot take a PDF document by URL (message 1): attach the file's bytes instead");
    CHECK_FALSE(refusal(ProviderKind::anthropic, asking({documentUrl})));
    CHECK_FALSE(refusal(ProviderKind::gemini, asking({documentUrl})));

    const auto kind =
        GENERATE(ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama);
    llm::ModelRequest request = asking({});
    llm::Message assistant = llm::Message::assistant("here");
    assistant.attachments = {png()};
    request.messages.push_back(assistant);
    CHECK(
        refusal(kind, request) ==
        "only user messages and tool results carry attachments, not assistant messages: an image (message 2, "
        "'dot.png')");
    CHECK_FALSE(refusal(kind, test::conversation()));
}
