#pragma once
/// \file
/// \brief `AgentCard`: how an A2A agent describes itself at `/.well-known/agent-card.json`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/a2a/message.hpp"

namespace reagent::a2a {

/// \brief Where the card is served, relative to the agent's base URL.
inline constexpr std::string_view kAgentCardPath = "/.well-known/agent-card.json";

/// \brief A skill the agent advertises (one per tool for reagent's server).
struct AgentSkill {
    std::string id;
    std::string name;
    std::string description;
    std::vector<std::string> tags;
};

/// \brief One JSON-RPC endpoint of the agent and the protocol version it speaks.
struct AgentInterface {
    std::string url;
    ProtocolVersion version = ProtocolVersion::v1_0;
};

/// \brief The parts of an Agent Card reagent uses. Card text is untrusted.
struct AgentCard {
    std::string name;
    std::string description;
    std::string version = "1.0.0";
    /// JSON-RPC interfaces, in the card's order of preference.
    std::vector<AgentInterface> interfaces;
    bool streaming = false;
    std::vector<AgentSkill> skills;

    /// \brief The interface a client uses: the first 1.0 JSON-RPC one, else the first 0.3 one.
    [[nodiscard]] const AgentInterface& preferred() const;
};

/// \brief The card as JSON, readable by 0.3 clients (`url`, `protocolVersion`, `preferredTransport`,
/// `additionalInterfaces`) and 1.0 clients (`supportedInterfaces`). Set `legacyOnly` to leave the 1.0
/// fields out (a 0.3-only agent).
[[nodiscard]] nlohmann::json toJson(const AgentCard& card, bool legacyOnly = false);

/// \brief Reads and validates a card (0.3 or 1.0 shape).
///
/// \par Errors
/// `malformed_card`: not a JSON object, no `name`, no JSON-RPC interface with an http(s) URL, a field of
/// the wrong type; the message names the field.
[[nodiscard]] expected<AgentCard, A2aError> parseAgentCard(const nlohmann::json& json);

}  // namespace reagent::a2a
