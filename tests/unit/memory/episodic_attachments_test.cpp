// Episodes that carry images and documents: kept with the episode, their bytes once per content, read
// back whole; a version-1 store is upgraded by a writable open and read as it is by a read-only one.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

#include "media_fixtures.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "store_files.hpp"
#include "temp_dir.hpp"

using reagent::llm::Attachment;
using reagent::memory::Episode;
using reagent::memory::EpisodicStore;
using reagent::memory::MemoryErrc;
using reagent::test::runSql;
using reagent::test::TempDir;

namespace {

Episode withAttachments(std::string result, std::vector<Attachment> attachments) {
    Episode episode;
    episode.action = "tool_call";
    episode.tool = "file-read";
    episode.input = R"({"path":"dot.png"})";
    episode.result = std::move(result);
    episode.attachments = std::move(attachments);
    return episode;
}

std::int64_t countRows(const std::string& path, const char* table) {
    return reagent::test::queryInteger(path, std::string("SELECT COUNT(*) FROM ") + table);
}

}  // namespace

TEST_CASE("an episode's images and documents are read back whole, their bytes kept once",
          "[memory][episodic][attachments]") {
    const TempDir dir;
    const auto path = dir.file("store.db");
    const Attachment png = Attachment::fromBytes(reagent::test::tinyPng(), "dot.png").value();
    const Attachment pdf = Attachment::fromBytes(reagent::test::tinyPdf(), "page.pdf").value();
    const Attachment link = Attachment::fromUrl("https://example.com/cat.jpg", "image/jpeg").value();
    auto store = EpisodicStore::open(path);
    REQUIRE(store);
    const auto first = store->record(withAttachments("an image and a page", {png, pdf, link}));
    REQUIRE(first);
    const auto second = store->record(withAttachments("the same image again", {png}));
    REQUIRE(second);
    REQUIRE(store->record(withAttachments("no attachment", {})));

    auto again = EpisodicStore::open(path);  // another connection reads what the first wrote
    REQUIRE(again);
    const auto found = again->find(*first);
    REQUIRE(found);
    REQUIRE(found->attachments.size() == 3);
    CHECK(found->attachments[0] == png);
    CHECK(found->attachments[0].name == "dot.png");
    CHECK(found->attachments[1] == pdf);
    CHECK(found->attachments[1].kind == reagent::llm::MediaKind::document);
    CHECK(found->attachments[2].url == "https://example.com/cat.jpg");
    CHECK(found->attachments[2].mediaType == "image/jpeg");
    CHECK_FALSE(found->attachments[2].bytes);

    const auto recent = again->recent(3);
    REQUIRE(recent);
    CHECK(recent->at(0).attachments.empty());
    CHECK(recent->at(1).attachments == std::vector<Attachment>{png});
    CHECK(recent->at(2).attachments.size() == 3);
    const auto hits = again->search("image", 5);
    REQUIRE(hits);
    CHECK(hits->size() == 2);
    CHECK(hits->at(0).episode.attachments.empty());  // a hit has none: find the episode

    // The image two episodes carry is stored once.
    CHECK(countRows(path, "blobs") == 2);
    CHECK(countRows(path, "episode_attachments") == 4);
}

TEST_CASE("an episode whose attachment bytes are gone is reported, not shown without them",
          "[memory][episodic][attachments]") {
    const TempDir dir;
    const auto path = dir.file("store.db");
    auto store = EpisodicStore::open(path);
    REQUIRE(store);
    const auto id = store->record(
        withAttachments("an image", {Attachment::fromBytes(reagent::test::tinyPng(), "dot.png").value()}));
    REQUIRE(id);
    runSql(path, "DELETE FROM blobs;");
    const auto found = store->find(*id);
    REQUIRE_FALSE(found);
    CHECK(found.error().code == MemoryErrc::storage_error);
    CHECK_THAT(found.error().message, Catch::Contains("episode #" + std::to_string(*id)) &&
                                          Catch::Contains("no longer holds") && Catch::Contains(path));
}

TEST_CASE("a failed attachment write records nothing of the episode", "[memory][episodic][attachments]") {
    const TempDir dir;
    const auto path = dir.file("store.db");
    auto store = EpisodicStore::open(path);
    REQUIRE(store);
    // A trigger of the test's own makes the attachment row fail after the episode row went in.
    runSql(path,
           "CREATE TRIGGER refuse BEFORE INSERT ON episode_attachments BEGIN SELECT RAISE(ABORT, 'refused'); "
           "END;");
    const auto refused = store->record(
        withAttachments("an image", {Attachment::fromBytes(reagent::test::tinyPng(), "dot.png").value()}));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == MemoryErrc::storage_error);
    CHECK_THAT(refused.error().message, Catch::Contains("attachment") && Catch::Contains("refused"));
    CHECK(store->count().value() == 0);
    CHECK(countRows(path, "blobs") == 0);
    CHECK(store->record(withAttachments("text only", {})));  // the store still works
}

TEST_CASE("a version-1 store is read as it is, and upgraded when opened for writing",
          "[memory][episodic][attachments]") {
    const TempDir dir;
    const auto path = dir.file("v1.db");
    runSql(path,
           "CREATE TABLE episodes (id INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT NOT NULL, tool TEXT "
           "NOT NULL, input TEXT NOT NULL, result TEXT NOT NULL, timestamp INTEGER NOT NULL);"
           "CREATE INDEX episodes_by_time ON episodes(timestamp, id);"
           "INSERT INTO episodes(action, tool, input, result, timestamp) VALUES('a','t','{}','old',5000);"
           "PRAGMA application_id = 1382499696; PRAGMA user_version = 1;");
    {
        auto reader = EpisodicStore::openReadOnly(path);
        REQUIRE(reader);
        const auto old = reader->find(1);
        REQUIRE(old);
        CHECK(old->result == "old");
        CHECK(old->attachments.empty());
        CHECK(reader->recent(5).value().size() == 1);
    }
    auto store = EpisodicStore::open(path);
    REQUIRE(store);
    const auto id = store->record(
        withAttachments("new", {Attachment::fromBytes(reagent::test::tinyPng(), "dot.png").value()}));
    REQUIRE(id);
    CHECK(store->find(*id).value().attachments.size() == 1);
    CHECK(store->find(1).value().result == "old");
    auto reader = EpisodicStore::openReadOnly(path);
    REQUIRE(reader);
    CHECK(reader->find(*id).value().attachments.size() == 1);
}
