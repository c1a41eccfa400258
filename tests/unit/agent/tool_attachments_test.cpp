// A tool's images and documents (MCP-shaped content blocks beside its text) reach the model as attachments
// of its result; blocks that cannot be attachments are named in the text instead. A run's attachments are
// saved with its state and restored.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
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

namespace {

// A loop whose prompt carries `bytes` as an attachment, started, with `storage`.
reagent::agent::ReactLoop loopWith(const std::string& bytes, reagent::agent::AttachmentStorage storage) {
    reagent::agent::LoopConfig config;
    config.attachments = std::move(storage);
    reagent::agent::ReactLoop loop(
        config, {},
        reagent::llm::Message::user("Look", {reagent::llm::Attachment::fromBytes(bytes, "big.png").value()}));
    (void)loop.start();
    return loop;
}

std::string bigPng() {
    std::string bytes = reagent::test::tinyPng();
    bytes.resize(64 * 1024, 'p');
    return bytes;
}

}  // namespace

TEST_CASE("a saved run keeps a large attachment by reference in its store", "[agent][attachments]") {
    auto store = std::make_shared<reagent::agent::MemoryAttachmentStore>();
    const reagent::agent::AttachmentStorage storage{store, 16 * 1024};
    const auto loop = loopWith(bigPng(), storage);
    const json saved = loop.save();
    const json& kept = saved["messages"].back()["attachments"][0];
    CHECK(kept["sha256"] == reagent::llm::contentHash(bigPng()));
    CHECK(kept["size"] == 64 * 1024);
    CHECK_FALSE(kept.contains("data"));
    CHECK(saved.dump().size() < 4096);  // not 87 KB of base64
    CHECK(store->size() == 1);
    (void)loop.save();
    CHECK(store->size() == 1);  // the same bytes are kept once

    reagent::agent::LoopConfig config;
    config.attachments = storage;
    auto restored = reagent::agent::ReactLoop::restore(config, saved);
    REQUIRE(restored);
    CHECK(*restored->messages().back().attachments.at(0).bytes == bigPng());

    SECTION("small attachments stay inline") {
        const json small = loopWith(reagent::test::tinyPng(), storage).save();
        CHECK(small["messages"].back()["attachments"][0].contains("data"));
    }
    SECTION("restoring without the store, or from one without the bytes, names what is missing") {
        auto noStore = reagent::agent::ReactLoop::restore(reagent::agent::LoopConfig{}, saved);
        REQUIRE_FALSE(noStore);
        CHECK(noStore.error().message.find("is kept by reference (sha256 ") != std::string::npos);
        CHECK(noStore.error().message.find("no attachment store was given") != std::string::npos);
        reagent::agent::LoopConfig empty;
        empty.attachments.store = std::make_shared<reagent::agent::MemoryAttachmentStore>();
        auto missing = reagent::agent::ReactLoop::restore(empty, saved);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().message.find("no attachment is kept under") != std::string::npos);
    }
    SECTION("a hash that is not one is refused before any store is asked") {
        json hostile = saved;
        hostile["messages"].back()["attachments"][0]["sha256"] = "../../../etc/passwd";
        auto refused = reagent::agent::ReactLoop::restore(config, hostile);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message.find("is not a SHA-256 in lowercase hex") != std::string::npos);
    }
}

TEST_CASE("a directory attachment store is shared by its instances and notices changed bytes",
          "[agent][attachments]") {
    const auto directory =
        std::filesystem::temp_directory_path() / ("reagent-attachments-" + std::to_string(::getpid()));
    std::filesystem::remove_all(directory);
    auto first = reagent::agent::DirectoryAttachmentStore::open(directory);
    REQUIRE(first);
    const reagent::agent::AttachmentStorage storage{*first, 1024};
    const json saved = loopWith(bigPng(), storage).save();
    const std::string hash = reagent::llm::contentHash(bigPng());
    CHECK(std::filesystem::file_size(directory / hash) == 64 * 1024);

    // Another instance (another process, later) reads it back.
    auto second = reagent::agent::DirectoryAttachmentStore::open(directory);
    REQUIRE(second);
    reagent::agent::LoopConfig config;
    config.attachments = {*second, 1024};
    auto restored = reagent::agent::ReactLoop::restore(config, saved);
    REQUIRE(restored);
    CHECK(*restored->messages().back().attachments.at(0).bytes == bigPng());

    // Bytes changed on disk are not handed to the model.
    std::ofstream(directory / hash, std::ios::binary) << "\x89PNG\r\n\x1a\n changed";
    auto changed = reagent::agent::ReactLoop::restore(config, saved);
    REQUIRE_FALSE(changed);
    CHECK(changed.error().message.find("is not those bytes any more") != std::string::npos);

    // A file where the directory should be.
    auto notDirectory = reagent::agent::DirectoryAttachmentStore::open(directory / hash);
    REQUIRE_FALSE(notDirectory);
    CHECK(notDirectory.error().code == reagent::agent::AgentErrc::invalid_config);
    std::filesystem::remove_all(directory);
}

TEST_CASE("a conversation saved with an agent's attachment store keeps its images by reference",
          "[agent][attachments]") {
    auto store = std::make_shared<reagent::agent::MemoryAttachmentStore>();
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("a picture")).loop(true);
    auto agent = Agent::create().withProvider(provider).withAttachmentStore(store, 1024).build();
    REQUIRE(agent);
    reagent::agent::Conversation chat(*agent);
    auto turn =
        runCoro(chat.send("What is it?", {reagent::llm::Attachment::fromBytes(bigPng(), "big.png").value()}));
    REQUIRE(turn);
    REQUIRE(turn->success());
    const json saved = chat.save();
    CHECK(saved.dump().find("\"sha256\"") != std::string::npos);
    CHECK(store->size() == 1);
    auto restored = reagent::agent::Conversation::restore(*agent, saved);
    REQUIRE(restored);
    auto next = runCoro(restored->send("And now?"));
    REQUIRE(next);
    // The restored history still shows the model the picture.
    const auto& messages = provider->requests().back().messages;
    REQUIRE(messages.size() >= 3);
    CHECK(messages[messages.size() - 3].attachments.size() == 1);
    CHECK(*messages[messages.size() - 3].attachments[0].bytes == bigPng());
}

TEST_CASE("episodic memory keeps a tool's image and PDF, and recall of the episode shows them again",
          "[agent][attachments][memory]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("reagent-episode-attachments-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    reagent::agent::MemoryConfig memory;
    memory.path = (dir / "episodes.db").string();
    {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::toolCall("chart", json::object())).then(ScriptedTurn::text("drawn"));
        auto agent = Agent::create().withProvider(provider).withTool(chartTool()).withMemory(memory).build();
        REQUIRE(agent);
        REQUIRE(runCoro(agent->run("Draw it")).success());
        const auto episodes = agent->episodicMemory()->recent(5).value();
        REQUIRE(episodes.size() == 1);
        REQUIRE(episodes[0].attachments.size() == 2);  // what could not be attached is not kept either
        CHECK(*episodes[0].attachments[0].bytes == reagent::test::tinyPng());
        CHECK(episodes[0].attachments[1].name == "q3.pdf");
    }
    // A later agent, in a later run, reads the episode: the image and the page come with it.
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("recall", json{{"episode", 1}}))
        .then(ScriptedTurn::toolCall("recall", json{{"episode", 1}, {"full", true}}))
        .then(ScriptedTurn::text("it was a dot"));
    auto later = Agent::create().withProvider(provider).withTool(chartTool()).withMemory(memory).build();
    REQUIRE(later);
    const RunResult result = runCoro(later->run("What did the chart show?"));
    REQUIRE(result.success());
    const reagent::llm::Message& read = provider->requests().at(1).messages.back();
    REQUIRE(read.role == Role::tool);
    CHECK(read.text.find("Attachments: 2 (image/png, application/pdf 'q3.pdf'), shown with this result") !=
          std::string::npos);
    REQUIRE(read.attachments.size() == 2);
    CHECK(*read.attachments[0].bytes == reagent::test::tinyPng());
    CHECK(read.attachments[1].mediaType == "application/pdf");
    CHECK(read.attachments[1].name == "q3.pdf");
    // A full read pages the result's text only.
    CHECK(provider->requests().at(2).messages.back().attachments.empty());
    CHECK(later->episodicMemory()->count().value() == 1);  // recall is not logged
    std::filesystem::remove_all(dir);
}

TEST_CASE("a journaled tool call's image reaches the model again when a later attempt replays it",
          "[agent][attachments][journal]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("chart", json::object())).then(ScriptedTurn::text("a dot"));
    auto agent = Agent::create().withProvider(provider).withTool(chartTool()).build();
    REQUIRE(agent);
    auto journal = std::make_shared<reagent::agent::MemoryRunJournal>("run-img");
    reagent::agent::RunOptions options;
    options.journal = journal;
    REQUIRE(runCoro(agent->run("Draw it", std::move(options))).success());
    auto steps = journal->steps();
    REQUIRE(steps.size() == 3);
    steps.pop_back();  // the process died before the answer was journaled

    auto again = std::make_shared<ScriptedProvider>();
    again->then(ScriptedTurn::text("a dot"));
    auto replaying = Agent::create().withProvider(again).withTool(chartTool()).build();
    REQUIRE(replaying);
    reagent::agent::RunOptions replayOptions;
    replayOptions.journal = std::make_shared<reagent::agent::MemoryRunJournal>("run-img", steps);
    REQUIRE(runCoro(replaying->run("Draw it", std::move(replayOptions))).success());
    REQUIRE(again->requests().size() == 1);
    const reagent::llm::Message& tool = again->requests()[0].messages.back();
    REQUIRE(tool.attachments.size() == 2);
    CHECK(*tool.attachments[0].bytes == reagent::test::tinyPng());
    CHECK(tool.text == provider->requests().at(1).messages.back().text);
}
