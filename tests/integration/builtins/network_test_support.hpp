#pragma once
// Helpers of the network tools' tests: the tools peer (tests/peers/tools_peer.py), options pointing at
// it, and calling a tool's handler.

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peer_process.hpp"
#include "reagent/builtins/network_tools.hpp"
#include "run_coro.hpp"

namespace reagent::test {

inline PeerProcess startToolsPeer() {
    return PeerProcess(std::string(REAGENT_PEERS_DIR) + "/tools_peer.py", {});
}

/// Options aimed at `peer`: both APIs' base URLs, the test key, no proxy, and http-get allowed to reach
/// 127.0.0.1 only (every other non-public address stays refused).
inline builtins::NetworkToolOptions peerOptions(const PeerProcess& peer) {
    builtins::NetworkToolOptions options;
    options.allowedPrivateRanges = {"127.0.0.1"};
    options.tavilyBaseUrl = peer.url("");
    options.tavilyApiKey = "test-key";
    options.coingeckoBaseUrl = peer.url("");
    options.http.proxy = http::ProxySettings{};
    options.requestTimeout = std::chrono::seconds(10);
    return options;
}

inline tools::Tool made(expected<tools::Tool, tools::ToolError> tool) {
    if (!tool) throw std::runtime_error(tool.error().describe());
    return std::move(*tool);
}

/// Runs one call of `tool` on a fresh io_context.
inline tools::ToolResult call(const tools::Tool& tool, nlohmann::json args) {
    return runCoro(tool.handler(std::move(args), tools::ToolContext{}));
}

/// The JSON a successful call returned.
inline nlohmann::json callJson(const tools::Tool& tool, nlohmann::json args) {
    auto result = call(tool, std::move(args));
    if (!result) throw std::runtime_error("the call failed: " + result.error().describe());
    return nlohmann::json::parse(*result);
}

/// The request lines the peer has seen (its /stats excluded).
inline std::vector<std::string> peerRequests(const PeerProcess& peer) {
    auto options = peerOptions(peer);
    options.allowPrivateNetwork = true;
    auto stats = callJson(made(builtins::httpGetTool(options)), {{"url", peer.url("/stats")}});
    return stats["body"]["requests"].get<std::vector<std::string>>();
}

/// `text` percent-encoded for a query parameter (every byte but letters and digits).
inline std::string queryEncoded(const std::string& text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c)) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace reagent::test
