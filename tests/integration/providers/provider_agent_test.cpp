// A full agent loop (a tool-call turn, then the final text) against the provider peer, for each wire
// format, non-streamed and streamed: the exact request bodies sent, the headers, the answer, the usage.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "provider_test_support.hpp"

using reagent::agent::Agent;
using reagent::agent::AgentEvent;
using reagent::agent::ModelResponded;
using reagent::agent::TextDelta;
using reagent::agent::ToolCallDelta;
using reagent::providers::ProviderKind;
using namespace reagent::test;

namespace {

struct LoopCase {
    ProviderKind kind;
    bool streamed;
};

std::string dirOf(ProviderKind kind) {
    return std::string(reagent::providers::toString(kind));
}

json loopScript(ProviderKind kind, bool streamed) {
    const std::string dir = dirOf(kind) + "/";
    const std::string ext = kind == ProviderKind::ollama ? ".ndjson" : ".sse";
    const std::string type = kind == ProviderKind::ollama ? "application/x-ndjson" : "text/event-stream";
    if (streamed) {
        return json{{"responses",
                     {streamResponse(fixture(dir + "parallel_tools" + ext), type),
                      streamResponse(fixture(dir + "text" + ext), type)}}};
    }
    return json{{"responses",
                 {bodyResponse(fixture(dir + "tool_call.json")), bodyResponse(fixture(dir + "text.json"))}}};
}

// The exact bodies expected, kept as files: tests/integration/providers/expected/<kind>_<mode>_<n>.json.
// REAGENT_UPDATE_EXPECTED=1 rewrites them from what was sent (then review the diff).
std::string expectedBody(ProviderKind kind, bool streamed, int call, const std::string& actual) {
    const std::string path = std::string(REAGENT_EXPECTED_DIR) + "/" + dirOf(kind) +
                             (streamed ? "_stream_" : "_") + std::to_string(call) + ".json";
    if (std::getenv("REAGENT_UPDATE_EXPECTED") != nullptr) {
        std::ofstream(path, std::ios::binary) << actual;
        return actual;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("a full agent loop against each provider's wire format", "[integration][providers]") {
    const auto testCase =
        GENERATE(LoopCase{ProviderKind::anthropic, false}, LoopCase{ProviderKind::anthropic, true},
                 LoopCase{ProviderKind::openai, false}, LoopCase{ProviderKind::openai, true},
                 LoopCase{ProviderKind::gemini, false}, LoopCase{ProviderKind::gemini, true},
                 LoopCase{ProviderKind::ollama, false}, LoopCase{ProviderKind::ollama, true});
    const ProviderKind kind = testCase.kind;
    const bool streamed = testCase.streamed;
    CAPTURE(dirOf(kind), streamed);

    ProviderPeer peer(loopScript(kind, streamed));
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(kind, peer, streamed));
    REQUIRE(provider);
    auto agent = Agent::create()
                     .withProvider(*provider)
                     .withTools(fixtureTools())
                     .withSystemPrompt("You are a terse assistant.")
                     .build();
    REQUIRE(agent);

    std::map<int, std::string> streamedText;
    std::vector<std::string> callNames;
    reagent::llm::Usage reported;
    agent->subscribe([&](const AgentEvent& event) {
        if (const auto* text = std::get_if<TextDelta>(&event)) {
            streamedText[text->iteration] += text->text;
        } else if (const auto* call = std::get_if<ToolCallDelta>(&event)) {
            if (!call->name.empty()) {
                callNames.push_back(call->name);
            }
        } else if (const auto* model = std::get_if<ModelResponded>(&event)) {
            reported += model->usage;
        }
    });

    const auto result = loop.run(agent->run("What is the weather in Paris, and the time there?"));
    INFO((result.error() ? result.error()->describe() : std::string()));
    REQUIRE(result.success());
    CHECK(result.terminatedBy == reagent::agent::TerminatedBy::end_turn);
    CHECK(result.output == "Hello! The capital of France is Paris.");
    CHECK(result.iterations == 2);
    // Usage per run is the sum of both turns, as the provider reported them.
    CHECK(result.usage == reported);
    CHECK(result.usage.inputTokens > 0);
    CHECK(result.usage.outputTokens > 0);

    REQUIRE(!result.toolCalls.empty());
    CHECK(result.toolCalls[0].name == "get_weather");
    REQUIRE(result.toolCalls[0].outcome);
    CHECK(*result.toolCalls[0].outcome == "18C and sunny in Paris, France");
    if (streamed) {
        CHECK(result.toolCalls.size() == 2);
        // Each turn's text arrived piece by piece; the answer is the second turn's.
        REQUIRE(!streamedText.empty());
        CHECK(streamedText.rbegin()->second == "Hello! The capital of France is Paris.");
        CHECK(callNames == std::vector<std::string>{"get_weather", "get_time"});
    } else {
        CHECK(result.toolCalls.size() == 1);
        CHECK(streamedText.empty());
    }

    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    for (int call = 0; call < 2; ++call) {
        const json& request = recorded[call];
        CAPTURE(call);
        CHECK(request["method"] == "POST");
        const json& headers = request["headers"];
        CHECK(headers["content-type"] == "application/json");
        switch (kind) {
            case ProviderKind::anthropic:
                CHECK(request["path"] == "/v1/messages");
                CHECK(headers["x-api-key"] == "test-key");
                CHECK(headers["anthropic-version"] == "2023-06-01");
                break;
            case ProviderKind::openai:
                CHECK(request["path"] == "/v1/chat/completions");
                CHECK(headers["authorization"] == "Bearer test-key");
                break;
            case ProviderKind::gemini:
                CHECK(request["path"] == std::string("/v1beta/models/gemini-2.5-flash:") +
                                             (streamed ? "streamGenerateContent" : "generateContent"));
                CHECK(request["query"] == (streamed ? "alt=sse" : ""));
                CHECK(headers["x-goog-api-key"] == "test-key");
                break;
            case ProviderKind::ollama:
                CHECK(request["path"] == "/api/chat");
                CHECK(headers["authorization"] == "Bearer test-key");
                break;
        }
        const std::string body = request["body"].get<std::string>();
        CHECK(body == expectedBody(kind, streamed, call + 1, body));
    }
    // The second call carries the tool result in the provider's own format.
    const std::string second = recorded[1]["body"].get<std::string>();
    CHECK(second.find("18C and sunny in Paris, France") != std::string::npos);
}
