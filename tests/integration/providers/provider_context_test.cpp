// An API's refusal of a request longer than its window, in each API's own words (fixtures), leads to one
// compaction of the history and a retry that succeeds, over real HTTP.

#include <reagent/reagent.hpp>

#include "provider_test_support.hpp"

using namespace reagent;
using namespace reagent::test;

namespace {

// An earlier exchange with four long tool results the compaction can clear.
std::vector<llm::Message> historyWithLongResults() {
    std::vector<llm::Message> history;
    for (int turn = 1; turn <= 4; ++turn) {
        const std::string id = "call_old" + std::to_string(turn);
        history.push_back(llm::Message::user("What is the weather in city " + std::to_string(turn) + "?"));
        history.push_back(llm::Message::assistant("", {{id, "get_weather", json{{"location", "city"}}}}));
        history.push_back(llm::Message::toolResult(id, "get_weather", std::string(6000, 'w')));
        history.push_back(llm::Message::assistant("It is sunny."));
    }
    return history;
}

struct ContextErrorCase {
    providers::ProviderKind kind;
    const char* directory;
};

}  // namespace

TEST_CASE("each API's context-length error leads to one compaction and a successful retry",
          "[integration][providers][compaction]") {
    const auto [kind, directory] = GENERATE(ContextErrorCase{providers::ProviderKind::openai, "openai"},
                                            ContextErrorCase{providers::ProviderKind::anthropic, "anthropic"},
                                            ContextErrorCase{providers::ProviderKind::gemini, "gemini"});
    INFO(directory);
    ProviderPeer peer(
        json{{"responses",
              {bodyResponse(fixture(std::string(directory) + "/error_400_context_length.json"), 400),
               bodyResponse(fixture(std::string(directory) + "/text.json"))}}});
    Loop loop;
    auto provider = providers::makeProvider(peerConfig(kind, peer));
    REQUIRE(provider);
    agent::CompactionOptions compaction;
    compaction.keepTurns = 1;
    auto built = agent::Agent::create()
                     .withProvider(*provider)
                     .withTools(fixtureTools())
                     .withCompaction(compaction)
                     .build();
    REQUIRE(built);
    const agent::RunResult result =
        loop.run(built->run(historyWithLongResults(), "What is the capital of France?"));
    REQUIRE(result.success());
    CHECK(result.output == "Hello! The capital of France is Paris.");
    REQUIRE(result.context.compactions.size() == 1);
    CHECK(result.context.compactions.front().reason == agent::CompactionReason::context_error);
    CHECK(result.context.compactions.front().strategies == std::vector<std::string>{"clear-tool-results"});
    const json requests = peer.requests();
    REQUIRE(requests.size() == 2);
    const std::string refused = requests[0]["body"];
    const std::string retried = requests[1]["body"];
    // Cleared oldest first until the prompt was half what the API refused.
    CHECK(retried.size() * 2 < refused.size());
    CHECK(
        retried.find("Cleared to save context. The full result is in working memory under _tool_result_1") !=
        std::string::npos);
    const auto results = [](const std::string& body) {
        std::size_t count = 0;
        for (auto at = body.find(std::string(6000, 'w')); at != std::string::npos;
             at = body.find(std::string(6000, 'w'), at + 6000)) {
            ++count;
        }
        return count;
    };
    CHECK(results(refused) == 4);
    CHECK(results(retried) == 1);
}

namespace {

// A history whose estimate (about 9,000 tokens) passes 80 % of a 10,000 window less a 1,000-token reply.
std::vector<llm::Message> historyPastTheEstimate() {
    std::vector<llm::Message> history = historyWithLongResults();
    history.push_back(llm::Message::user(std::string(12'000, 'u')));
    history.push_back(llm::Message::assistant("Noted."));
    return history;
}

agent::Agent countingAgent(std::shared_ptr<llm::Provider> provider) {
    agent::CompactionOptions compaction;
    compaction.keepTurns = 1;
    compaction.exactCounts = true;
    auto built = agent::Agent::create()
                     .withProvider(std::move(provider))
                     .withTools(fixtureTools())
                     .withContextWindow(10'000)
                     .withMaxTokens(1000)
                     .withCompaction(compaction)
                     .build();
    REQUIRE(built);
    return std::move(*built);
}

}  // namespace

TEST_CASE("exact counts: the API's count decides whether the estimate's compaction is needed",
          "[integration][providers][compaction]") {
    const auto [kind, directory] = GENERATE(ContextErrorCase{providers::ProviderKind::anthropic, "anthropic"},
                                            ContextErrorCase{providers::ProviderKind::gemini, "gemini"});
    INFO(directory);
    const std::string countPath = kind == providers::ProviderKind::anthropic
                                      ? "/v1/messages/count_tokens"
                                      : "/v1beta/models/gemini-2.5-flash:countTokens";
    SECTION("the exact count is below the threshold: no compaction") {
        ProviderPeer peer(json{{"responses",
                                {bodyResponse(fixture(std::string(directory) + "/count_tokens.json")),
                                 bodyResponse(fixture(std::string(directory) + "/text.json"))}}});
        Loop loop;
        auto provider = providers::makeProvider(peerConfig(kind, peer));
        REQUIRE(provider);
        const agent::RunResult result =
            loop.run(countingAgent(*provider).run(historyPastTheEstimate(), "And France?"));
        REQUIRE(result.success());
        CHECK(result.context.compactions.empty());
        const json requests = peer.requests();
        REQUIRE(requests.size() == 2);
        CHECK(requests[0]["path"] == countPath);
        const json counted = json::parse(requests[0]["body"].get<std::string>());
        if (kind == providers::ProviderKind::anthropic) {
            // Only the fields count_tokens takes: the prompt, not the reply's options.
            for (const auto& [key, value] : counted.items()) {
                CHECK((key == "model" || key == "messages" || key == "system" || key == "tools" ||
                       key == "tool_choice"));
            }
            CHECK(counted.contains("tools"));
        } else {
            REQUIRE(counted.contains("generateContentRequest"));
            CHECK(counted["generateContentRequest"]["model"] == "models/gemini-2.5-flash");
            CHECK(counted["generateContentRequest"].contains("contents"));
        }
        // The request that followed is the one counted.
        CHECK(requests[1]["body"].get<std::string>().find(std::string(12'000, 'u')) != std::string::npos);
    }
    SECTION("the exact count passes the threshold too: compacted from it") {
        const std::string over = kind == providers::ProviderKind::anthropic ? R"({"input_tokens": 8000})"
                                                                            : R"({"totalTokens": 8000})";
        ProviderPeer peer(
            json{{"responses",
                  {bodyResponse(over), bodyResponse(fixture(std::string(directory) + "/text.json"))}}});
        Loop loop;
        auto provider = providers::makeProvider(peerConfig(kind, peer));
        REQUIRE(provider);
        const agent::RunResult result =
            loop.run(countingAgent(*provider).run(historyPastTheEstimate(), "And France?"));
        REQUIRE(result.success());
        REQUIRE(result.context.compactions.size() == 1);
        CHECK(result.context.compactions.front().tokensBefore == 8000);
        CHECK(result.context.compactions.front().notes.empty());
        CHECK(peer.requests().size() == 2);
    }
}

TEST_CASE("exact counts on an API without a counting endpoint: the estimate is used, and noted",
          "[integration][providers][compaction]") {
    ProviderPeer peer(json{{"responses", {bodyResponse(fixture("openai/text.json"))}}});
    Loop loop;
    auto provider = providers::makeProvider(peerConfig(providers::ProviderKind::openai, peer));
    REQUIRE(provider);
    const agent::RunResult result =
        loop.run(countingAgent(*provider).run(historyPastTheEstimate(), "And France?"));
    REQUIRE(result.success());
    REQUIRE(result.context.compactions.size() == 1);
    REQUIRE_FALSE(result.context.compactions.front().notes.empty());
    CHECK_THAT(
        result.context.compactions.front().notes.front(),
        Catch::StartsWith("the exact count failed, the estimate was used: configuration: openai: this API "
                          "has no token-counting endpoint"));
    CHECK(peer.requests().size() == 1);
}
