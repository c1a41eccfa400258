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
