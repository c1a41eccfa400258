// The SQLite document index and ingestion: passages found with their citations; re-ingesting touches only
// what changed; folders walked with globs, vanished files removed; hostile input (a huge file, a binary
// named .md, a missing path, a file that is not an index, FTS5 syntax in a query) refused or contained.

#include <sqlite3.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <reagent/documents/documents.hpp>
#include <reagent/documents/sqlite_document_index.hpp>

#include "run_coro.hpp"
#include "temp_dir.hpp"

using reagent::documents::DocumentErrc;
using reagent::documents::Documents;
using reagent::documents::IngestOptions;
using reagent::documents::Passage;
using reagent::documents::SqliteDocumentIndex;
using reagent::test::runCoro;
using reagent::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<SqliteDocumentIndex> openIndex(const std::string& path = ":memory:") {
    auto index = SqliteDocumentIndex::open(path);
    REQUIRE(index);
    return *index;
}

std::vector<Passage> search(Documents& docs, const std::string& query, std::size_t limit = 5) {
    auto found = runCoro(docs.search(query, limit));
    REQUIRE(found);
    return *found;
}

const std::string kGuide =
    "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer with the flag --prefix.\n\n"
    "## Rollback\n\nA checkpoint restores the workspace to an earlier state.\n";

}  // namespace

TEST_CASE("a text is found by its words, cited by source, lines and heading", "[documents][index]") {
    Documents docs(openIndex());
    auto report = runCoro(docs.ingestText("guide.md", kGuide));
    REQUIRE(report);
    CHECK(report->added == 1);
    CHECK(report->chunks == 3);
    const auto passages = search(docs, "how do I restore a checkpoint?");
    REQUIRE_FALSE(passages.empty());
    CHECK(passages[0].source == "guide.md");
    CHECK(passages[0].heading == "Guide > Rollback");
    CHECK(passages[0].text.find("A checkpoint restores") != std::string::npos);
    CHECK(passages[0].citation() == "guide.md:9-11 (Guide > Rollback)");
    CHECK(passages[0].score > 0);
    // Stemming: "installing" finds "installer"'s section by "install".
    CHECK(search(docs, "installing")[0].heading == "Guide > Install");
    // Words that are FTS5 syntax are only words.
    for (const std::string query :
         {"\"unbalanced", "NEAR(a b)", "heading: install", "a* OR", "-- ; DROP", "()"}) {
        CHECK(runCoro(docs.search(query, 5)));
    }
    CHECK(search(docs, "").empty());
    CHECK(search(docs, "zzzzunknown").empty());
}

TEST_CASE("re-ingesting touches only what changed", "[documents][index]") {
    TempDir dir;
    reagent::test::writeFile(dir.path / "docs/guide.md", kGuide);
    reagent::test::writeFile(dir.path / "docs/notes.txt",
                             "Deployment happens on Fridays.\n\nNever on Mondays.\n");
    reagent::test::writeFile(dir.path / "docs/api/server.cpp", "int main() {\n    return serve();\n}\n");
    reagent::test::writeFile(dir.path / "docs/.hidden/secret.md", "hidden words\n");
    reagent::test::writeFile(dir.path / "docs/node_modules/x/readme.md", "dependency words\n");
    reagent::test::writeFile(dir.path / "docs/image.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
    Documents docs(openIndex(dir.file("index.db")));
    auto first = runCoro(docs.ingest({dir.path / "docs"}));
    REQUIRE(first);
    CHECK(first->added == 3);  // guide.md, notes.txt, api/server.cpp: not the hidden, module or image files
    CHECK(first->skipped.empty());
    CHECK(search(docs, "hidden").empty());
    CHECK(search(docs, "dependency").empty());
    const std::string notesSource = (dir.path / "docs/notes.txt").lexically_normal().generic_string();
    const auto before = search(docs, "Fridays");
    REQUIRE(before.size() == 1);
    CHECK(before[0].source == notesSource);

    auto again = runCoro(docs.ingest({dir.path / "docs"}));
    REQUIRE(again);
    CHECK(again->unchanged == 3);
    CHECK(again->chunks == 0);

    reagent::test::writeFile(dir.path / "docs/guide.md",
                             kGuide + "\n## Upgrade\n\nUpgrades keep the configuration.\n");
    fs::remove(dir.path / "docs/api/server.cpp");
    auto edited = runCoro(docs.ingest({dir.path / "docs"}));
    REQUIRE(edited);
    CHECK(edited->replaced == 1);
    CHECK(edited->unchanged == 1);
    CHECK(edited->removed == 1);
    CHECK(search(docs, "serve").empty());
    CHECK(search(docs, "upgrades configuration")[0].heading == "Guide > Upgrade");
    // The unchanged file kept its chunks: the same chunk, by id.
    CHECK(search(docs, "Fridays")[0].chunk == before[0].chunk);

    SECTION("include and exclude globs choose a folder's files") {
        IngestOptions only;
        only.include = {"**/*.md"};
        only.exclude = {"api/**"};
        Documents markdown(openIndex(), only);
        auto report = runCoro(markdown.ingest({dir.path / "docs"}));
        REQUIRE(report);
        CHECK(report->added == 1);
        CHECK(search(markdown, "Fridays").empty());
    }
}

TEST_CASE("hostile files are skipped with a reason naming them", "[documents][index][hostile]") {
    TempDir dir;
    // A 1 GB file (sparse: it takes no disk) is refused without being read.
    {
        std::ofstream(dir.file("huge.txt")) << "x";
        fs::resize_file(dir.path / "huge.txt", 1ull << 30);
    }
    reagent::test::writeFile(dir.path / "fake.md", std::string("# Title\n\0\x01\x02 binary", 18));
    reagent::test::writeFile(dir.path / "latin1.txt", "caf\xe9\n");
    reagent::test::writeFile(dir.path / "broken.pdf", "%PDF-1.4\n1 0 obj<</Type/Catalog>>\ngarbage");
    reagent::test::writeFile(dir.path / "good.md", "# Good\n\nfine words\n");
    Documents docs(openIndex());
    auto report =
        runCoro(docs.ingest({dir.path / "huge.txt", dir.path / "fake.md", dir.path / "latin1.txt",
                             dir.path / "broken.pdf", dir.path / "missing.md", dir.path / "good.md"}));
    REQUIRE(report);
    CHECK(report->added == 1);
    REQUIRE(report->skipped.size() == 5);
    const auto codeOf = [&](const std::string& name) {
        for (const auto& skipped : report->skipped) {
            if (skipped.path.find(name) != std::string::npos) {
                CHECK(skipped.named);
                CHECK(skipped.error.message.find(name) != std::string::npos);
                return skipped.error.code;
            }
        }
        FAIL("not skipped: " << name);
        return DocumentErrc::invalid_argument;
    };
    CHECK(codeOf("huge.txt") == DocumentErrc::too_large);
    CHECK(codeOf("fake.md") == DocumentErrc::not_text);
    CHECK(codeOf("latin1.txt") == DocumentErrc::not_text);
    CHECK(codeOf("broken.pdf") == DocumentErrc::parse_failed);
    CHECK(codeOf("missing.md") == DocumentErrc::not_found);
    CHECK(search(docs, "fine")[0].source.find("good.md") != std::string::npos);
}

TEST_CASE("an index that cannot be used is refused and left unchanged", "[documents][index]") {
    TempDir dir;
    auto empty = SqliteDocumentIndex::open("");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().code == DocumentErrc::invalid_argument);

    reagent::test::writeFile(dir.path / "notes.txt", std::string(4096, 'n'));
    auto notDb = SqliteDocumentIndex::open(dir.file("notes.txt"));
    REQUIRE_FALSE(notDb);
    CHECK(notDb.error().code == DocumentErrc::storage_failed);
    CHECK(notDb.error().message.find("not a SQLite database") != std::string::npos);

    { REQUIRE(SqliteDocumentIndex::open(dir.file("newer.db"))); }
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(dir.file("newer.db").c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "UPDATE doc_meta SET value = '99' WHERE key = 'schema'", nullptr, nullptr,
                         nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto newer = SqliteDocumentIndex::open(dir.file("newer.db"));
    REQUIRE_FALSE(newer);
    CHECK(newer.error().message.find("schema version 99, newer than this reagent's 1") != std::string::npos);
}

TEST_CASE("an ingestion cancelled between files keeps what it did", "[documents][index]") {
    TempDir dir;
    for (int i = 0; i < 5; ++i) {
        reagent::test::writeFile(dir.path / ("f" + std::to_string(i) + ".md"),
                                 "file number " + std::to_string(i) + "\n");
    }
    Documents docs(openIndex());
    boost::asio::io_context io;
    boost::asio::cancellation_signal cancel;
    std::optional<reagent::expected<reagent::documents::IngestReport, reagent::documents::DocumentError>>
        outcome;
    boost::asio::co_spawn(
        io, docs.ingest({dir.path}),
        boost::asio::bind_cancellation_slot(
            cancel.slot(), [&](std::exception_ptr, auto result) { outcome = std::move(result); }));
    cancel.emit(boost::asio::cancellation_type::terminal);
    io.run();
    REQUIRE(outcome);
    REQUIRE_FALSE(*outcome);
    CHECK(outcome->error().code == DocumentErrc::cancelled);
}
