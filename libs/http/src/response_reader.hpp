#pragma once
// ResponseReader: a sans-io HTTP/1.1 response parser (Beast's basic_parser behind a small interface).
// The driver reads bytes into `prepare()`, `commit`s them and calls `parse()` until it says what
// happened; it knows nothing of sockets, so each step can be tested and reasoned about alone.
//
// One reader belongs to one connection and is `reset` for each response: its input buffer keeps its
// storage between requests on a keep-alive connection.

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "reagent/http/http_response.hpp"

namespace reagent::http::detail {

class ResponseReader {
  public:
    enum class Kind {
        /// Every buffered byte is used: read more (or call `eof` when the peer closed).
        need_more,
        /// The status line and headers are complete: see `takeHead()`.
        head,
        /// Body bytes were appended to the sink given to `parse` (the message may be `done()` too).
        body,
        /// The message is complete.
        done,
        /// The bytes are not valid HTTP (or the connection ended mid-message): see `Step::error`.
        error,
    };
    struct Step {
        Kind kind = Kind::need_more;
        boost::system::error_code error;
    };

    /// `expectBody` false: responses to HEAD and CONNECT, which end after their headers.
    explicit ResponseReader(bool expectBody = true);
    ResponseReader(ResponseReader&&) noexcept;
    ResponseReader& operator=(ResponseReader&&) noexcept;
    ~ResponseReader();

    /// Ready for the next response on the same connection (the input buffer keeps its storage).
    void reset(bool expectBody);

    /// Room for the next read.
    [[nodiscard]] boost::asio::mutable_buffer prepare();
    /// `n` bytes were read into the buffer from `prepare()`.
    void commit(std::size_t n);
    /// Parses what is buffered; body bytes are appended to `sink`. Call again after `head` and `body`.
    [[nodiscard]] Step parse(std::string& sink);
    /// The peer closed the connection: completes a close-delimited body or reports a cut message.
    [[nodiscard]] Step eof();

    /// The status line and fields (after `head`), moved out.
    [[nodiscard]] HttpResponseHead takeHead();
    /// True once any byte of the response arrived.
    [[nodiscard]] bool receivedAny() const noexcept;
    [[nodiscard]] bool done() const noexcept;
    /// The server allows another request on this connection (after `done`).
    [[nodiscard]] bool keepAlive() const;
    /// Bytes past the end of the message are buffered (the connection cannot be reused).
    [[nodiscard]] bool hasLeftover() const noexcept;
    /// Body bytes so far, and the announced length if any (for messages).
    [[nodiscard]] std::uint64_t bodyBytes() const noexcept;
    [[nodiscard]] std::optional<std::uint64_t> contentLength() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace reagent::http::detail
