#pragma once
/// \file
/// \brief An in-memory `Transport` and the peer end that plays the server: for unit tests of the client's
/// rules, and for a client and a server in one process.

#include <cstddef>
#include <memory>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

/// \brief The server's end of an in-memory connection.
///
/// Frames travel whole and in order in both directions, through queues: nothing is lost and nothing
/// blocks. The fault injectors make the client's next `open` or `send` fail as a real transport would, and
/// `drop` ends the connection as a server that exits does.
///
/// \par Thread safety and lifetime
/// Use from the strand of the client's executor. Both ends hold Asio timers of that executor's context:
/// let them go before the context is destroyed.
class MemoryPeer {
  public:
    struct Link;
    explicit MemoryPeer(std::shared_ptr<Link> link);

    /// \brief The next frame the client sent. `connection_closed` once the client closed the transport
    /// (after the frames it sent before) or after `drop`; `cancelled` when the caller cancels the wait.
    [[nodiscard]] Task<expected<std::string, McpError>> receive();
    /// \brief Hands `frame` to the client's `receive`. `connection_closed` once either end closed.
    expected<void, McpError> send(std::string frame);
    /// \brief Ends the connection from the server's side: the client's waiting and later `receive`s return
    /// `error` (after the frames already sent), and its `send`s fail with `connection_closed`.
    void drop(McpError error);
    /// \brief The client's next `open` fails with `error` (`connect_failed`, `unauthorized`, ...).
    void failNextOpen(McpError error);
    /// \brief The client's next `send` fails with `error` (the frame is not delivered).
    void failNextSend(McpError error);

    /// \brief True once the client's `open` succeeded.
    [[nodiscard]] bool opened() const noexcept;
    /// \brief True once the client called `close`.
    [[nodiscard]] bool clientClosed() const noexcept;
    /// \brief The version the client set after `initialize` (`Transport::setProtocolVersion`), or empty.
    [[nodiscard]] const std::string& protocolVersion() const noexcept;
    /// \brief Frames the client sent so far.
    [[nodiscard]] std::size_t framesReceived() const noexcept;

  private:
    std::shared_ptr<Link> link_;
};

/// \brief Both ends of one in-memory connection, not yet opened.
struct MemoryConnection {
    /// For `Client::connect(config, options, factory)`.
    std::unique_ptr<Transport> client;
    std::shared_ptr<MemoryPeer> peer;
};

/// \brief A new connection whose waits run on `executor`.
[[nodiscard]] MemoryConnection makeMemoryConnection(const Executor& executor);

}  // namespace reagent::mcp
