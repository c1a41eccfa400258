// Recall@5 over this repository's docs/ by BM25, by embeddings and by both fused, the embeddings from the
// provider peer's deterministic embedding endpoint in OpenAI's format (hashed words: it captures shared
// words, not meaning, so it measures the pipeline, not a model). docs/documents.md quotes the figures.

#include <catch2/catch.hpp>
#include <cstdio>
#include <reagent/reagent.hpp>

#include "provider_test_support.hpp"
#include "retrieval_queries.hpp"

using namespace reagent::test;

TEST_CASE("recall@5 over docs/ by text, embeddings and hybrid with the peer's embeddings",
          "[integration][providers][documents][recall]") {
    ProviderPeer peer(json{{"embeddings", {{"dimensions", 512}}}});
    reagent::providers::ProviderConfig config;
    config.kind = reagent::providers::ProviderKind::openai;
    config.baseUrl = peer.url("/v1");
    config.apiKey = "test-key";
    auto embedder = reagent::providers::makeEmbedder(config);
    REQUIRE(embedder);
    auto index = reagent::documents::SqliteDocumentIndex::open(":memory:");
    REQUIRE(index);
    reagent::documents::Documents docs(*index, {}, *embedder);
    auto report = runCoro(docs.ingest({std::filesystem::path(REAGENT_SOURCE_DIR) / "docs"}));
    REQUIRE(report);
    REQUIRE(report->chunks > 300);
    const auto recallBy = [&](reagent::documents::Ranking ranking) {
        return recallAtFive([&](const std::string& words) {
            auto passages = runCoro(docs.search(words, 5, ranking));
            REQUIRE(passages);
            std::vector<std::string> sources;
            for (const auto& passage : *passages) {
                sources.push_back(passage.source);
            }
            return sources;
        });
    };
    const double text = recallBy(reagent::documents::Ranking::text);
    const double embeddings = recallBy(reagent::documents::Ranking::embeddings);
    const double hybrid = recallBy(reagent::documents::Ranking::hybrid);
    std::printf("recall@5 over docs/ (%zu chunks): BM25 %.2f, embeddings %.2f, hybrid %.2f\n", report->chunks,
                text, embeddings, hybrid);
    CHECK(text >= 0.85);
    CHECK(embeddings >= 0.5);
    CHECK(hybrid >= 0.85);
    // Every chunk was embedded, in batches the API takes.
    std::size_t embedCalls = 0;
    for (const json& request : peer.requests()) {
        embedCalls += request["path"].get<std::string>() == "/v1/embeddings" ? 1 : 0;
    }
    CHECK(embedCalls >= report->chunks / 128);
}
