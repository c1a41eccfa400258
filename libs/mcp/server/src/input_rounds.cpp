// Multi-round-trip requests: reading a round's answers, and sealing what the next round needs.

#include "input_rounds.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>

#include "reagent/core/base64.hpp"
#include "reagent/core/untrusted_json.hpp"

namespace reagent::mcp::detail {

using nlohmann::json;

namespace {

constexpr std::string_view kStatePrefix = "v1.";

RpcError invalidState(std::string why) {
    return RpcError{kInvalidParams, "Invalid or expired requestState: " + std::move(why),
                    json{{"reason", "invalid_request_state"}}};
}

std::string sha256(std::string_view text) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int size = 0;
    EVP_Digest(text.data(), text.size(), out.data(), &size, EVP_sha256(), nullptr);
    return base64Encode(std::string_view(reinterpret_cast<const char*>(out.data()), size));
}

std::string hmac(const std::string& key, std::string_view text) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int size = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(text.data()), text.size(), out.data(), &size);
    return base64Encode(std::string_view(reinterpret_cast<const char*>(out.data()), size));
}

std::int64_t nowSeconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The request as the state binds it: its method and params without what changes between rounds.
json salientOf(const json& params) {
    json salient = json::object();
    if (params.is_object()) {
        for (const auto& [key, value] : params.items()) {
            if (key != "_meta" && key != "inputResponses" && key != "requestState") {
                salient[key] = value;
            }
        }
    }
    return salient;
}

std::string digestOf(const std::string& method, const json& salient) {
    return sha256(method + "\n" + salient.dump(-1, ' ', false, json::error_handler_t::replace));
}

// The payload of a state the server sealed, or why it is not one.
expected<json, RpcError> unseal(const RoundRules& rules, std::string_view state) {
    if (!state.starts_with(kStatePrefix)) {
        return unexpected(invalidState("not a state this server issued"));
    }
    const std::size_t dot = state.rfind('.');
    if (dot <= kStatePrefix.size()) {
        return unexpected(invalidState("not a state this server issued"));
    }
    const std::string expected = hmac(rules.key, state.substr(0, dot));
    const std::string_view mac = state.substr(dot + 1);
    if (mac.size() != expected.size() || CRYPTO_memcmp(mac.data(), expected.data(), mac.size()) != 0) {
        return unexpected(invalidState("its signature does not verify"));
    }
    const auto text = base64Decode(state.substr(kStatePrefix.size(), dot - kStatePrefix.size()));
    if (!text) {
        return unexpected(invalidState("its payload is not base64"));
    }
    auto payload = parseUntrustedJson(*text);
    if (!payload || !payload->is_object()) {
        return unexpected(invalidState("its payload is not a JSON object"));
    }
    return std::move(*payload);
}

}  // namespace

std::string newStateKey() {
    std::string key(32, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1) {
        // The generator failed (no entropy): fall back to the clock and the address of this frame, so that
        // a state from another server process still fails to verify.
        key = sha256(std::to_string(nowSeconds()) + std::to_string(reinterpret_cast<std::uintptr_t>(&key)));
    }
    return key;
}

expected<InputRound, RpcError> openRound(const RoundRules& rules, const std::string& method,
                                         const json& params, const json& capabilities) {
    InputRound round;
    round.method = method;
    round.salient = salientOf(params);
    round.capabilities = capabilities;
    if (!params.is_object()) {
        return round;
    }
    if (const auto state = params.find("requestState"); state != params.end()) {
        if (!state->is_string()) {
            return unexpected(invalidState("it must be the string the server sent"));
        }
        auto payload = unseal(rules, state->get_ref<const std::string&>());
        if (!payload) {
            return unexpected(std::move(payload.error()));
        }
        const json& sealed = *payload;
        if (sealed.value("m", std::string()) != method ||
            sealed.value("d", std::string()) != digestOf(method, round.salient)) {
            return unexpected(invalidState("it was issued for another request"));
        }
        if (sealed.value("exp", std::int64_t{0}) < nowSeconds()) {
            return unexpected(invalidState("it expired; call again without it"));
        }
        round.rounds = sealed.value("r", std::size_t{0});
        if (const auto answers = sealed.find("a"); answers != sealed.end() && answers->is_object()) {
            round.answers = *answers;
        }
    }
    if (round.rounds > rules.maxRounds) {
        return unexpected(RpcError{kInvalidParams,
                                   "Invalid params: this request came back " + std::to_string(round.rounds) +
                                       " times with answers; the server allows " +
                                       std::to_string(rules.maxRounds),
                                   json{{"reason", "too_many_rounds"}}});
    }
    if (const auto responses = params.find("inputResponses"); responses != params.end()) {
        if (!responses->is_object()) {
            return unexpected(RpcError{kInvalidParams,
                                       "Invalid params: inputResponses must be an object of answers by key",
                                       nullptr});
        }
        for (const auto& [key, answer] : responses->items()) {
            round.answers[key] = answer;  // this round's answer wins over an earlier one
        }
    }
    return round;
}

json inputRequired(const RoundRules& rules, const InputRound& round) {
    const json payload = {{"m", round.method},
                          {"d", digestOf(round.method, round.salient)},
                          {"exp", nowSeconds() + rules.ttl.count()},
                          {"r", round.rounds + 1},
                          {"a", round.used}};
    std::string state(kStatePrefix);
    state += base64Encode(payload.dump(-1, ' ', false, json::error_handler_t::replace));
    const std::string mac = hmac(rules.key, state);
    state += '.';
    state += mac;
    return json{
        {"resultType", "input_required"}, {"inputRequests", round.asked}, {"requestState", std::move(state)}};
}

json missingCapability(const json& declared, std::string_view method, const json& params) {
    const auto has = [&declared](const char* name) {
        return declared.is_object() && declared.contains(name);
    };
    if (method == "sampling/createMessage") {
        if (!has("sampling")) {
            return json{{"sampling", json::object()}};
        }
        const bool usesTools =
            params.is_object() && (params.contains("tools") || params.contains("toolChoice"));
        if (usesTools && !(declared["sampling"].is_object() && declared["sampling"].contains("tools"))) {
            return json{{"sampling", {{"tools", json::object()}}}};
        }
        return nullptr;
    }
    if (method == "elicitation/create") {
        const bool url = params.is_object() && params.value("mode", std::string()) == "url";
        if (!has("elicitation")) {
            return url ? json{{"elicitation", {{"url", json::object()}}}}
                       : json{{"elicitation", json::object()}};
        }
        const json& elicitation = declared["elicitation"];
        if (url && !(elicitation.is_object() && elicitation.contains("url"))) {
            return json{{"elicitation", {{"url", json::object()}}}};
        }
        return nullptr;
    }
    if (method == "roots/list" && !has("roots")) {
        return json{{"roots", json::object()}};
    }
    return nullptr;
}

bool answersQuestion(std::string_view method, const json& answer) {
    if (!answer.is_object()) {
        return false;
    }
    if (method == "elicitation/create") {
        const auto action = answer.find("action");
        return action != answer.end() && action->is_string() &&
               (*action == "accept" || *action == "decline" || *action == "cancel");
    }
    if (method == "sampling/createMessage") {
        return answer.contains("content") && (answer["content"].is_object() || answer["content"].is_array());
    }
    if (method == "roots/list") {
        return answer.contains("roots") && answer["roots"].is_array();
    }
    return true;
}

}  // namespace reagent::mcp::detail
