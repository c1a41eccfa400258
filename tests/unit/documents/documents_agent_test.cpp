// An agent with documents (withDocuments): the model adds files and notes with rag-ingest, under its
// allowed folder only, and finds passages with find, cited by source and lines or page.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <reagent/reagent.hpp>

#include "pdf_fixture.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;
namespace fs = std::filesystem;

TEST_CASE("the model ingests files and notes and finds their passages", "[documents][agent]") {
    reagent::test::TempDir dir;
    const fs::path root = dir.path / "workspace";
    fs::create_directories(root / "notes");
    std::ofstream(root / "notes/release.md")
        << "# Releases\n\n## Train\n\nThe release train leaves every second "
           "Tuesday at noon.\n";
    std::ofstream(root / "report.pdf", std::ios::binary)
        << reagent::test::handWrittenPdf({reagent::test::textDrawing("Revenue grew in the third quarter")});
    std::ofstream(dir.path / "secret.md") << "the vault code is 1234\n";
    fs::create_symlink(dir.path / "secret.md", root / "link.md");

    auto index = reagent::documents::SqliteDocumentIndex::open(":memory:");
    REQUIRE(index);
    auto documents = std::make_shared<reagent::documents::Documents>(*index);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("rag-ingest", {{"paths", {"notes", "report.pdf"}}}))
        .then(ScriptedTurn::toolCall(
            "find", {{"query", "when does the release train leave"}, {"kinds", {"documents"}}}))
        .then(ScriptedTurn::toolCall("find", {{"query", "revenue quarter"}, {"kinds", {"documents"}}}))
        .then(ScriptedTurn::toolCall("rag-ingest", {{"paths", {"../secret.md"}}}))
        .then(ScriptedTurn::toolCall("rag-ingest", {{"paths", {"link.md"}}}))
        .then(ScriptedTurn::toolCall("rag-ingest",
                                     {{"text", "Standup moved to 9:30."}, {"source", "note:standup"}}))
        .then(ScriptedTurn::toolCall("rag-ingest", {{"text", "orphan"}}))
        .then(ScriptedTurn::toolCall("find", {{"query", "standup"}}))
        .then(ScriptedTurn::text("Tuesdays at noon."));
    reagent::documents::RagIngestOptions ingest;
    ingest.roots = {root};
    auto agent = reagent::Agent::create().withProvider(provider).withDocuments(documents, ingest).build();
    REQUIRE(agent);
    const auto result = runCoro(agent->run("When does the release train leave?"));
    REQUIRE(result.success());
    const auto& calls = result.toolCalls;
    REQUIRE(calls.size() == 8);
    REQUIRE(calls[0].succeeded());
    CHECK(calls[0].outcome->find("ingested: 2 added") == 0);
    REQUIRE(calls[1].succeeded());
    const json& passage = calls[1].structured.at("documents").at(0);
    CHECK(passage.at("citation") == "notes/release.md:3-5 (Releases > Train)");
    CHECK(calls[1].outcome->find("The release train leaves every second Tuesday") != std::string::npos);
    REQUIRE(calls[2].succeeded());
    CHECK(calls[2]
              .structured.at("documents")
              .at(0)
              .at("citation")
              .get<std::string>()
              .find("report.pdf, page 1") != std::string::npos);
    // Outside the allowed folder, by .. or by a link: refused, nothing read.
    REQUIRE_FALSE(calls[3].succeeded());
    CHECK(calls[3].outcome.error().message ==
          "../secret.md is outside the folders this agent may ingest from");
    REQUIRE_FALSE(calls[4].succeeded());
    CHECK(calls[4].outcome.error().message == "link.md is outside the folders this agent may ingest from");
    REQUIRE(calls[5].succeeded());
    REQUIRE_FALSE(calls[6].succeeded());
    CHECK(calls[6].outcome.error().message.find("needs \"source\"") != std::string::npos);
    REQUIRE(calls[7].succeeded());
    CHECK(calls[7].structured.at("documents").at(0).at("citation") == "note:standup:1");
    auto vault = runCoro(documents->search("vault code", 5));
    REQUIRE(vault);
    CHECK(vault->empty());
}

TEST_CASE("withDocuments refuses null documents at build", "[documents][agent]") {
    auto built = reagent::Agent::create()
                     .withProvider(std::make_shared<ScriptedProvider>())
                     .withDocuments(nullptr)
                     .build();
    REQUIRE_FALSE(built);
    CHECK(built.error().message.find("withFindSource was given no source") != std::string::npos);
}
