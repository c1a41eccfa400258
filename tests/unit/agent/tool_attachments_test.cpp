// A tool's images and documents (MCP-shaped content blocks beside its text) reach the model as attachments
// of its result; blocks that cannot be attachments are named in the text instead. A run's attachments are
// saved with its state and restored.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "media_fixtures.hpp"
#include "run_coro.hpp"

using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::RunResult;
using reagent::llm::Role;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

namespace {

Task<reagent::tools::ToolResult> chartHandler(json, reagent::tools::ToolContext context) {
    if (context.content != nullptr) {
        const std::string png = reagent::base64Encode(reagent::test::tinyPng());
        context.content->push_back(json{{"type", "image"}, {"data", png}, {"mimeType", "image/png"}});
        context.content->push_back(json{{"type", "resource"},
                                        {"resource",
                                         {{"uri", "workspace:reports/q3.pdf"},
                                          {"mimeType", "application/pdf"},
                                          {"blob", reagent::base64Encode(reagent::test::tinyPdf())}}}});
        // Not attachments: bytes that are not base64, a type no API takes, a text resource, audio.
        context.content->push_back(
            json{{"type", "image"}, {"data", "not base64!"}, {"mimeType", "image/png"}});
        context.content->push_back(json{
            {"type", "image"}, {"data", reagent::base64Encode("<svg/>")}, {"mimeType", "image/svg+xml"}});
        context.content->push_back(
            json{{"type", "resource"}, {"resource", {{"uri", "notes.txt"}, {"text", "hello"}}}});
        context.content->push_back(json{{"type", "audio"}, {"data", "AAAA"}, {"mimeType", "audio/wav"}});
    }
    co_return std::string("the chart and the report");
}

reagent::tools::Tool chartTool() {
    return reagent::tools::ToolBuilder::create("chart")
        .description("Draws the chart")
        .handler(chartHandler)
        .build()
        .value();
}

}  // namespace

TEST_CASE("a tool's image and PDF reach the model as attachments of its result", "[agent][attachments]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("chart", json::object())).then(ScriptedTurn::text("a dot"));
    auto agent = Agent::create().withProvider(provider).withTool(chartTool()).build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("Draw it"));
    REQUIRE(result.success());
    const auto& messages = provider->requests().at(1).messages;
    const reagent::llm::Message& tool = messages.back();
    REQUIRE(tool.role == Role::tool);
    REQUIRE(tool.attachments.size() == 2);
    CHECK(tool.attachments[0].mediaType == "image/png");
    CHECK(*tool.attachments[0].bytes == reagent::test::tinyPng());
    CHECK(tool.attachments[1].mediaType == "application/pdf");
    CHECK(tool.attachments[1].name == "q3.pdf");
    // What could not be attached is named for the model.
    CHECK(tool.text.find("the chart and the report") == 0);
    CHECK(tool.text.find("[image (image/png): not shown: its data is not base64]") != std::string::npos);
    CHECK(tool.text.find(
              "[image (image/svg+xml): not shown: the attachment is not a PNG, JPEG, GIF or WebP image") !=
          std::string::npos);
    CHECK(tool.text.find("audio") == std::string::npos);
}

TEST_CASE("a prompt's attachments go in its user message, and a saved run keeps them",
          "[agent][attachments]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("chart", json::object())).then(ScriptedTurn::text("a dot"));
    auto agent = Agent::create().withProvider(provider).withTool(chartTool()).build();
    REQUIRE(agent);
    reagent::agent::RunOptions options;
    options.attachments.push_back(
        reagent::llm::Attachment::fromBytes(reagent::test::tinyPng(), "dot.png").value());
    const RunResult result = runCoro(agent->run("What is this?", std::move(options)));
    REQUIRE(result.success());
    const auto& first = provider->requests().at(0).messages;
    REQUIRE(first.back().role == Role::user);
    REQUIRE(first.back().attachments.size() == 1);
    CHECK(first.back().attachments[0].name == "dot.png");

    // The loop's state, saved and restored: the prompt's and the tool's attachments come back the same.
    reagent::agent::LoopConfig config;
    reagent::agent::ReactLoop loop(config, {},
                                   reagent::llm::Message::user("Look", {first.back().attachments[0]}));
    (void)loop.start();
    const json saved = loop.save();
    CHECK(saved.dump().find(reagent::base64Encode(reagent::test::tinyPng())) != std::string::npos);
    auto restored = reagent::agent::ReactLoop::restore(config, saved);
    REQUIRE(restored);
    REQUIRE(restored->messages().back().attachments.size() == 1);
    CHECK(restored->messages().back().attachments[0] == first.back().attachments[0]);

    SECTION("a saved attachment whose bytes are not what it says is refused on restore") {
        json tampered = saved;
        std::string text = tampered.dump();
        const std::string marker = "\"mediaType\":\"image/png\"";
        text.replace(text.find(marker), marker.size(), "\"mediaType\":\"image/gif\"");
        auto refused = reagent::agent::ReactLoop::restore(config, json::parse(text));
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message.find("does not match the bytes (image/png)") != std::string::npos);
    }
}
