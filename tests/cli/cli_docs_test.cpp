// `reagent docs ingest|search|list`: a folder of Markdown, HTML and a PDF indexed, re-ingested without
// work, searched with citations; a named file that cannot be ingested fails the command, one found in a
// folder is reported; a missing index is named, never created by a search.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_process.hpp"
#include "pdf_fixture.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using reagent::test::runCli;
using reagent::test::TempDir;
namespace fs = std::filesystem;

namespace {

json parsed(const reagent::test::CliOutcome& outcome) {
    INFO("status " << outcome.status << "\nstdout: " << outcome.out << "\nstderr: " << outcome.err);
    json value = json::parse(outcome.out, nullptr, false);
    REQUIRE_FALSE(value.is_discarded());
    return value;
}

}  // namespace

TEST_CASE("reagent docs ingests a folder, skips what did not change, and searches with citations",
          "[cli][docs]") {
    TempDir dir;
    reagent::test::writeFile(
        dir.path / "kb/deploy.md",
        "# Deploy\n\n## Rollback\n\nRun `deploy --undo` to return to the last release.\n");
    reagent::test::writeFile(
        dir.path / "kb/page.html",
        "<html><head><title>t</title><script>var hidden = 1;</script></head><body><h1>Billing</h1>"
        "<p>Invoices are sent on the first day of the month.</p></body></html>");
    reagent::test::writeFile(
        dir.path / "kb/report.pdf",
        reagent::test::handWrittenPdf({reagent::test::textDrawing("Quarterly revenue grew")}));
    reagent::test::writeFile(dir.path / "kb/fake.md", std::string("# x\n\0\0binary", 12));
    const std::string index = dir.file("kb.db");

    const auto first = runCli({"docs", "ingest", (dir.path / "kb").string(), "--index", index, "--json"});
    CHECK(first.status == 0);  // the binary was found in the folder, not named: reported, not a failure
    const json report = parsed(first);
    CHECK(report["added"] == 3);
    REQUIRE(report["skipped"].size() == 1);
    CHECK(report["skipped"][0]["code"] == "not_text");
    CHECK(first.err.find("fake.md") != std::string::npos);

    const json again =
        parsed(runCli({"docs", "ingest", (dir.path / "kb").string(), "--index", index, "--json"}));
    CHECK(again["unchanged"] == 3);
    CHECK(again["chunks"] == 0);

    const auto searched = runCli({"docs", "search", "how to undo a deploy", "--index", index, "--json"});
    REQUIRE(searched.status == 0);
    const json passages = parsed(searched);
    REQUIRE_FALSE(passages.empty());
    CHECK(passages[0]["citation"].get<std::string>().find("kb/deploy.md:3-5 (Deploy > Rollback)") !=
          std::string::npos);
    const json billing = parsed(runCli({"docs", "search", "invoices", "--index", index, "--json"}));
    REQUIRE_FALSE(billing.empty());
    CHECK(billing[0]["heading"] == "Billing");
    CHECK(billing[0]["text"].get<std::string>().find("hidden") == std::string::npos);
    const json revenue = parsed(runCli({"docs", "search", "revenue", "--index", index, "--json"}));
    REQUIRE_FALSE(revenue.empty());
    CHECK(revenue[0]["page"] == 1);

    const auto text = runCli({"docs", "search", "rollback", "--index", index});
    CHECK(text.out.find("[1] ") == 0);
    const auto list = runCli({"docs", "list", "--index", index});
    CHECK(list.status == 0);
    CHECK(list.out.find("3 documents") != std::string::npos);
}

TEST_CASE("reagent docs fails on a named file it cannot ingest and on a missing index", "[cli][docs]") {
    TempDir dir;
    reagent::test::writeFile(dir.path / "ok.md", "fine\n");
    const std::string index = dir.file("i.db");
    const auto missing =
        runCli({"docs", "ingest", dir.file("ok.md"), dir.file("nowhere.md"), "--index", index});
    CHECK(missing.status == 1);
    CHECK(missing.err.find("nowhere.md does not exist") != std::string::npos);
    CHECK(missing.out.find("1 added") != std::string::npos);

    const auto noIndex = runCli({"docs", "search", "x", "--index", dir.file("absent.db")});
    CHECK(noIndex.status == 1);
    CHECK(noIndex.err.find("no document index at") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path / "absent.db"));

    reagent::test::writeFile(dir.path / "not-an-index.db", std::string(2048, 'x'));
    const auto foreign = runCli({"docs", "list", "--index", dir.file("not-an-index.db")});
    CHECK(foreign.status == 1);
    CHECK(foreign.err.find("not a SQLite database") != std::string::npos);

    const auto badOption =
        runCli({"docs", "ingest", dir.file("ok.md"), "--index", index, "--chunk-chars", "0"});
    CHECK(badOption.status == 2);
}
