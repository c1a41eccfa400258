#pragma once
// Shared pieces of the codec tests: the reference conversation, a wire format's steps as the tests call
// them, stream runners that try every split of the raw bytes, and reply comparison.

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/wire_format.hpp"

namespace reagent::test {

using Reply = expected<llm::ModelReply, llm::ProviderError>;

/// System prompt, a user question, an assistant turn with text and two parallel tool calls (one to an
/// MCP-style tool name), their two results (one an error), and the two tools.
inline llm::ModelRequest conversation() {
    llm::ModelRequest request;
    request.messages.push_back(llm::Message::system("You are terse."));
    request.messages.push_back(llm::Message::user("Weather in Paris, and read notes.txt?"));
    llm::ToolCall weather{"call_1", "get_weather", {{"city", "Paris"}}};
    weather.signature = "c2lnLUE=";  // only Gemini replays it
    request.messages.push_back(llm::Message::assistant(
        "Checking both.", {weather, llm::ToolCall{"call_2", "files/read", {{"path", "notes.txt"}}}}));
    request.messages.push_back(llm::Message::toolResult("call_1", "get_weather", "18\u00B0C, clear"));
    request.messages.push_back(llm::Message::toolResult("call_2", "files/read", "no such file", true));
    request.tools.push_back(llm::ToolSpec{
        "get_weather",
        "Current weather for a city",
        {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}, {"required", {"city"}}}});
    request.tools.push_back(llm::ToolSpec{
        "files/read",
        "Read a file",
        {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}, {"required", {"path"}}}});
    request.temperature = 0.5;
    request.maxTokens = 1024;
    return request;
}

/// The JSON schemas of `conversation()`'s tools, as they appear in every request.
inline nlohmann::json weatherSchema() {
    return nlohmann::json::parse(
        R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})");
}
inline nlohmann::json readSchema() {
    return nlohmann::json::parse(
        R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})");
}

inline void checkJsonEqual(const nlohmann::json& actual, const nlohmann::json& expected) {
    INFO("actual:   " << actual.dump(2));
    INFO("expected: " << expected.dump(2));
    INFO("diff:     " << nlohmann::json::diff(expected, actual).dump());
    CHECK(actual == expected);
}

inline std::string describe(const Reply& reply) {
    if (!reply) {
        return "error " + reply.error().describe();
    }
    std::string text = "text=" + reply->text + " stop=" + std::string(llm::toString(reply->stopReason)) +
                       " usage=" + std::to_string(reply->usage.inputTokens) + "/" +
                       std::to_string(reply->usage.outputTokens) + " model=" + reply->model;
    for (const llm::ToolCall& call : reply->toolCalls) {
        text +=
            " call(" + call.id + "," + call.name + "," + call.arguments.dump() + "," + call.signature + ")";
    }
    return text;
}

inline std::string describe(const std::vector<llm::StreamDelta>& deltas) {
    std::string text;
    for (const llm::StreamDelta& delta : deltas) {
        switch (delta.kind) {
            case llm::StreamDelta::Kind::text:
                text += "[text " + delta.text + "]";
                break;
            case llm::StreamDelta::Kind::tool_call_start:
                text += "[start " + std::to_string(delta.toolIndex) + " " + delta.toolCallId + " " +
                        delta.toolName + "]";
                break;
            case llm::StreamDelta::Kind::tool_call_arguments:
                text += "[args " + std::to_string(delta.toolIndex) + " " + delta.text + "]";
                break;
        }
    }
    return text;
}

struct StreamRun {
    Reply reply;
    std::vector<llm::StreamDelta> deltas;
};

/// `request` encoded by `format`, its tools included.
inline providers::EncodedRequest encode(const providers::WireFormat& format, const llm::ModelRequest& request,
                                        const providers::CodecOptions& options) {
    return format.encodeRequest(request, options, format.encodeTools(request.tools, options));
}

/// A whole response decoded by `format`.
inline Reply decode(const providers::WireFormat& format, int status, std::string_view body,
                    const providers::ToolNameMap& names, const http::HttpHeaders& headers = {}) {
    return format.decodeReply(status, body, names, headers);
}

/// Feeds `chunks` of a raw streamed body (SSE or NDJSON) to `decoder`, then finishes it.
inline StreamRun runStream(std::unique_ptr<providers::StreamDecoding> decoder,
                           const std::vector<std::string_view>& chunks) {
    StreamRun run{llm::ModelReply{}, {}};
    for (const std::string_view chunk : chunks) {
        auto deltas = decoder->feed(chunk);
        if (!deltas) {
            run.reply = fail(deltas.error());
            return run;
        }
        run.deltas.insert(run.deltas.end(), deltas->begin(), deltas->end());
    }
    run.reply = decoder->finish();
    return run;
}

/// Runs `raw` whole, cut in two at every byte, and byte by byte; every run must match the whole one (its
/// deltas too, unless the stream fails: a failing `feed` returns no deltas, so those before the failure
/// depend on where the bytes were cut). Returns the whole run.
template <class Run>
StreamRun checkEverySplit(std::string_view raw, Run run) {
    StreamRun whole = run(std::vector<std::string_view>{raw});
    const std::string expectedReply = describe(whole.reply);
    const std::string expectedDeltas = describe(whole.deltas);
    for (std::size_t cut = 0; cut <= raw.size(); ++cut) {
        StreamRun split = run(std::vector<std::string_view>{raw.substr(0, cut), raw.substr(cut)});
        INFO("cut at byte " << cut);
        REQUIRE(describe(split.reply) == expectedReply);
        if (whole.reply) {
            REQUIRE(describe(split.deltas) == expectedDeltas);
        }
    }
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        bytes.push_back(raw.substr(i, 1));
    }
    StreamRun byByte = run(bytes);
    CHECK(describe(byByte.reply) == expectedReply);
    if (whole.reply) {
        CHECK(describe(byByte.deltas) == expectedDeltas);
    }
    return whole;
}

/// `text` with every LF turned into CRLF (a server that ends SSE lines with CRLF).
inline std::string withCrlf(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\n') {
            out += '\r';
        }
        out += c;
    }
    return out;
}

/// One row of an error-status table: what a provider sends and what the codec must report.
struct ErrorCase {
    int status;
    std::string body;
    llm::ProviderErrc code;
    std::string providerType;
    std::string messagePart;
};

}  // namespace reagent::test
