#pragma once
/// \file
/// \brief `ServerConnections`: the HTTP/1.1 connection loop of reagent's servers (`mcp::serveHttp`,
/// `a2a::Server`). It reads requests within limits, hands each to the server's `answer`, writes a whole
/// reply or a streamed one, and ends its connections on shutdown. The servers decide; this performs.

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "reagent/core/task.hpp"
#include "reagent/http/http_headers.hpp"

namespace reagent::http {

/// \brief A request as a server reads it. Untrusted.
struct ServerRequest {
    /// `GET`, `POST`, ... as sent.
    std::string method;
    std::string target;
    HttpHeaders headers;
    std::string body;
};

/// \brief A whole reply; `Content-Length` is added.
struct ServerReply {
    unsigned status = 200;
    HttpHeaders headers;
    std::string body;
};

/// \brief A reply whose body is written as it is produced, in chunks.
struct StreamedReply {
    unsigned status = 200;
    HttpHeaders headers;
    /// \brief The next piece of the body, written at once; nothing when the body ended (the last chunk is
    /// then written). Called again after each write. It is cancelled (terminal) when the client goes
    /// away (the connection turns readable with nothing to read) or the connections are cut; the
    /// connection then ends without a last chunk, as it does when `next` throws.
    std::function<Task<std::optional<std::string>>()> next;
};

/// \brief What a request gets.
struct ServerAnswer {
    std::variant<ServerReply, StreamedReply> reply;
    /// \brief End the connection after this reply, whatever the client asked (`Connection: close`).
    bool close = false;
};

/// \brief Bounds on one connection. Every field has a default.
struct ConnectionLimits {
    /// The largest request body; a larger one gets `refuse(413, ...)` and the connection ends.
    std::size_t maxBodyBytes = 1U << 20U;
    /// The largest request head; a larger one gets `refuse(431, ...)`.
    std::uint32_t maxHeaderBytes = 16U << 10U;
    /// How long a connection may wait for its next request and take to send it.
    std::chrono::milliseconds readTimeout{30'000};
    /// A write the client does not take within this time ends the connection.
    std::chrono::milliseconds writeTimeout{30'000};
};

/// \brief What a server gives its connections.
struct ConnectionHandler {
    /// \brief Answers a request. Must not throw (a throw ends the connection without a reply).
    std::function<Task<ServerAnswer>(ServerRequest)> answer;
    /// \brief The reply to a request that cannot be read, in the server's protocol: `status` 413 (body
    /// over `maxBodyBytes`), 431 (head over `maxHeaderBytes`) or 400 (not HTTP/1.1), and a sentence
    /// saying so. The connection ends after it.
    std::function<ServerReply(unsigned status, std::string why)> refuse;
};

/// \brief The connections of one server.
///
/// Each connection serves its requests one at a time (keep-alive), in a coroutine of its own.
///
/// \par Shutdown
/// `stop()` ends the connections waiting for a request at once; one busy with a request ends after its
/// reply, which says `Connection: close`; a connection handed to `serve` from then on is closed.
/// `close(grace)` stops, waits up to `grace` for the replies in progress, then cuts the rest.
///
/// \par Thread safety
/// Use from one strand, the executor's.
class ServerConnections {
  public:
    ServerConnections(Executor executor, ConnectionLimits limits, ConnectionHandler handler);
    ServerConnections(const ServerConnections&) = delete;
    ServerConnections& operator=(const ServerConnections&) = delete;
    /// Cuts the connections still open (without waiting for them).
    ~ServerConnections();

    /// \brief Serves `socket` (Nagle's algorithm off) until the client closes it, a reply ends it, or
    /// the connections stop.
    void serve(boost::asio::ip::tcp::socket socket);

    /// \brief Stops, as the class documentation says.
    void stop();
    [[nodiscard]] bool stopping() const noexcept;

    /// \brief `stop()`, then waits up to `grace` for the connections to end, then cuts those left and
    /// waits for them. Never throws.
    [[nodiscard]] Task<void> close(std::chrono::milliseconds grace);

    struct State;

  private:
    std::shared_ptr<State> state_;
};

}  // namespace reagent::http
