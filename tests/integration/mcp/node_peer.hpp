#pragma once
/// \file
/// \brief `NodePeer`: an MCP server of tests/peers/mcp/ref_server.mjs run by node, on 127.0.0.1.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace reagent::test {

/// \brief `node tests/peers/mcp/ref_server.mjs <args...>` in its own process group; it listens on
/// 127.0.0.1 at a port the system picked and prints it first.
///
/// The destructor kills the process group, so nothing outlives the test. Throws `std::runtime_error`
/// when the peer does not start (node missing, `npm ci` not run in tests/peers/mcp).
class NodePeer {
  public:
    /// \brief Starts the peer and waits (up to 15 s) for its port.
    explicit NodePeer(std::vector<std::string> args);
    /// \brief `node <script> <args...>`, a script that prints `reagent-peer-port N` or `listening N` first.
    NodePeer(std::string script, std::vector<std::string> args);
    NodePeer(NodePeer&&) noexcept;
    NodePeer& operator=(NodePeer&&) noexcept;
    ~NodePeer();

    [[nodiscard]] std::uint16_t port() const noexcept;
    /// \brief `http://127.0.0.1:<port><path>`.
    [[nodiscard]] std::string url(const std::string& path) const;
    /// \brief Kills the peer at once (SIGKILL to its group) and reaps it: a server that crashes.
    void kill();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// \brief server-everything in `mode` (`streamableHttp` or `sse`).
[[nodiscard]] NodePeer startEverything(const std::string& mode);
/// \brief tests/peers/mcp/ws_bridge.mjs: server-everything over WebSocket at `ws://127.0.0.1:<port>/mcp`.
[[nodiscard]] NodePeer startWebSocketBridge();
/// \brief The SDK peer of ref_server.mjs; `json`: replies as application/json instead of event streams.
[[nodiscard]] NodePeer startSdkPeer(bool json);

}  // namespace reagent::test
