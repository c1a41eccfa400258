// ServerConnections: Beast reads the requests and writes the replies of reagent's servers; the servers'
// decisions come through ConnectionHandler.

#include "reagent/http/server_connections.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <list>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"

namespace reagent::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

struct Connection {
    explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    /// Waiting for the next request: `stop()` ends that wait.
    bool reading = false;
    TaskGroup::ChildId id;
};

using ConnectionPtr = std::shared_ptr<Connection>;

template <class Message>
void setHeaders(Message& message, const HttpHeaders& headers) {
    for (const auto& field : headers) {
        message.insert(beast::string_view(field.name.data(), field.name.size()),
                       beast::string_view(field.value.data(), field.value.size()));
    }
}

[[nodiscard]] ServerRequest readRequest(bhttp::request<bhttp::string_body>& request) {
    ServerRequest out;
    out.method = std::string(request.method_string());
    out.target = std::string(request.target());
    out.headers.reserve(static_cast<std::size_t>(std::distance(request.begin(), request.end())));
    for (const auto& field : request) {
        out.headers.add(std::string(field.name_string()), std::string(field.value()));
    }
    out.body = std::move(request.body());
    return out;
}

}  // namespace

struct ServerConnections::State : std::enable_shared_from_this<State> {
    State(Executor ex, ConnectionLimits l, ConnectionHandler h)
        : executor(ex), limits(l), handler(std::move(h)), connections(ex) {}
    Executor executor;
    ConnectionLimits limits;
    ConnectionHandler handler;
    TaskGroup connections;
    std::list<std::weak_ptr<Connection>> open;
    bool stopping = false;

    Task<void> serveConnection(ConnectionPtr conn);
    Task<bool> write(const ConnectionPtr& conn, ServerReply reply, bool keepAlive);
    Task<bool> stream(const ConnectionPtr& conn, StreamedReply reply, bool keepAlive);
    Task<bool> refuse(const ConnectionPtr& conn, unsigned status, std::string why);
};

// Writes a whole reply; true when the connection may serve another request.
Task<bool> ServerConnections::State::write(const ConnectionPtr& conn, ServerReply reply, bool keepAlive) {
    bhttp::response<bhttp::string_body> response{static_cast<bhttp::status>(reply.status), 11};
    setHeaders(response, reply.headers);
    response.keep_alive(keepAlive);
    response.body() = std::move(reply.body);
    response.prepare_payload();
    conn->stream.expires_after(limits.writeTimeout);
    auto [ec, written] = co_await bhttp::async_write(conn->stream, response, kTuple);
    (void)written;
    conn->stream.expires_never();
    co_return !ec && keepAlive;
}

// Writes a streamed reply: the head, then each piece `next` gives as a chunk, then the last chunk. While
// it streams, the connection is watched for the client going away (readable with nothing to read), which
// cancels this connection (and so `next`) at once rather than at the next failed write.
Task<bool> ServerConnections::State::stream(const ConnectionPtr& conn, StreamedReply reply, bool keepAlive) {
    bhttp::response<bhttp::empty_body> response{static_cast<bhttp::status>(reply.status), 11};
    setHeaders(response, reply.headers);
    response.keep_alive(keepAlive);
    response.chunked(true);
    bhttp::response_serializer<bhttp::empty_body> serializer{response};
    conn->stream.expires_after(limits.writeTimeout);
    auto [headError, headBytes] = co_await bhttp::async_write_header(conn->stream, serializer, kTuple);
    (void)headBytes;
    conn->stream.expires_never();
    if (headError) {
        co_return false;
    }
    auto watched = std::make_shared<bool>(false);
    std::weak_ptr<State> weakSelf = weak_from_this();
    conn->stream.socket().async_wait(
        tcp::socket::wait_read, [watched, weakSelf, conn](const boost::system::error_code& ec) {
            *watched = true;
            boost::system::error_code ignored;
            if (auto self = weakSelf.lock(); self && !ec && conn->stream.socket().available(ignored) == 0) {
                self->connections.cancel(conn->id);
            }
        });
    bool healthy = true;
    for (;;) {
        std::optional<std::string> piece;
        try {
            auto producing = reply.next();
            piece = co_await std::move(producing);
        } catch (...) {
            healthy = false;
        }
        if (!healthy || isCancelled(co_await asio::this_coro::cancellation_state)) {
            healthy = false;
            break;
        }
        conn->stream.expires_after(limits.writeTimeout);
        boost::system::error_code ec;
        if (piece) {
            auto chunk = bhttp::make_chunk(asio::buffer(*piece));
            std::tie(ec, std::ignore) = co_await asio::async_write(conn->stream, chunk, kTuple);
        } else {
            auto last = bhttp::make_chunk_last();
            std::tie(ec, std::ignore) = co_await asio::async_write(conn->stream, last, kTuple);
        }
        conn->stream.expires_never();
        if (ec) {
            healthy = false;
            break;
        }
        if (!piece) {
            break;
        }
    }
    if (!*watched) {
        boost::system::error_code ignored;
        conn->stream.socket().cancel(ignored);
    }
    co_return healthy&& keepAlive;
}

Task<bool> ServerConnections::State::refuse(const ConnectionPtr& conn, unsigned status, std::string why) {
    ServerReply reply = handler.refuse(status, std::move(why));
    auto writing = write(conn, std::move(reply), false);
    co_return co_await std::move(writing);
}

// Serves the requests of one connection, one at a time (keep-alive).
Task<void> ServerConnections::State::serveConnection(ConnectionPtr conn) {
    auto self = shared_from_this();
    while (!stopping) {
        bhttp::request_parser<bhttp::string_body> parser;
        parser.body_limit(limits.maxBodyBytes);
        parser.header_limit(limits.maxHeaderBytes);
        conn->stream.expires_after(limits.readTimeout);
        conn->reading = true;
        auto [ec, read] = co_await bhttp::async_read(conn->stream, conn->buffer, parser, kTuple);
        (void)read;
        conn->reading = false;
        conn->stream.expires_never();
        if (ec == bhttp::error::body_limit) {
            auto refusing = refuse(conn, 413,
                                   "Payload Too Large: the body exceeds this server's limit of " +
                                       std::to_string(limits.maxBodyBytes) + " bytes");
            (void)co_await std::move(refusing);
            break;
        }
        if (ec == bhttp::error::header_limit) {
            auto refusing = refuse(conn, 431, "Request Header Fields Too Large");
            (void)co_await std::move(refusing);
            break;
        }
        if (ec) {
            if (ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
                ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
                auto refusing =
                    refuse(conn, 400, "Bad Request: not an HTTP/1.1 request (" + ec.message() + ")");
                (void)co_await std::move(refusing);
            }
            break;
        }
        const bool asksKeepAlive = parser.get().keep_alive();
        ServerRequest request = readRequest(parser.get());
        bool keep = false;
        try {
            auto answering = handler.answer(std::move(request));
            ServerAnswer answer = co_await std::move(answering);
            const bool keepAlive = asksKeepAlive && !answer.close && !stopping;
            if (auto* whole = std::get_if<ServerReply>(&answer.reply)) {
                auto writing = write(conn, std::move(*whole), keepAlive);
                keep = co_await std::move(writing);
            } else {
                auto streaming = stream(conn, std::move(std::get<StreamedReply>(answer.reply)), keepAlive);
                keep = co_await std::move(streaming);
            }
        } catch (...) {
            keep = false;
        }
        if (!keep) {
            break;
        }
    }
    boost::system::error_code ignored;
    conn->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    conn->stream.close();
}

ServerConnections::ServerConnections(Executor executor, ConnectionLimits limits, ConnectionHandler handler)
    : state_(std::make_shared<State>(std::move(executor), limits, std::move(handler))) {}

ServerConnections::~ServerConnections() {
    state_->stopping = true;
    state_->connections.cancel();
}

void ServerConnections::serve(tcp::socket socket) {
    boost::system::error_code ignored;
    if (state_->stopping) {
        socket.close(ignored);
        return;
    }
    socket.set_option(tcp::no_delay(true), ignored);
    auto conn = std::make_shared<Connection>(std::move(socket));
    state_->open.remove_if([](const std::weak_ptr<Connection>& weak) { return weak.expired(); });
    state_->open.push_back(conn);
    conn->id = state_->connections.spawn(state_->serveConnection(conn));
}

void ServerConnections::stop() {
    state_->stopping = true;
    for (const auto& weak : state_->open) {
        if (auto conn = weak.lock(); conn && conn->reading) {
            conn->stream.cancel();
        }
    }
}

bool ServerConnections::stopping() const noexcept {
    return state_->stopping;
}

Task<void> ServerConnections::close(std::chrono::milliseconds grace) {
    auto state = state_;
    stop();
    auto draining = state->connections.join();
    const auto drained = co_await withTimeout(std::move(draining), grace);
    if (!drained) {
        state->connections.cancel();
        auto cut = state->connections.join();
        (void)co_await std::move(cut);
    }
}

}  // namespace reagent::http
