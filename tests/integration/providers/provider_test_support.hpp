#pragma once
// Helpers of the provider integration tests: the loopback provider peer (tests/peers/provider_peer.py)
// driven by a JSON script, fixtures, the requests it recorded, and a small agent with two tools.

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "peer_process.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"

namespace reagent::test {

using nlohmann::json;

/// The text of tests/fixtures/providers/<path>.
inline std::string fixture(const std::string& path) {
    std::ifstream in(std::string(REAGENT_FIXTURES_DIR) + "/providers/" + path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("missing fixture " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// A stream body cut into pieces: one per SSE event (ending with its blank line) or NDJSON line.
inline std::vector<std::string> pieces(const std::string& body) {
    std::vector<std::string> out;
    const std::string separator = body.find("\n\n") != std::string::npos ? "\n\n" : "\n";
    std::size_t start = 0;
    while (start < body.size()) {
        auto end = body.find(separator, start);
        end = end == std::string::npos ? body.size() : end + separator.size();
        out.push_back(body.substr(start, end - start));
        start = end;
    }
    return out;
}

/// `bytes` in base64, for the peer's raw pieces and bodies.
inline std::string base64(const std::string& bytes) {
    return base64Encode(bytes);
}

/// A whole JSON response.
inline json bodyResponse(const std::string& body, int status = 200) {
    return json{{"status", status}, {"body", body}};
}

/// A chunked stream response, one chunk per event.
inline json streamResponse(const std::string& body, const std::string& contentType = "text/event-stream") {
    return json{{"status", 200}, {"headers", {{"content-type", contentType}}}, {"chunks", pieces(body)}};
}

/// OpenAI Chat Completions messages as the API writes them, for tests that build replies of their own.
/// One tool call of a reply, with `arguments` as the model wrote them (not necessarily JSON).
inline json openAiToolCall(const std::string& name, const json& arguments, const std::string& id = "call_1") {
    return json{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

/// A whole `chat.completion` body with one choice: `message` and its `finish_reason`.
inline std::string openAiReplyBody(const json& message, const std::string& finish) {
    const json body{{"id", "chatcmpl-1"},
                    {"object", "chat.completion"},
                    {"created", 1},
                    {"model", "gpt-test"},
                    {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}},
                    {"usage", {{"prompt_tokens", 5}, {"completion_tokens", 3}, {"total_tokens", 8}}}};
    return body.dump();
}

/// One `chat.completion.chunk` SSE event carrying `delta` (and `finish`, when not null).
inline std::string openAiChunk(const json& delta, const json& finish = nullptr) {
    const json chunk{{"id", "chatcmpl-1"},
                     {"object", "chat.completion.chunk"},
                     {"created", 1},
                     {"model", "gpt-test"},
                     {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}};
    return "data: " + chunk.dump() + "\n\n";
}

/// The provider peer running `script`, written to a temporary file that lives as long as the peer.
class ProviderPeer {
  public:
    explicit ProviderPeer(const json& script) {
        char pattern[] = "/tmp/reagent-provider-peer-XXXXXX.json";
        const int fd = ::mkstemps(pattern, 5);
        if (fd < 0) {
            throw std::runtime_error("cannot create a script file");
        }
        ::close(fd);
        scriptFile_ = pattern;
        std::ofstream(scriptFile_) << script.dump();
        process_ = std::make_unique<PeerProcess>(std::string(REAGENT_PEERS_DIR) + "/provider_peer.py",
                                                 std::vector<std::string>{"--script", scriptFile_});
    }
    ProviderPeer(const ProviderPeer&) = delete;
    ProviderPeer& operator=(const ProviderPeer&) = delete;
    ~ProviderPeer() {
        process_.reset();
        std::remove(scriptFile_.c_str());
    }

    [[nodiscard]] std::string url(const std::string& path = "") const { return process_->url(path); }
    [[nodiscard]] std::uint16_t port() const { return process_->port(); }

    /// The requests recorded so far: [{method, path, query, headers, body}].
    [[nodiscard]] json requests() const {
        const std::string target = url("/__requests");
        return runCoro(fetchJson(target));
    }

    /// The peer's counters: {connections (accepted so far), open (now), requests}.
    [[nodiscard]] json stats() const { return runCoro(fetchJson(url("/__stats"))); }

  private:
    static Task<json> fetchJson(std::string target) {
        http::HttpClientConfig config;
        config.proxy = http::ProxySettings{};
        http::HttpClient client(config);
        http::HttpRequest request;
        request.url = std::move(target);
        auto response = co_await client.send(std::move(request));
        if (!response || response->status != 200) {
            co_return json();
        }
        co_return json::parse(response->body);
    }

    std::string scriptFile_;
    std::unique_ptr<PeerProcess> process_;
};

/// An io_context that runs tasks to completion one after another. Providers may be declared before or
/// after it: their pooled connections live in the io_context and close with it.
class Loop {
  public:
    template <class T>
    T run(Task<T> task) {
        std::optional<T> value;
        std::exception_ptr error;
        boost::asio::co_spawn(io_, std::move(task), [&](std::exception_ptr e, T v) {
            error = e;
            if (!e) {
                value.emplace(std::move(v));
            }
        });
        io_.restart();
        io_.run();
        if (error) {
            std::rethrow_exception(error);
        }
        return std::move(*value);
    }
    [[nodiscard]] boost::asio::io_context& io() { return io_; }

  private:
    boost::asio::io_context io_;
};

/// A provider of `kind` pointed at the peer: no proxy, fast retries, a key "test-key".
inline providers::ProviderConfig peerConfig(providers::ProviderKind kind, const ProviderPeer& peer,
                                            bool stream = false) {
    providers::ProviderConfig config;
    config.kind = kind;
    config.apiKey = "test-key";
    // The peer serves each API at its usual root: the versioned base URL is that root.
    config.baseUrl = peer.url(kind == providers::ProviderKind::gemini   ? "/v1beta"
                              : kind == providers::ProviderKind::ollama ? "/api"
                                                                        : "/v1");
    config.proxy = http::ProxySettings{};
    config.stream = stream;
    config.retry.initialDelay = std::chrono::milliseconds(20);
    config.requestTimeout = std::chrono::milliseconds(10'000);
    return config;
}

/// "What is the capital of France?", its deltas collected into `deltas` when given (the reply then
/// streams if the provider is configured to).
inline llm::ModelRequest question(std::vector<llm::StreamDelta>* deltas = nullptr) {
    llm::ModelRequest request;
    request.messages.push_back(llm::Message::user("What is the capital of France?"));
    if (deltas != nullptr) {
        request.onDelta = [deltas](const llm::StreamDelta& delta) { deltas->push_back(delta); };
    }
    return request;
}

inline Task<expected<llm::ModelReply, llm::ProviderError>> ask(std::shared_ptr<llm::Provider> provider,
                                                               llm::ModelRequest request) {
    co_return co_await provider->complete(std::move(request));
}

/// One call of a provider made from `config`, on a loop of its own.
inline expected<llm::ModelReply, llm::ProviderError> complete(const providers::ProviderConfig& config,
                                                              llm::ModelRequest request) {
    Loop loop;
    auto provider = providers::makeProvider(config);
    REQUIRE(provider);
    return loop.run(ask(*provider, std::move(request)));
}

inline Task<tools::ToolResult> weatherHandler(json input) {
    co_return "18C and sunny in " + input.value("location", std::string("?"));
}

inline Task<tools::ToolResult> timeHandler(json input) {
    co_return "14:05 in " + input.value("timezone", std::string("?"));
}

/// get_weather {location} and get_time {timezone}, the tools the fixtures call; `weatherName` renames the
/// first (to test `server/tool` names).
inline std::vector<tools::Tool> fixtureTools(const std::string& weatherName = "get_weather") {
    std::vector<tools::Tool> out;
    out.push_back(
        tools::ToolBuilder::create(weatherName)
            .description("Current weather of a place")
            .param("location", "string", "City and country", {.required = true})
            .handler([](json input, tools::ToolContext) { return weatherHandler(std::move(input)); })
            .build()
            .value());
    out.push_back(tools::ToolBuilder::create("get_time")
                      .description("Current time in a time zone")
                      .param("timezone", "string", "IANA time zone", {.required = true})
                      .handler([](json input, tools::ToolContext) { return timeHandler(std::move(input)); })
                      .build()
                      .value());
    return out;
}

}  // namespace reagent::test
