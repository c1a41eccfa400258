// Embedding models over HTTP (providers::makeEmbedder) against the provider peer: each API's request
// (path, headers, body) and reply, the vectors of llm::HashedEmbedder, and the failures.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "provider_test_support.hpp"
#include "reagent/llm/hashed_embedder.hpp"
#include "reagent/providers/embedder_factory.hpp"

using reagent::llm::Embedder;
using reagent::llm::EmbeddingPurpose;
using reagent::llm::Embeddings;
using reagent::llm::HashedEmbedder;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::providers::makeEmbedder;
using reagent::providers::ProviderKind;
using namespace reagent::test;
namespace asio = boost::asio;
using EmbedOutcome = reagent::expected<Embeddings, ProviderError>;

namespace {

constexpr int kPeerDimensions = 64;

/// A peer that computes embeddings (the same scheme as HashedEmbedder) of `dimensions`.
json computingScript(int dimensions = kPeerDimensions) {
    return json{{"embeddings", {{"dimensions", dimensions}}}};
}

reagent::Task<EmbedOutcome> embedWith(std::shared_ptr<Embedder> embedder, std::vector<std::string> texts,
                                      EmbeddingPurpose purpose) {
    co_return co_await embedder->embed(std::move(texts), purpose);
}

/// One `embed` call of an embedder made from `config`, on a loop of its own.
EmbedOutcome embedOnce(const reagent::providers::ProviderConfig& config, std::vector<std::string> texts,
                       EmbeddingPurpose purpose = EmbeddingPurpose::document) {
    Loop loop;
    auto embedder = makeEmbedder(config);
    REQUIRE(embedder);
    return loop.run(embedWith(*embedder, std::move(texts), purpose));
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        dot += static_cast<double>(a[i]) * b[i];
        na += static_cast<double>(a[i]) * a[i];
        nb += static_cast<double>(b[i]) * b[i];
    }
    return dot / std::sqrt(na * nb);
}

const std::vector<std::string> kTexts = {"The cat sat on the mat", "Stock markets fell sharply on Monday",
                                         "the cats sat on mats"};

/// The vectors are HashedEmbedder's, in the texts' order, all of the peer's dimension.
void checkHashedVectors(const Embeddings& embeddings, const std::vector<std::string>& texts) {
    const HashedEmbedder local(kPeerDimensions);
    REQUIRE(embeddings.vectors.size() == texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        CAPTURE(i);
        REQUIRE(embeddings.vectors[i].size() == kPeerDimensions);
        CHECK(cosine(embeddings.vectors[i], local.vector(texts[i])) > 0.9999);
    }
    // In order: the second text's vector is not the first's.
    CHECK(cosine(embeddings.vectors[1], local.vector(texts[0])) < 0.9);
}

/// A whole OpenAI embeddings body holding `vectors`, numbered in order.
std::string openAiEmbeddingsBody(const std::vector<std::vector<float>>& vectors) {
    json data = json::array();
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", vectors[i]}});
    }
    return json{{"object", "list"},
                {"data", data},
                {"model", "text-embedding-3-small"},
                {"usage", {{"prompt_tokens", 2}, {"total_tokens", 2}}}}
        .dump();
}

}  // namespace

TEST_CASE("openai embeddings: the request and the vectors", "[integration][providers][embeddings]") {
    ProviderPeer peer(computingScript());
    const auto result = embedOnce(peerConfig(ProviderKind::openai, peer), kTexts);
    REQUIRE(result);
    checkHashedVectors(*result, kTexts);
    CHECK(result->model == "text-embedding-3-small");
    CHECK(result->usage.inputTokens == 17);  // the peer counts words: 6 + 6 + 5

    const json requests = peer.requests();
    REQUIRE(requests.size() == 1);
    const json& request = requests[0];
    CHECK(request["method"] == "POST");
    CHECK(request["path"] == "/v1/embeddings");
    CHECK(request["headers"]["authorization"] == "Bearer test-key");
    CHECK(request["headers"]["content-type"] == "application/json");
    CHECK(json::parse(request["body"].get<std::string>()) ==
          json{{"model", "text-embedding-3-small"}, {"input", kTexts}, {"encoding_format", "float"}});
}

TEST_CASE("openai embeddings are ordered by their index", "[integration][providers][embeddings]") {
    const json body{{"object", "list"},
                    {"data",
                     {{{"object", "embedding"}, {"index", 1}, {"embedding", {0.0, 1.0}}},
                      {{"object", "embedding"}, {"index", 0}, {"embedding", {1.0, 0.0}}}}},
                    {"model", "text-embedding-3-large"},
                    {"usage", {{"prompt_tokens", 4}, {"total_tokens", 4}}}};
    ProviderPeer peer(json{{"responses", {bodyResponse(body.dump())}}});
    auto config = peerConfig(ProviderKind::openai, peer);
    config.model = "text-embedding-3-large";
    const auto result = embedOnce(config, {"first", "second"});
    REQUIRE(result);
    REQUIRE(result->vectors.size() == 2);
    CHECK(result->vectors[0] == std::vector<float>{1.0F, 0.0F});
    CHECK(result->vectors[1] == std::vector<float>{0.0F, 1.0F});
    CHECK(result->model == "text-embedding-3-large");
    CHECK(result->usage.inputTokens == 4);
    CHECK(json::parse(peer.requests()[0]["body"].get<std::string>())["model"] == "text-embedding-3-large");
}

TEST_CASE("gemini embeddings: the request, the purpose as taskType, the vectors",
          "[integration][providers][embeddings]") {
    ProviderPeer peer(computingScript());
    const auto config = peerConfig(ProviderKind::gemini, peer);
    const auto documents = embedOnce(config, kTexts, EmbeddingPurpose::document);
    REQUIRE(documents);
    checkHashedVectors(*documents, kTexts);
    CHECK(documents->model == "gemini-embedding-001");
    const auto query = embedOnce(config, {"where did the cat sit"}, EmbeddingPurpose::query);
    REQUIRE(query);
    REQUIRE(query->vectors.size() == 1);

    const json requests = peer.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0]["method"] == "POST");
    CHECK(requests[0]["path"] == "/v1beta/models/gemini-embedding-001:batchEmbedContents");
    CHECK(requests[0]["headers"]["x-goog-api-key"] == "test-key");
    CHECK_FALSE(requests[0]["headers"].contains("authorization"));
    json expected = json{{"requests", json::array()}};
    for (const auto& text : kTexts) {
        expected["requests"].push_back({{"model", "models/gemini-embedding-001"},
                                        {"content", {{"parts", {{{"text", text}}}}}},
                                        {"taskType", "RETRIEVAL_DOCUMENT"}});
    }
    CHECK(json::parse(requests[0]["body"].get<std::string>()) == expected);
    const json queryBody = json::parse(requests[1]["body"].get<std::string>());
    CHECK(queryBody["requests"][0]["taskType"] == "RETRIEVAL_QUERY");
    CHECK(queryBody["requests"][0]["content"]["parts"][0]["text"] == "where did the cat sit");
}

TEST_CASE("ollama embeddings: the request and the vectors", "[integration][providers][embeddings]") {
    ProviderPeer peer(computingScript());
    auto config = peerConfig(ProviderKind::ollama, peer);
    config.apiKey.clear();
    const auto result = embedOnce(config, kTexts);
    REQUIRE(result);
    checkHashedVectors(*result, kTexts);
    CHECK(result->model == "nomic-embed-text");
    CHECK(result->usage.inputTokens == 17);

    config.apiKey = "ollama-key";
    config.model = "mxbai-embed-large";
    const auto keyed = embedOnce(config, {"one text"});
    REQUIRE(keyed);
    CHECK(keyed->model == "mxbai-embed-large");

    const json requests = peer.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0]["method"] == "POST");
    CHECK(requests[0]["path"] == "/api/embed");
    CHECK_FALSE(requests[0]["headers"].contains("authorization"));
    CHECK(json::parse(requests[0]["body"].get<std::string>()) ==
          json{{"model", "nomic-embed-text"}, {"input", kTexts}});
    CHECK(requests[1]["headers"]["authorization"] == "Bearer ollama-key");
    CHECK(json::parse(requests[1]["body"].get<std::string>()) ==
          json{{"model", "mxbai-embed-large"}, {"input", json::array({"one text"})}});
}

TEST_CASE("HashedEmbedder's vectors are the peer's", "[integration][providers][embeddings]") {
    const ProviderKind kind = GENERATE(ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama);
    CAPTURE(reagent::providers::toString(kind));
    ProviderPeer peer(computingScript());
    const std::vector<std::string> texts = {"Déjà vu: the café's menus", "42 apples, 7 pears and 1 plum",
                                            "Plural words: dogs, bus, glasses", "a"};
    const auto remote = embedOnce(peerConfig(kind, peer), texts);
    REQUIRE(remote);
    Loop loop;
    auto local = std::make_shared<HashedEmbedder>(kPeerDimensions);
    const auto computed = loop.run(embedWith(local, texts, EmbeddingPurpose::document));
    REQUIRE(computed);
    REQUIRE(remote->vectors.size() == computed->vectors.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        CAPTURE(texts[i]);
        CHECK(cosine(remote->vectors[i], computed->vectors[i]) > 0.9999);
    }
}

TEST_CASE("an empty list of texts sends nothing", "[integration][providers][embeddings]") {
    ProviderPeer peer(computingScript());
    const auto result = embedOnce(peerConfig(ProviderKind::openai, peer), {});
    REQUIRE(result);
    CHECK(result->vectors.empty());
    CHECK(result->model == "text-embedding-3-small");
    CHECK(peer.requests().empty());
}

TEST_CASE("more texts than maxBatch are refused without a request", "[integration][providers][embeddings]") {
    const auto [kind, limit] = GENERATE(std::pair{ProviderKind::openai, std::size_t{128}},
                                        std::pair{ProviderKind::gemini, std::size_t{100}},
                                        std::pair{ProviderKind::ollama, std::size_t{64}});
    CAPTURE(reagent::providers::toString(kind));
    ProviderPeer peer(computingScript());
    const auto config = peerConfig(kind, peer);
    auto embedder = makeEmbedder(config);
    REQUIRE(embedder);
    CHECK((*embedder)->maxBatch() == limit);
    CHECK(embedOnce(config, std::vector<std::string>(limit, "text")));
    const auto refused = embedOnce(config, std::vector<std::string>(limit + 1, "text"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ProviderErrc::invalid_request);
    CHECK(refused.error().message.find("maxBatch") != std::string::npos);
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("makeEmbedder refuses what it cannot embed with", "[integration][providers][embeddings]") {
    reagent::providers::ProviderConfig config;
    config.kind = ProviderKind::anthropic;
    config.apiKey = "sk-ant-test";
    const auto anthropic = makeEmbedder(config);
    REQUIRE_FALSE(anthropic);
    CHECK(anthropic.error().code == ProviderErrc::configuration);
    CHECK(anthropic.error().message.find("no embeddings") != std::string::npos);
    CHECK(anthropic.error().message.find("sk-ant-test") == std::string::npos);

    config.kind = ProviderKind::openai;
    config.apiKey.clear();
    const auto keyless = makeEmbedder(config);
    REQUIRE_FALSE(keyless);
    CHECK(keyless.error().code == ProviderErrc::configuration);
    CHECK(keyless.error().message.find("OPENAI_API_KEY") != std::string::npos);

    config.apiKey = "k";
    config.baseUrl = "ftp://example.com/v1";
    CHECK_FALSE(makeEmbedder(config));
}

TEST_CASE("a 401 is an authentication error that does not quote the key",
          "[integration][providers][embeddings]") {
    const json body{{"error",
                     {{"message", "Incorrect API key provided: test-key. You can find your API key at ..."},
                      {"type", "invalid_request_error"},
                      {"param", nullptr},
                      {"code", "invalid_api_key"}}}};
    ProviderPeer peer(json{{"responses", {bodyResponse(body.dump(), 401)}}});
    const auto result = embedOnce(peerConfig(ProviderKind::openai, peer), {"text"});
    REQUIRE_FALSE(result);
    CHECK(result.error().code == ProviderErrc::authentication);
    CHECK(result.error().httpStatus == 401);
    CHECK(result.error().message.find("test-key") == std::string::npos);
    CHECK(result.error().message.find("Incorrect API key") != std::string::npos);
    CHECK(peer.requests().size() == 1);  // not retried
}

TEST_CASE("a 429 with retry-after is retried after the wait", "[integration][providers][embeddings]") {
    json limited = bodyResponse(R"({"error":{"message":"Rate limit reached","type":"requests"}})", 429);
    limited["headers"] = {{"retry-after", "1"}};
    ProviderPeer peer(json{{"responses", {limited, bodyResponse(openAiEmbeddingsBody({{0.6F, 0.8F}}))}}});
    const auto start = std::chrono::steady_clock::now();
    const auto result = embedOnce(peerConfig(ProviderKind::openai, peer), {"text"});
    REQUIRE(result);
    CHECK(elapsedMs(start) >= 900);
    REQUIRE(result->vectors.size() == 1);
    CHECK(result->vectors[0] == std::vector<float>{0.6F, 0.8F});
    CHECK(peer.requests().size() == 2);
}

TEST_CASE("malformed embedding replies are refused, not retried", "[integration][providers][embeddings]") {
    SECTION("one vector too few") {
        ProviderPeer peer(json{{"responses", {bodyResponse(openAiEmbeddingsBody({{1.0F, 0.0F}}))}}});
        const auto result = embedOnce(peerConfig(ProviderKind::openai, peer), {"one", "two"});
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ProviderErrc::malformed_response);
        CHECK(result.error().message.find("1 embeddings for the 2 texts") != std::string::npos);
        CHECK(peer.requests().size() == 1);
    }
    SECTION("vectors of mixed dimensions") {
        ProviderPeer peer(
            json{{"responses", {bodyResponse(R"({"model":"m","embeddings":[[1,0],[0,1,0]]})")}}});
        const auto result = embedOnce(peerConfig(ProviderKind::ollama, peer), {"one", "two"});
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ProviderErrc::malformed_response);
        CHECK(result.error().message.find("embedding 1 has 3 dimensions and embedding 0 has 2") !=
              std::string::npos);
        CHECK(peer.requests().size() == 1);
    }
    SECTION("a value that is not a number") {
        ProviderPeer peer(json{{"responses", {bodyResponse(R"({"embeddings":[{"values":[0.5,"x"]}]})")}}});
        const auto result = embedOnce(peerConfig(ProviderKind::gemini, peer), {"one"});
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ProviderErrc::malformed_response);
        CHECK(result.error().message.find("embeddings[0].values") != std::string::npos);
    }
    SECTION("an empty vector") {
        ProviderPeer peer(json{{"responses", {bodyResponse(R"({"model":"m","embeddings":[[]]})")}}});
        const auto result = embedOnce(peerConfig(ProviderKind::ollama, peer), {"one"});
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ProviderErrc::malformed_response);
        CHECK(result.error().message.find("is empty") != std::string::npos);
    }
    SECTION("a body that is not JSON") {
        ProviderPeer peer(json{{"responses", {bodyResponse("<html>login</html>")}}});
        const auto result = embedOnce(peerConfig(ProviderKind::openai, peer), {"one"});
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ProviderErrc::malformed_response);
        CHECK(result.error().message.find("<html>login</html>") != std::string::npos);
    }
}

TEST_CASE("cancelling an embed call mid-request ends it at once with cancelled",
          "[integration][providers][embeddings]") {
    json slow = bodyResponse(openAiEmbeddingsBody({{1.0F, 0.0F}}));
    slow["delay_ms"] = 5000;
    ProviderPeer peer(json{{"responses", {slow}}});
    asio::io_context io;
    auto embedder = makeEmbedder(peerConfig(ProviderKind::openai, peer));
    REQUIRE(embedder);

    asio::cancellation_signal cancel;
    std::optional<EmbedOutcome> outcome;
    std::chrono::steady_clock::time_point endedAt;
    asio::co_spawn(io, embedWith(*embedder, {"text"}, EmbeddingPurpose::query),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr, EmbedOutcome value) {
                       outcome = std::move(value);
                       endedAt = std::chrono::steady_clock::now();
                   }));
    // The request is sent and waiting for its head when the cancellation comes.
    asio::steady_timer timer(io, std::chrono::milliseconds(300));
    std::chrono::steady_clock::time_point cancelledAt;
    timer.async_wait([&](boost::system::error_code) {
        cancelledAt = std::chrono::steady_clock::now();
        cancel.emit(asio::cancellation_type::terminal);
    });
    io.run();
    REQUIRE(outcome);
    REQUIRE_FALSE(*outcome);
    CHECK(outcome->error().code == ProviderErrc::cancelled);
    CHECK(endedAt - cancelledAt < std::chrono::milliseconds(1000));
    CHECK(peer.requests().size() == 1);
}
