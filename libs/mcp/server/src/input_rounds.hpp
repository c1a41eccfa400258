#pragma once
// Private to reagent::mcp_server: multi-round-trip requests (2026-07-28). A handler's question to the
// client (sampling, elicitation, roots) cannot be a server->client request in that revision: the call
// ends with `input_required`, listing the questions, and the client calls again with the answers. The
// handler then runs again from the start and its questions are answered from them (a replay).
//
// What was answered in earlier rounds travels in `requestState`, sealed with HMAC-SHA256 under the
// server's key, bound to the method and its parameters, with an expiry: the client cannot forge or move
// it, and the server keeps nothing between rounds.

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/json_rpc.hpp"

namespace reagent::mcp::detail {

/// The params field that names a question (`SamplingRequest::key`, ...); taken out before it is sent.
inline constexpr const char* kInputKeyField = "reagent/inputKey";

/// One round of a request: the answers it may use, and the questions its handler asked unanswered.
struct InputRound {
    std::string method;
    /// The request's params without `_meta`, `inputResponses` and `requestState`: what the state binds
    /// (hashed only when a state is verified or sealed, so that a call that asks nothing pays no hash).
    nlohmann::json salient;
    /// What the request declared it can do (`clientCapabilities`).
    nlohmann::json capabilities = nlohmann::json::object();
    /// Answers from the verified state and from this round's `inputResponses`, by key.
    nlohmann::json answers = nlohmann::json::object();
    /// Answers the handler used: they go into the next state.
    nlohmann::json used = nlohmann::json::object();
    /// Questions asked and not answered: `{key: {method, params}}`.
    nlohmann::json asked = nlohmann::json::object();
    /// Rounds before this one.
    std::size_t rounds = 0;
    /// Questions asked per method, for keys the handler did not choose.
    std::size_t unnamed = 0;
    /// A question ended this round (the call stops and answers `input_required`).
    bool required = false;
};

/// The server's sealing key and bounds.
struct RoundRules {
    std::string key;
    std::chrono::seconds ttl{600};
    std::size_t maxRounds = 16;
};

/// A new random key (32 bytes from OpenSSL's generator).
[[nodiscard]] std::string newStateKey();

/// The round a request starts: its `requestState` verified (-32602 with `data.reason`
/// `invalid_request_state` when forged, expired, made for another request, or past `maxRounds`), its
/// `inputResponses` read (-32602 when not an object).
[[nodiscard]] expected<InputRound, RpcError> openRound(const RoundRules& rules, const std::string& method,
                                                       const nlohmann::json& params,
                                                       const nlohmann::json& capabilities);

/// The `input_required` result of a round that asked questions: the questions and the sealed state.
[[nodiscard]] nlohmann::json inputRequired(const RoundRules& rules, const InputRound& round);

/// The capability a question needs (`{"sampling":{}}`, `{"elicitation":{"url":{}}}`, ...), or null when
/// the request declared it.
[[nodiscard]] nlohmann::json missingCapability(const nlohmann::json& declared, std::string_view method,
                                               const nlohmann::json& params);

/// Whether `answer` has the shape of a result of `method` (an elicitation's `action`, a sampling's
/// `content`, a roots list's `roots`); an answer of another shape is asked for again.
[[nodiscard]] bool answersQuestion(std::string_view method, const nlohmann::json& answer);

}  // namespace reagent::mcp::detail
