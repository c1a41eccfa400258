#include "tls_stream.hpp"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "request_target.hpp"

namespace reagent::http::detail {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;

class TlsContext {
  public:
    TlsContext() : context(ssl::context::tls_client) {}
    ssl::context context;
    bool verifyPeer = true;
};

namespace {

class TlsStream final : public ByteStream {
  public:
    TlsStream(asio::ip::tcp::socket tcp, ssl::context& context) : stream_(std::move(tcp), context) {}

    Task<IoResult> readSome(asio::mutable_buffer buffer) override {
        auto [ec, n] = co_await stream_.async_read_some(buffer, asio::as_tuple(asio::use_awaitable));
        // Many servers close without close_notify. Bodies framed by length or chunks still detect a cut;
        // only a close-delimited body cannot tell, as with every HTTP client.
        if (ec == ssl::error::stream_truncated) ec = asio::error::eof;
        co_return IoResult{ec, n};
    }

    Task<IoResult> writeAll(asio::const_buffer head, asio::const_buffer body) override {
        const std::array<asio::const_buffer, 2> buffers{head, body};
        auto [ec, n] = co_await asio::async_write(stream_, buffers, asio::as_tuple(asio::use_awaitable));
        co_return IoResult{ec, n};
    }

    bool idleUsable() override {
        auto& socket = stream_.lowest_layer();
        return socket.is_open() && SSL_pending(stream_.native_handle()) == 0 &&
               socketIdleUsable(socket.native_handle());
    }

    void close() noexcept override {
        boost::system::error_code ignored;
        stream_.lowest_layer().close(ignored);
    }

    ssl::stream<asio::ip::tcp::socket>& stream() noexcept { return stream_; }

  private:
    ssl::stream<asio::ip::tcp::socket> stream_;
};

std::string verifyHint(long result) {
    switch (result) {
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return " (the issuer is not trusted: add its CA certificate with HttpClientConfig::caFile)";
        case X509_V_ERR_HOSTNAME_MISMATCH:
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
            return " (the certificate is for another host)";
        default:
            return "";
    }
}

}  // namespace

expected<std::shared_ptr<TlsContext>, HttpError> makeTlsContext(std::string caFile, bool verifyPeer) {
    try {
        auto tls = std::make_shared<TlsContext>();
        tls->verifyPeer = verifyPeer;
        auto& context = tls->context;
        context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                            ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
        boost::system::error_code ec;
        context.set_default_verify_paths(ec);
        if (ec) {
            return fail(HttpError{HttpErrc::tls_failed, "cannot load the system CA store: " + ec.message() +
                                                            " (is the ca-certificates package installed?)"});
        }
        if (!caFile.empty()) {
            context.load_verify_file(caFile, ec);
            if (ec) {
                return fail(HttpError{HttpErrc::tls_failed,
                                      "cannot load the CA file '" + caFile + "': " + ec.message()});
            }
        }
        context.set_verify_mode(verifyPeer ? ssl::verify_peer : ssl::verify_none);
        // Only HTTP/1.1 is spoken: say so, so that servers preferring HTTP/2 do not pick it.
        static constexpr unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
        SSL_CTX_set_alpn_protos(context.native_handle(), kAlpn, sizeof kAlpn);
        return tls;
    } catch (const std::exception& error) {
        return fail(HttpError{HttpErrc::tls_failed, std::string("cannot set up TLS: ") + error.what()});
    }
}

Task<expected<std::unique_ptr<ByteStream>, HttpError>> startTls(std::shared_ptr<TlsContext> context,
                                                                asio::ip::tcp::socket tcp, std::string host,
                                                                std::string hostPort,
                                                                std::chrono::milliseconds limit,
                                                                Watchdog watchdog) {
    auto tls = std::make_unique<TlsStream>(std::move(tcp), context->context);
    SSL* native = tls->stream().native_handle();
    const bool ipHost = isIpLiteral(host);
    // SNI carries names only (RFC 6066), never addresses.
    if (!ipHost && SSL_set_tlsext_host_name(native, host.c_str()) != 1) {
        co_return fail(HttpError{HttpErrc::tls_failed, "cannot set the TLS server name for " + hostPort});
    }
    if (context->verifyPeer) {
        // OpenSSL checks the name during the handshake and reports a mismatch as a verification error.
        X509_VERIFY_PARAM* param = SSL_get0_param(native);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        const int set = ipHost ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                               : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
        if (set != 1) co_return fail(HttpError{HttpErrc::tls_failed, "cannot verify the host name " + host});
    }
    watchdog.onExpiry([stream = tls.get()] { stream->close(); });
    auto [ec] =
        co_await tls->stream().async_handshake(ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
    if (!ec) co_return std::unique_ptr<ByteStream>(std::move(tls));
    watchdog.onExpiry(nullptr);  // the stream dies with this failure
    if (const long result = SSL_get_verify_result(native); result != X509_V_OK) {
        co_return fail(HttpError{HttpErrc::tls_failed, "TLS certificate verification failed for " + hostPort +
                                                           ": " + X509_verify_cert_error_string(result) +
                                                           verifyHint(result)});
    }
    if (watchdog.expired() != Watchdog::Expiry::none) {
        co_return fail(HttpError{HttpErrc::timeout, "TLS handshake with " + hostPort + " timed out after " +
                                                        std::to_string(limit.count()) + " ms"});
    }
    if (ec == asio::error::operation_aborted) {
        co_return fail(HttpError{HttpErrc::cancelled, "cancelled during the TLS handshake with " + hostPort});
    }
    co_return fail(
        HttpError{HttpErrc::tls_failed, "TLS handshake with " + hostPort + " failed: " + ec.message()});
}

}  // namespace reagent::http::detail
