// Retrieval quality on this repository's docs/: queries whose right document is known, recall@5 printed
// (docs/documents.md quotes it) and held above a floor that leaves room for the docs to change. Ranking by
// embeddings and hybrid are measured against the provider peer (tests/integration/providers).

#include <catch2/catch.hpp>
#include <cstdio>
#include <reagent/documents/documents.hpp>
#include <reagent/documents/sqlite_document_index.hpp>

#include "retrieval_queries.hpp"
#include "run_coro.hpp"

using reagent::test::runCoro;

TEST_CASE("BM25 over the repository's docs finds the right document in the top five", "[documents][recall]") {
    auto index = reagent::documents::SqliteDocumentIndex::open(":memory:");
    REQUIRE(index);
    reagent::documents::Documents docs(*index);
    auto report = runCoro(docs.ingest({std::filesystem::path(REAGENT_SOURCE_DIR) / "docs"}));
    REQUIRE(report);
    REQUIRE(report->added >= 15);
    const double recall = reagent::test::recallAtFive([&](const std::string& words) {
        auto passages = runCoro(docs.search(words, 5));
        REQUIRE(passages);
        std::vector<std::string> sources;
        for (const auto& passage : *passages) {
            sources.push_back(passage.source);
        }
        return sources;
    });
    std::printf("recall@5 of BM25 over docs/ (%zu chunks): %.2f\n", report->chunks, recall);
    CHECK(recall >= 0.85);
}
