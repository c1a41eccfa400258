// The `reagent` CLI against a misbehaving provider (the loopback peer playing OpenAI): hostile text,
// echoed secrets, redirects, huge waits, broken tool calls and empty replies, each reported plainly, with
// nothing raw reaching the terminal and no secret in any output.

#include <catch2/catch.hpp>

#ifdef REAGENT_CLI_PATH

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_process.hpp"
#include "media_fixtures.hpp"
#include "provider_test_support.hpp"
#include "reagent/core/base64.hpp"
#include "utf8_check.hpp"

using namespace reagent::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* kKey = "sk-test-SECRET-0123456789abcdef";

// The model's text as a JSON string literal, written raw (it may hold escapes or bytes that are not UTF-8).
// The CLI streams when it prints a trace and asks for a whole reply with --json or -q: the peer answers
// each the way the real API does.
json textReply(const std::string& rawJsonString) {
    const std::string event = R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,)"
                              R"("model":"gpt-test","choices":[{"index":0,"delta":{"content":)" +
                              rawJsonString + R"(},"finish_reason":null}]})" + "\n\n";
    const json streamed{
        {"status", 200},
        {"headers", {{"content-type", "text/event-stream"}}},
        {"chunks", {{{"b64", base64(event)}}, openAiChunk(json::object(), "stop"), "data: [DONE]\n\n"}}};
    const std::string body =
        R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test",)"
        R"("choices":[{"index":0,"message":{"role":"assistant","content":)" +
        rawJsonString +
        R"(},"finish_reason":"stop"}],)"
        R"("usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}})";
    const json whole{
        {"status", 200}, {"headers", {{"content-type", "application/json"}}}, {"body_b64", base64(body)}};
    return json{
        {"rules",
         {{{"match", "\"stream\":true"}, {"response", streamed}}, {{"match", ""}, {"response", whole}}}}};
}

// A whole reply calling `name` with `arguments` as the model wrote them (not necessarily JSON).
json toolCallBody(const std::string& name, const std::string& arguments, const char* finish) {
    const json message{{"role", "assistant"},
                       {"content", nullptr},
                       {"tool_calls", json::array({openAiToolCall(name, arguments)})}};
    return bodyResponse(openAiReplyBody(message, finish));
}

json textBody(const std::string& text) {
    return bodyResponse(openAiReplyBody(json{{"role", "assistant"}, {"content", text}}, "stop"));
}

CliOutcome runAgainst(const ProviderPeer& peer, std::vector<std::string> extra, const std::string& prompt,
                      std::vector<std::string> env = {}) {
    // The CLI reads its provider from the environment; this process's environment is the child's.
    ::setenv("OPENAI_API_KEY", kKey, 1);
    ::setenv("OPENAI_BASE_URL", peer.url("/v1").c_str(), 1);
    for (const char* name : {"ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST", "HTTP_PROXY", "http_proxy",
                             "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"}) {
        ::unsetenv(name);
    }
    for (const auto& assignment : env) {
        const auto eq = assignment.find('=');
        ::setenv(assignment.substr(0, eq).c_str(), assignment.substr(eq + 1).c_str(), 1);
    }
    std::vector<std::string> args{"run", "--provider", "openai", "--model", "gpt-test"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(prompt);
    auto outcome = CliProcess(std::move(args)).wait();
    for (const auto& assignment : env) {
        ::unsetenv(assignment.substr(0, assignment.find('=')).c_str());
    }
    return outcome;
}

}  // namespace

TEST_CASE("escape sequences in a streamed reply never reach the terminal raw",
          "[integration][providers][cli]") {
    ProviderPeer peer(textReply(R"("\u001b]0;pwned\u0007\u001b[2J\u001b[8mhidden\u009b Hi")"));
    const auto shown = runAgainst(peer, {}, "hello");
    INFO(shown.err);
    REQUIRE(shown.status == 0);
    CHECK(shown.out.find('\x1b') == std::string::npos);
    CHECK(shown.err.find('\x1b') == std::string::npos);
    CHECK(shown.err.find('\x07') == std::string::npos);
    CHECK(shown.out.find("\\x1b]0;pwned\\x07") != std::string::npos);

    const auto exact = runAgainst(peer, {"--json"}, "hello");
    REQUIRE(exact.status == 0);
    CHECK(json::parse(exact.out)["output"] == "\x1b]0;pwned\x07\x1b[2J\x1b[8mhidden\u009b Hi");
}

TEST_CASE("raw bytes that are not UTF-8 in a reply are replaced, streamed or not",
          "[integration][providers][cli]") {
    ProviderPeer peer(textReply("\"caf\xff\xfe end\""));
    const auto whole = runAgainst(peer, {"--json"}, "hello");
    INFO(whole.err);
    REQUIRE(whole.status == 0);
    CHECK(reagent::test::isValidUtf8(whole.out));
    CHECK(json::parse(whole.out)["output"].get<std::string>().find("caf\uFFFD") == 0);

    const auto streamed = runAgainst(peer, {}, "hello");
    INFO(streamed.err);
    REQUIRE(streamed.status == 0);
    CHECK(reagent::test::isValidUtf8(streamed.out));
    CHECK(reagent::test::isValidUtf8(streamed.err));
    CHECK(streamed.out.find("caf\uFFFD") == 0);
}

TEST_CASE("an API key echoed in a provider's error is masked", "[integration][providers][cli]") {
    const std::string body =
        std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey +
        R"(. You can find your API key at https://example.com.","type":"invalid_request_error",)"
        R"("param":null,"code":"invalid_api_key"}})";
    ProviderPeer peer(json{{"rules", {{{"match", ""}, {"response", bodyResponse(body, 401)}}}}});
    for (const std::vector<std::string>& mode : {std::vector<std::string>{}, {"--json"}, {"-q"}}) {
        const auto outcome = runAgainst(peer, mode, "hello");
        INFO(outcome.out << outcome.err);
        CHECK(outcome.status == 1);
        CHECK(outcome.out.find(kKey) == std::string::npos);
        CHECK(outcome.err.find(kKey) == std::string::npos);
        CHECK(outcome.out.find("abcdef") == std::string::npos);  // no tail of it either
        CHECK(outcome.err.find("abcdef") == std::string::npos);
    }
}

TEST_CASE("credentials in --base-url and proxy settings never appear in errors",
          "[integration][providers][cli]") {
    ProviderPeer peer(textReply(R"("Hi")"));
    const auto badUrl = runAgainst(peer, {"--base-url", "http://user:hunter2@[::1"}, "hello");
    INFO(badUrl.err);
    CHECK(badUrl.status == 2);
    CHECK(badUrl.err.find("hunter2") == std::string::npos);

    const auto keyInQuery = runAgainst(peer, {"--base-url", "http://[::1?key=hunter3"}, "hello");
    INFO(keyInQuery.err);
    CHECK(keyInQuery.status == 2);
    CHECK(keyInQuery.err.find("hunter3") == std::string::npos);

    const auto proxy = runAgainst(peer, {}, "hello", {"HTTP_PROXY=gopher://proxyuser:pr0xyPass@127.0.0.1:9"});
    INFO(proxy.err);
    CHECK(proxy.status != 0);
    CHECK(proxy.err.find("pr0xyPass") == std::string::npos);
}

TEST_CASE("a redirect is reported with its Location and not retried", "[integration][providers][cli]") {
    ProviderPeer peer(json{{"rules",
                            {{{"match", ""},
                              {"response",
                               {{"status", 307},
                                {"headers", {{"location", "https://elsewhere.example/v1/chat/completions"}}},
                                {"body", ""}}}}}}});
    const auto outcome = runAgainst(peer, {}, "hello");
    INFO(outcome.err);
    CHECK(outcome.status == 1);
    CHECK(outcome.err.find("307") != std::string::npos);
    CHECK(outcome.err.find("https://elsewhere.example/v1/chat/completions") != std::string::npos);
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a Retry-After beyond the cap fails at once, saying what the server asked",
          "[integration][providers][cli]") {
    ProviderPeer peer(json{
        {"rules",
         {{{"match", ""},
           {"response",
            {{"status", 429},
             {"headers", {{"retry-after", "1000000000"}}},
             {"body",
              R"({"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}})"}}}}}}});
    const auto start = std::chrono::steady_clock::now();
    const auto outcome = runAgainst(peer, {}, "hello");
    INFO(outcome.err);
    CHECK(std::chrono::steady_clock::now() - start < 10s);
    CHECK(outcome.status == 1);
    CHECK(outcome.err.find("1000000000") != std::string::npos);
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("the trace shows each retry and its wait", "[integration][providers][cli]") {
    json script = textReply(R"("Hi after a wait")");
    script["responses"] = json::array(
        {{{"status", 429},
          {"headers", {{"retry-after", "1"}}},
          {"body",
           R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})"}}});
    ProviderPeer peer(script);
    const auto outcome = runAgainst(peer, {}, "hello");
    INFO(outcome.err);
    CHECK(outcome.status == 0);
    CHECK(outcome.err.find("model call failed (rate_limited: ") != std::string::npos);
    CHECK(outcome.err.find("retrying in 1.00 s as the server asked (attempt 2 of 3)") != std::string::npos);
    CHECK(outcome.out.find("Hi after a wait") != std::string::npos);
}

TEST_CASE("a tool call with arguments that are not JSON goes back to the model as a tool error",
          "[integration][providers][cli]") {
    // The reply was cut by the token limit inside the arguments; the model is told and repairs the call.
    ProviderPeer peer(json{
        {"responses",
         {toolCallBody("calculator", R"({"expression": "6*)", "length"),
          toolCallBody("calculator", R"({"expression": "6*7"})", "tool_calls"), textBody("6*7 is 42.")}}});
    const auto outcome = runAgainst(peer, {"--json"}, "What is 6*7?");
    INFO(outcome.err);
    REQUIRE(outcome.status == 0);
    const json result = json::parse(outcome.out);
    CHECK(result["output"] == "6*7 is 42.");
    const json requests = peer.requests();
    REQUIRE(requests.size() == 3);
    const json second = json::parse(requests[1]["body"].get<std::string>());
    const json& toolMessage = second["messages"].back();
    CHECK(toolMessage["role"] == "tool");
    CHECK(toolMessage["tool_call_id"] == "call_1");
    CHECK(toolMessage["content"].get<std::string>().find("JSON") != std::string::npos);
}

TEST_CASE("an empty final reply is reported as such, not as an empty answer",
          "[integration][providers][cli]") {
    ProviderPeer peer(textReply(R"("")"));
    const auto outcome = runAgainst(peer, {"--json"}, "hello");
    INFO(outcome.out << outcome.err);
    CHECK(outcome.status == 1);
    const json result = json::parse(outcome.out);
    CHECK(result["success"] == false);
    CHECK(result["error"]["message"].get<std::string>().find("empty") != std::string::npos);

    const auto streamed = runAgainst(peer, {}, "hello");
    INFO(streamed.err);
    CHECK(streamed.status == 1);
    CHECK(streamed.err.find("empty") != std::string::npos);
}

TEST_CASE("an HTML page answering a streamed request is described, not retried",
          "[integration][providers][cli]") {
    ProviderPeer peer(
        json{{"rules",
              {{{"match", ""},
                {"response",
                 {{"status", 200},
                  {"headers", {{"content-type", "text/html; charset=utf-8"}}},
                  {"body", "<html><body><h1>Welcome to the captive portal</h1></body></html>"}}}}}}});
    const auto outcome = runAgainst(peer, {}, "hello");
    INFO(outcome.err);
    CHECK(outcome.status == 1);
    CHECK(outcome.err.find("text/html") != std::string::npos);
    CHECK(outcome.err.find("captive portal") != std::string::npos);
    CHECK(peer.requests().size() == 1);
}

// A schema file for --output-schema, removed with the object.
struct SchemaFile {
    explicit SchemaFile(const std::string& text)
        : path(std::filesystem::temp_directory_path() /
               ("reagent-output-schema-" + std::to_string(::getpid()) + "-" + std::to_string(++count) +
                ".json")) {
        std::ofstream(path) << text;
    }
    ~SchemaFile() { std::filesystem::remove(path); }
    SchemaFile(const SchemaFile&) = delete;
    SchemaFile& operator=(const SchemaFile&) = delete;
    std::filesystem::path path;
    static inline int count = 0;
};

constexpr const char* kForecastSchema =
    R"({"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},)"
    R"("required":["city","celsius"],"additionalProperties":false})";

TEST_CASE("run --output-schema prints the validated JSON after one re-ask, and fails at the bound",
          "[integration][providers][cli][output]") {
    const SchemaFile schema(kForecastSchema);
    // The re-ask (it quotes the violations) gets a valid answer; the first question, prose.
    ProviderPeer peer(json{{"rules",
                            {{{"match", "does not match the required JSON Schema"},
                              {"response", textBody(R"({"city":"Lyon","celsius":21.5})")}},
                             {{"match", ""}, {"response", textBody("It is warm in Lyon.")}}}}});
    const auto asJson = runAgainst(peer, {"--output-schema", schema.path.string(), "--json"}, "Weather?");
    INFO(asJson.out << asJson.err);
    REQUIRE(asJson.status == 0);
    const json result = json::parse(asJson.out);
    CHECK(result["output"] == json{{"city", "Lyon"}, {"celsius", 21.5}});
    CHECK(result["outputRetries"] == 1);
    CHECK(result["iterations"] == 2);
    // The schema went with the question.
    CHECK(peer.requests().at(0)["body"].get<std::string>().find("celsius") != std::string::npos);

    // And in OpenAI's structured-output field, strict (the schema is closed, every property required).
    const json firstBody = json::parse(peer.requests().at(0)["body"].get<std::string>());
    CHECK(firstBody["response_format"]["json_schema"]["strict"] == true);

    const auto quiet = runAgainst(peer, {"--output-schema", schema.path.string(), "-q"}, "Weather?");
    REQUIRE(quiet.status == 0);
    CHECK(json::parse(quiet.out) == json{{"city", "Lyon"}, {"celsius", 21.5}});

    // --native-output never: the prompt only, for a server that refuses the field.
    const std::size_t before = peer.requests().size();
    const auto promptOnly = runAgainst(
        peer, {"--output-schema", schema.path.string(), "--native-output", "never", "-q"}, "Weather?");
    REQUIRE(promptOnly.status == 0);
    const json neverBody = json::parse(peer.requests().at(before)["body"].get<std::string>());
    CHECK_FALSE(neverBody.contains("response_format"));
    CHECK(neverBody["messages"][0]["content"].get<std::string>().find("celsius") != std::string::npos);

    ProviderPeer prose(json{{"rules", {{{"match", ""}, {"response", textBody("Warm, I think.")}}}}});
    const auto failed = runAgainst(prose, {"--output-schema", schema.path.string(), "--json"}, "Weather?");
    INFO(failed.err);
    CHECK(failed.status == 1);
    const json failure = json::parse(failed.out);
    CHECK(failure["error"]["code"] == "output_invalid");
    CHECK(failure["iterations"] == 3);
    CHECK(prose.requests().size() == 3);
}

TEST_CASE("run --native-output tool answers through Anthropic's forced tool",
          "[integration][providers][cli][output]") {
    const SchemaFile schema(kForecastSchema);
    const json reply = {{"id", "msg_1"},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", "claude-sonnet-4-5"},
                        {"content",
                         {{{"type", "tool_use"},
                           {"id", "toolu_1"},
                           {"name", "output"},
                           {"input", {{"city", "Lyon"}, {"celsius", 21.5}}}}}},
                        {"stop_reason", "tool_use"},
                        {"stop_sequence", nullptr},
                        {"usage", {{"input_tokens", 9}, {"output_tokens", 7}}}};
    ProviderPeer peer(json{{"rules", {{{"match", ""}, {"response", bodyResponse(reply.dump())}}}}});
    ::setenv("ANTHROPIC_API_KEY", kKey, 1);
    ::setenv("ANTHROPIC_BASE_URL", peer.url("").c_str(), 1);  // the host: the version is added
    auto outcome = CliProcess({"run", "--provider", "anthropic", "--output-schema", schema.path.string(),
                               "--native-output", "tool", "-q", "Weather?"})
                       .wait();
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("ANTHROPIC_BASE_URL");
    INFO(outcome.out << outcome.err);
    REQUIRE(outcome.status == 0);
    CHECK(json::parse(outcome.out) == json{{"city", "Lyon"}, {"celsius", 21.5}});
    const json sent = json::parse(peer.requests().at(0)["body"].get<std::string>());
    CHECK_FALSE(sent.contains("output_config"));
    CHECK(sent["tools"].back()["name"] == "output");
    // The CLI's agent has tools of its own: some tool call is forced, the answer's among them.
    CHECK(sent["tool_choice"]["type"] == (sent["tools"].size() > 1 ? "any" : "tool"));
}

TEST_CASE("a bad --output-schema file is a usage error named before anything runs",
          "[integration][providers][cli][output]") {
    ProviderPeer peer(json{{"rules", {{{"match", ""}, {"response", textBody("{}")}}}}});
    const SchemaFile notJson("{\"type\": ");
    const SchemaFile cycle(R"({"$ref":"#"})");
    const SchemaFile notSchema(R"({"type":"object","minProperties":"x"})");
    for (const auto* file : {&notJson, &cycle, &notSchema}) {
        const auto outcome = runAgainst(peer, {"--output-schema", file->path.string()}, "Weather?");
        INFO(outcome.err);
        CHECK(outcome.status == 2);
        CHECK(outcome.err.find("--output-schema: '" + file->path.string() + "'") != std::string::npos);
    }
    const auto missing = runAgainst(peer, {"--output-schema", "/nonexistent/schema.json"}, "Weather?");
    CHECK(missing.status == 2);
    CHECK(missing.err.find("cannot read") != std::string::npos);
    CHECK(peer.requests().empty());
}

TEST_CASE("run --attach sends the image and the document with the prompt, a bad file is a usage error",
          "[integration][providers][cli][attachments]") {
    ProviderPeer peer(json{{"rules", {{{"match", ""}, {"response", textBody("A dot and a page.")}}}}});
    const SchemaFile image(reagent::test::tinyPng());
    const SchemaFile document(reagent::test::tinyPdf());
    const auto outcome = runAgainst(
        peer, {"--attach", image.path.string(), "--attach", document.path.string(), "-q"}, "What are these?");
    INFO(outcome.err);
    REQUIRE(outcome.status == 0);
    CHECK(outcome.out == "A dot and a page.\n");
    REQUIRE(peer.requests().size() == 1);
    const json sent = json::parse(peer.requests().at(0)["body"].get<std::string>());
    const json& content = sent["messages"].back()["content"];
    REQUIRE(content.size() == 3);
    CHECK(content[0] == json{{"text", "What are these?"}, {"type", "text"}});
    CHECK(content[1]["image_url"]["url"] ==
          "data:image/png;base64," + reagent::base64Encode(reagent::test::tinyPng()));
    CHECK(content[2]["file"]["filename"] == document.path.filename().string());

    // Text that claims to be a picture, a missing file: refused before anything runs.
    const SchemaFile fake("just text, not a picture");
    const auto claimed = runAgainst(peer, {"--attach", fake.path.string()}, "What is this?");
    CHECK(claimed.status == 2);
    CHECK(claimed.err.find("--attach: '" + fake.path.filename().string() +
                           "' is not a PNG, JPEG, GIF or WebP image") != std::string::npos);
    const auto missing = runAgainst(peer, {"--attach", "/nonexistent/photo.png"}, "What is this?");
    CHECK(missing.status == 2);
    CHECK(missing.err.find("--attach: cannot read '/nonexistent/photo.png'") != std::string::npos);
    CHECK(peer.requests().size() == 1);
}

#endif

TEST_CASE("run --json reports full usage and, with --prices, the cost",
          "[integration][providers][cli][cost]") {
    const SchemaFile prices(
        R"({"date": "2026-11-01", "currency": "USD", "models": {"gpt-test": {"input": 2, "output": 8}}})");
    ProviderPeer peer(json{{"rules", {{{"match", ""}, {"response", textBody("Paris.")}}}}});
    const auto plain = runAgainst(peer, {"--json"}, "Capital of France?");
    REQUIRE(plain.status == 0);
    const json usage = json::parse(plain.out)["usage"];
    CHECK(usage == json{{"inputTokens", 5},
                        {"outputTokens", 3},
                        {"cacheReadTokens", 0},
                        {"cacheWriteTokens", 0},
                        {"reasoningTokens", 0},
                        {"totalTokens", 8}});
    CHECK(json::parse(plain.out)["cost"].is_null());

    const auto priced = runAgainst(peer, {"--json", "--prices", prices.path.string()}, "Capital of France?");
    INFO(priced.err);
    REQUIRE(priced.status == 0);
    const json cost = json::parse(priced.out)["cost"];
    CHECK(cost["amount"].get<double>() == Approx((5 * 2 + 3 * 8) / 1e6));
    CHECK(cost["currency"] == "USD");
    CHECK(cost["unpricedCalls"] == 0);

    const auto text = runAgainst(peer, {"--prices", prices.path.string()}, "Capital of France?");
    REQUIRE(text.status == 0);
    CHECK(text.err.find(", 8 tokens, cost 0.0000 USD") != std::string::npos);

    // The documented example table reads (its models do not include gpt-test: the call is unpriced).
    const auto example = runAgainst(
        peer, {"--json", "--prices", std::string(REAGENT_FIXTURES_DIR) + "/../../docs/prices.example.json"},
        "Capital of France?");
    INFO(example.err);
    REQUIRE(example.status == 0);
    CHECK(json::parse(example.out)["cost"]["unpricedCalls"] == 1);
}

TEST_CASE("the budget flags stop a run, and are checked before it starts",
          "[integration][providers][cli][cost]") {
    // A model that calls a tool on every turn.
    ProviderPeer peer(
        json{{"rules", {{{"match", ""}, {"response", toolCallBody("no-such-tool", "{}", "tool_calls")}}}}});
    const auto tools = runAgainst(peer, {"--json", "--max-tool-calls", "2"}, "Loop");
    INFO(tools.err);
    CHECK(tools.status == 1);
    const json stopped = json::parse(tools.out);
    CHECK(stopped["error"]["code"] == "budget_exceeded");
    CHECK(stopped["error"]["message"] ==
          "budget: --max-tool-calls of 2 would be passed: 2 tool calls made, and the model asked for 1 more");
    CHECK(stopped["iterations"] == 3);
    CHECK(peer.requests().size() == 3);

    // The first request alone (system prompt, tools) is larger than 50 tokens: it is not sent.
    const std::size_t before = peer.requests().size();
    const auto tokens = runAgainst(peer, {"--json", "--max-tokens-total", "50"}, "Loop");
    CHECK(tokens.status == 1);
    CHECK_THAT(json::parse(tokens.out)["error"]["message"].get<std::string>(),
               Catch::StartsWith("budget: --max-tokens-total of 50 would be passed: 0 tokens used"));
    CHECK(peer.requests().size() == before);

    const auto noPrices = runAgainst(peer, {"--max-cost", "0.5"}, "Loop");
    CHECK(noPrices.status == 2);
    CHECK(noPrices.err.find("--max-cost needs --prices FILE") != std::string::npos);
    const SchemaFile broken(R"({"models": {"gpt-test": {"input": 2}}})");
    const auto badPrices = runAgainst(peer, {"--prices", broken.path.string()}, "Loop");
    CHECK(badPrices.status == 2);
    CHECK(badPrices.err.find("models.gpt-test.output is missing") != std::string::npos);
    CHECK(runAgainst(peer, {"--max-tool-calls", "0"}, "Loop").status == 2);
    CHECK(peer.requests().size() == before);
}

TEST_CASE("run --fallback asks the next provider when the first fails",
          "[integration][providers][cli][fallback]") {
    ProviderPeer failing(
        json{{"rules",
              {{{"match", ""}, {"response", bodyResponse(fixture("openai/error_429_quota.json"), 429)}}}}});
    ProviderPeer backup(
        json{{"rules", {{{"match", ""}, {"response", bodyResponse(fixture("anthropic/text.json"))}}}}});
    const std::string backupUrl = backup.url("");
    const auto outcome =
        runAgainst(failing, {"--json", "--fallback", "anthropic:claude-test"}, "Capital of France?",
                   {"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + backupUrl});
    INFO(outcome.err);
    REQUIRE(outcome.status == 0);
    const json result = json::parse(outcome.out);
    CHECK(result["output"] == "Hello! The capital of France is Paris.");
    REQUIRE(result["fallbacks"].size() == 1);
    CHECK(result["fallbacks"][0]["from"] == "openai:gpt-test");
    CHECK(result["fallbacks"][0]["to"] == "anthropic:claude-test");
    CHECK(json::parse(backup.requests()[0]["body"].get<std::string>())["model"] == "claude-test");

    const auto traced = runAgainst(failing, {"--fallback", "anthropic"}, "Capital of France?",
                                   {"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + backupUrl});
    CHECK(traced.err.find("openai:gpt-test failed (quota_exceeded") != std::string::npos);

    const auto unknown = runAgainst(failing, {"--fallback", "nope:x"}, "hi");
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("--fallback nope:x: unknown provider 'nope'") != std::string::npos);
}

TEST_CASE("run --max-rpm spreads the model calls and the trace says why it waits",
          "[integration][providers][cli][ratelimit]") {
    ProviderPeer peer(
        json{{"rules", {{{"match", ""}, {"response", toolCallBody("no-such-tool", "{}", "tool_calls")}}}}});
    const auto start = std::chrono::steady_clock::now();
    const auto outcome = runAgainst(peer, {"--max-rpm", "120", "--max-iterations", "3"}, "Loop");
    const auto took = std::chrono::steady_clock::now() - start;
    INFO(outcome.err);
    CHECK(outcome.status == 1);  // the iteration limit: the model never answers
    CHECK(peer.requests().size() == 3);
    CHECK(took >= std::chrono::milliseconds(900));  // 2 a second: the 2nd and 3rd calls wait 0.5 s each
    CHECK(outcome.err.find("for the provider's rate limit (120 requests per minute)") != std::string::npos);
    CHECK(runAgainst(peer, {"--max-rpm", "0"}, "Loop").status == 2);
    CHECK(runAgainst(peer, {"--max-concurrent", "-1"}, "Loop").status == 2);
}

TEST_CASE("run --context-window: a request that would not fit is not sent, --json shows the window",
          "[integration][providers][cli][context]") {
    ProviderPeer peer(
        json{{"rules", {{{"match", ""}, {"response", bodyResponse(fixture("openai/text.json"))}}}}});
    // The first request (system prompt, tool declarations) is far larger than 50 tokens.
    const auto small = runAgainst(peer, {"--json", "--context-window", "50"}, "Capital of France?");
    INFO(small.err);
    CHECK(small.status == 1);
    const json stopped = json::parse(small.out);
    CHECK(stopped["error"]["code"] == "context_overflow");
    CHECK_THAT(stopped["error"]["message"].get<std::string>(),
               Catch::Contains("past the context window of 50 tokens; it was not sent"));
    CHECK_THAT(stopped["error"]["message"].get<std::string>(), Catch::Contains("(--context-window)"));
    CHECK(stopped["context"]["window"] == 50);
    CHECK(peer.requests().empty());

    const auto fits = runAgainst(peer, {"--json", "--context-window", "100000"}, "Capital of France?");
    INFO(fits.err);
    REQUIRE(fits.status == 0);
    const json answered = json::parse(fits.out);
    CHECK(answered["context"]["window"] == 100000);
    CHECK(answered["context"]["promptTokens"] == answered["usage"]["inputTokens"]);  // the API's count
    CHECK(runAgainst(peer, {"--context-window", "0"}, "Capital of France?").status == 2);
}

TEST_CASE("run: the API's context-length error compacts and retries, --json shows the compaction",
          "[integration][providers][cli][context][compaction]") {
    ProviderPeer peer(json{{"responses",
                            {bodyResponse(fixture("openai/error_400_context_length.json"), 400),
                             bodyResponse(fixture("openai/text.json"))}}});
    const auto outcome = runAgainst(peer, {"--json"}, "Capital of France?");
    INFO(outcome.err);
    REQUIRE(outcome.status == 0);
    const json answered = json::parse(outcome.out);
    CHECK(answered["output"] == "Hello! The capital of France is Paris.");
    REQUIRE(answered["context"]["compactions"].size() == 1);
    const json& compaction = answered["context"]["compactions"][0];
    CHECK(compaction["reason"] == "context_error");
    CHECK(compaction["iteration"] == 1);
    CHECK(compaction["strategies"].empty());  // a prompt alone: nothing to shorten, sent again as it was
    CHECK(peer.requests().size() == 2);
}
