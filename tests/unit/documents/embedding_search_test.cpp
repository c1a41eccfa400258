// Documents with an embedder: chunks embedded in the embedder's batches, searched by cosine similarity
// and by the fusion of both rankings; an embedder that fails leaves the document unwritten; a new model
// re-embeds.

#include <catch2/catch.hpp>
#include <reagent/documents/documents.hpp>
#include <reagent/documents/sqlite_document_index.hpp>

#include "run_coro.hpp"

using reagent::documents::DocumentErrc;
using reagent::documents::Documents;
using reagent::documents::Ranking;
using reagent::test::runCoro;

namespace {

// Meaning by hand: each text's vector counts the words of three topics, so "automobile" is near "car"
// though they share no letters.
class TopicEmbedder final : public reagent::llm::Embedder {
  public:
    explicit TopicEmbedder(std::string model = "topics-1") : model_(std::move(model)) {}
    [[nodiscard]] std::string_view name() const noexcept override { return "topics"; }
    [[nodiscard]] std::string_view model() const noexcept override { return model_; }
    [[nodiscard]] std::size_t maxBatch() const noexcept override { return 2; }
    reagent::Task<reagent::expected<reagent::llm::Embeddings, reagent::llm::ProviderError>> embed(
        std::vector<std::string> texts, reagent::llm::EmbeddingPurpose) override {
        ++calls;
        largestBatch = std::max(largestBatch, texts.size());
        if (failing) {
            reagent::llm::ProviderError error;
            error.code = reagent::llm::ProviderErrc::rate_limited;
            error.message = "slow down";
            co_return reagent::fail(std::move(error));
        }
        reagent::llm::Embeddings out;
        out.model = model_;
        for (const std::string& text : texts) {
            std::vector<float> vector(3, 0.01F);
            for (const char* word : {"car", "automobile", "engine", "wheel"}) {
                vector[0] += text.find(word) != std::string::npos ? 1.0F : 0.0F;
            }
            for (const char* word : {"cake", "flour", "oven", "baking"}) {
                vector[1] += text.find(word) != std::string::npos ? 1.0F : 0.0F;
            }
            for (const char* word : {"tax", "invoice", "refund"}) {
                vector[2] += text.find(word) != std::string::npos ? 1.0F : 0.0F;
            }
            out.vectors.push_back(std::move(vector));
        }
        co_return out;
    }
    int calls = 0;
    std::size_t largestBatch = 0;
    bool failing = false;

  private:
    std::string model_;
};

std::shared_ptr<reagent::documents::DocumentIndex> memoryIndex() {
    auto index = reagent::documents::SqliteDocumentIndex::open(":memory:");
    REQUIRE(index);
    return *index;
}

const std::string kNotes =
    "# Notes\n\n## Garage\n\nThe car needs a new engine and a wheel.\n\n## Kitchen\n\nPreheat the oven "
    "before "
    "baking the cake.\n\n## Office\n\nFile the tax refund with the invoice.\n";

}  // namespace

TEST_CASE("chunks are embedded and found by meaning, and by both rankings fused", "[documents][embeddings]") {
    auto embedder = std::make_shared<TopicEmbedder>();
    Documents docs(memoryIndex(), {}, embedder);
    auto report = runCoro(docs.ingestText("notes.md", kNotes));
    REQUIRE(report);
    CHECK(report->chunks == 4);   // the title, and a chunk per section
    CHECK(embedder->calls == 2);  // in batches of two
    CHECK(embedder->largestBatch == 2);
    // No shared word with the garage section, but the same topic.
    auto near = runCoro(docs.search("automobile", 1, Ranking::embeddings));
    REQUIRE(near);
    REQUIRE(near->size() == 1);
    CHECK(near->front().heading == "Notes > Garage");
    CHECK(near->front().score > 0.9);
    // By words alone nothing matches "automobile"; the hybrid ranking (the default with an embedder) finds
    // it.
    auto text = runCoro(docs.search("automobile", 3, Ranking::text));
    REQUIRE(text);
    CHECK(text->empty());
    auto hybrid = runCoro(docs.search("automobile", 3));
    REQUIRE(hybrid);
    REQUIRE_FALSE(hybrid->empty());
    CHECK(hybrid->front().heading == "Notes > Garage");
    // A passage both rankings put first beats one only the embeddings found.
    auto both = runCoro(docs.search("invoice refund", 3));
    REQUIRE(both);
    CHECK(both->front().heading == "Notes > Office");
    CHECK(both->front().score > (*both)[1].score);
}

TEST_CASE("embedding failures and models", "[documents][embeddings]") {
    auto embedder = std::make_shared<TopicEmbedder>();
    auto index = memoryIndex();
    SECTION("without an embedder, ranking by embeddings is refused") {
        Documents plain(index);
        auto refused = runCoro(plain.search("car", 3, Ranking::embeddings));
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == DocumentErrc::invalid_argument);
    }
    SECTION("a failing embedder leaves the document unwritten") {
        embedder->failing = true;
        Documents docs(index, {}, embedder);
        auto failed = runCoro(docs.ingestText("notes.md", kNotes));
        REQUIRE_FALSE(failed);
        CHECK(failed.error().code == DocumentErrc::embedding_failed);
        CHECK(failed.error().message.find("could not embed notes.md") != std::string::npos);
        auto none = runCoro(index->hashOf("notes.md"));
        REQUIRE(none);
        CHECK(none->empty());
        auto query = runCoro(docs.search("car", 3));
        REQUIRE_FALSE(query);
        CHECK(query.error().code == DocumentErrc::embedding_failed);
    }
    SECTION("another model re-embeds; vectors of another dimension are not compared") {
        Documents first(index, {}, embedder);
        REQUIRE(runCoro(first.ingestText("notes.md", kNotes)));
        auto same = runCoro(first.ingestText("notes.md", kNotes));
        REQUIRE(same);
        CHECK(same->unchanged == 1);
        Documents second(index, {}, std::make_shared<TopicEmbedder>("topics-2"));
        auto again = runCoro(second.ingestText("notes.md", kNotes));
        REQUIRE(again);
        CHECK(again->replaced == 1);
        auto wrongDimension = runCoro(index->searchNear({1.0F, 0.0F}, 3));
        REQUIRE(wrongDimension);
        CHECK(wrongDimension->empty());
    }
}
