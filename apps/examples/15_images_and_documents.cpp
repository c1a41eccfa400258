// 15 — Images and documents: a prompt with a picture attached, and a tool that returns one.
//
// An llm::Attachment is an image (PNG, JPEG, GIF, WebP) or a PDF, by its bytes or a URL; its type is read
// from the bytes, never the file name. RunOptions::attachments sends some with the prompt; a tool returns
// some beside its text through ToolContext::content (MCP-shaped blocks), and the model sees them with the
// tool's result. Each provider encodes them as its API's own parts; here a scripted model stands in, and
// the OpenAI wire format shows what would be sent.

#include <iostream>
#include <memory>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// A 1x1 PNG, as a camera or a chart library would hand it over.
std::string onePixelPng() {
    const unsigned char bytes[] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D,
                                   0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
                                   0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00,
                                   0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
                                   0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00,
                                   0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};
    return std::string(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

// A tool that draws a chart: its text names the picture, the picture itself goes beside it.
Task<tools::ToolResult> drawChart(json, tools::ToolContext context) {
    if (context.content != nullptr) {
        context.content->push_back(
            json{{"type", "image"}, {"data", base64Encode(onePixelPng())}, {"mimeType", "image/png"}});
    }
    co_return std::string("chart drawn (image/png attached)");
}

int main() {
    // 1. An attachment from bytes; a text file named like a picture is refused.
    auto photo = llm::Attachment::fromBytes(onePixelPng(), "photo.png");
    examples::check(photo.has_value() && photo->mediaType == "image/png",
                    "the PNG is recognised by its bytes");
    const auto fake = llm::Attachment::fromBytes("just text", "fake.png");
    examples::check(!fake.has_value(), "text named .png is refused");
    std::cout << "refused: " << fake.error().message << "\n";

    auto chart = tools::ToolBuilder::create("draw_chart")
                     .description("Draws the sales chart")
                     .handler(drawChart)
                     .build();
    examples::check(chart.has_value(), "the tool builds");

    // 2. A scripted model: it asks for the chart, then answers.
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("draw_chart", json::object()));
    provider->then(llm::ScriptedTurn::text("The photo is one pixel; the chart is one pixel too."));
    auto agent = agent::Agent::create().withProvider(provider).withTool(std::move(*chart)).build();
    examples::check(agent.has_value(), "the agent builds");

    agent::RunOptions options;
    options.attachments.push_back(*photo);
    const auto result =
        examples::runTask(agent->run("What is in this photo? Then draw the chart.", std::move(options)));
    examples::check(result.success(), "the run succeeds");
    std::cout << "answer: " << result.output << "\n";

    // 3. What the model saw: the photo in the prompt, the chart with the tool's result.
    const auto& second = provider->requests().at(1).messages;
    examples::check(second.at(second.size() - 3).attachments.size() == 1, "the prompt carries the photo");
    examples::check(second.back().attachments.size() == 1, "the tool's result carries the chart");

    // 4. As the OpenAI wire format encodes that request: the photo an image_url part of the user message,
    // the chart in a user message after the tool message (tool messages hold text only in that API).
    const auto& format = providers::wire::openai();
    providers::CodecOptions codec;
    codec.model = "gpt-4.1";
    const auto encoded =
        format.encodeRequest(provider->requests().at(1), codec, format.encodeTools({}, codec));
    const json body = encoded.json();
    examples::check(body["messages"].size() == 4, "the prompt, the call, its result, the chart after it");
    for (const json& message : body["messages"]) {
        std::cout << message["role"].get<std::string>() << ":";
        if (message["content"].is_array()) {
            for (const json& part : message["content"]) {
                std::cout << " [" << part["type"].get<std::string>() << "]";
            }
        } else if (message["content"].is_string()) {
            std::cout << " " << message["content"].get<std::string>();
        }
        std::cout << "\n";
    }
    return 0;
}
