#pragma once
// TLS behind a non-template interface: the only translation unit that includes OpenSSL and Asio's SSL
// stream is tls_stream.cpp.

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "byte_stream.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/http/http_error.hpp"
#include "watchdog.hpp"

namespace reagent::http::detail {

/// Trusted certificates and verification settings, shared by a client's TLS connections.
class TlsContext;

/// The system CA store plus `caFile` (if not empty); `verifyPeer` false accepts any certificate.
[[nodiscard]] expected<std::shared_ptr<TlsContext>, HttpError> makeTlsContext(std::string caFile,
                                                                              bool verifyPeer);

/// Runs the client handshake on `tcp` with SNI and verification of `host`; `watchdog` closes the
/// connection if the exchange's deadline passes meanwhile. `hostPort` and `limit` are quoted in messages.
[[nodiscard]] Task<expected<std::unique_ptr<ByteStream>, HttpError>> startTls(
    std::shared_ptr<TlsContext> context, boost::asio::ip::tcp::socket tcp, std::string host,
    std::string hostPort, std::chrono::milliseconds limit, Watchdog watchdog);

}  // namespace reagent::http::detail
