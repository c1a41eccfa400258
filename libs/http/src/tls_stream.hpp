#pragma once
// TLS behind a non-template interface: the only translation unit that includes OpenSSL and Asio's SSL
// stream is tls_stream.cpp.

#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "byte_stream.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/http/http_error.hpp"

namespace reagent::http::detail {

/// Trusted certificates and verification settings, shared by a client's TLS connections.
class TlsContext;

/// The system CA store plus `caFile` (if not empty); `verifyPeer` false accepts any certificate.
[[nodiscard]] expected<std::shared_ptr<TlsContext>, HttpError> makeTlsContext(std::string caFile,
                                                                              bool verifyPeer);

/// Runs the client handshake on `tcp` (whose deadline is already set) with SNI and verification of
/// `host`. `hostPort` and `limit` are quoted in messages.
[[nodiscard]] Task<expected<std::unique_ptr<ByteStream>, HttpError>> startTls(
    std::shared_ptr<TlsContext> context, boost::beast::tcp_stream tcp, std::string host, std::string hostPort,
    std::chrono::milliseconds limit);

}  // namespace reagent::http::detail
