#include "reagent/llm/hashed_embedder.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "run_coro.hpp"

using reagent::llm::EmbeddingPurpose;
using reagent::llm::HashedEmbedder;
using reagent::test::runCoro;

namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        sum += static_cast<double>(a[i]) * b[i];
    }
    return sum;
}

}  // namespace

TEST_CASE("HashedEmbedder: names, dimensions, determinism", "[llm][embeddings]") {
    const HashedEmbedder embedder;
    CHECK(embedder.name() == "hashed");
    CHECK(embedder.model() == "hashed-words-256");
    CHECK(embedder.dimensions() == 256);
    CHECK(embedder.maxBatch() >= 1);
    CHECK(HashedEmbedder(64).model() == "hashed-words-64");
    CHECK(HashedEmbedder(0).dimensions() == 1);

    const auto first = embedder.vector("Retrieval-augmented generation, explained");
    CHECK(first.size() == 256);
    CHECK(first == embedder.vector("Retrieval-augmented generation, explained"));
    CHECK(first == HashedEmbedder().vector("Retrieval-augmented generation, explained"));
}

TEST_CASE("HashedEmbedder: vectors have unit length, a text without words is zero", "[llm][embeddings]") {
    const HashedEmbedder embedder;
    for (const std::string text :
         {"a", "The quick brown fox jumps over the lazy dog", "été 2024: 日本語 text"}) {
        CAPTURE(text);
        const auto vector = embedder.vector(text);
        CHECK(std::sqrt(dot(vector, vector)) == Approx(1.0).epsilon(1e-6));
    }
    const auto none = embedder.vector(" ,.;-- ");
    CHECK(dot(none, none) == 0.0);
}

TEST_CASE("HashedEmbedder: the single word 'a' is one signed bucket", "[llm][embeddings]") {
    // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c: bucket 0x8c % 8 = 4, bit 63 set: negative.
    CHECK(HashedEmbedder(8).vector("a") == std::vector<float>{0, 0, 0, 0, -1, 0, 0, 0});
    CHECK(HashedEmbedder(8).vector("  A!  ") == HashedEmbedder(8).vector("a"));
}

TEST_CASE("HashedEmbedder: shared words are nearer than unrelated ones", "[llm][embeddings]") {
    const HashedEmbedder embedder;
    const auto query = embedder.vector("how do I reset my router password");
    const auto related = embedder.vector("To reset the router password, hold the reset button");
    const auto unrelated = embedder.vector("Bake the bread at 220 degrees for forty minutes");
    CHECK(dot(query, related) > dot(query, unrelated) + 0.2);
}

TEST_CASE("HashedEmbedder: case and a final plural s are folded", "[llm][embeddings]") {
    const HashedEmbedder embedder;
    CHECK(embedder.vector("Cats chase MICE") == embedder.vector("cat chase mice"));
    CHECK(embedder.vector("apples and pears") == embedder.vector("apple and pear"));
    // Words of 3 bytes or fewer keep their 's': "bus" is not "bu".
    CHECK(embedder.vector("bus") != embedder.vector("bu"));
    // Term frequency is log-scaled, so repeating a word changes the vector's direction only a little.
    const auto once = embedder.vector("router password");
    const auto twice = embedder.vector("router router password");
    CHECK(once != twice);
    CHECK(dot(once, twice) > 0.9);
}

TEST_CASE("HashedEmbedder::embed returns the vectors in order", "[llm][embeddings]") {
    auto embedder = std::make_shared<HashedEmbedder>(32);
    const auto result = runCoro(embedder->embed({"first text", "", "third"}, EmbeddingPurpose::query));
    REQUIRE(result);
    CHECK(result->model == "hashed-words-32");
    REQUIRE(result->vectors.size() == 3);
    CHECK(result->vectors[0] == embedder->vector("first text"));
    CHECK(result->vectors[1] == std::vector<float>(32, 0.0F));
    CHECK(result->vectors[2] == embedder->vector("third"));
    CHECK(result->usage.empty());
    const auto none = runCoro(embedder->embed({}, EmbeddingPurpose::document));
    REQUIRE(none);
    CHECK(none->vectors.empty());
}
