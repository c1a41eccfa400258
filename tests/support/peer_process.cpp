#include "peer_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/process/v2/execute.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <istream>
#include <optional>
#include <stdexcept>

#ifndef REAGENT_PYTHON3
#define REAGENT_PYTHON3 "/usr/bin/python3"
#endif
#ifndef REAGENT_OPENSSL
#define REAGENT_OPENSSL "/usr/bin/openssl"
#endif
#ifndef REAGENT_PEERS_DIR
#error "REAGENT_PEERS_DIR must name tests/peers"
#endif

namespace reagent::test {

namespace asio = boost::asio;
namespace bp = boost::process::v2;

namespace {

// Puts the child in its own process group, so that killing the group also reaches what it started.
struct NewProcessGroup {
    template <class Launcher>
    bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*) {
        ::setpgid(0, 0);
        return {};
    }
};

}  // namespace

struct PeerProcess::Impl {
    asio::io_context io;
    asio::writable_pipe input{io};
    asio::readable_pipe output{io};
    std::optional<bp::process> process;
    std::uint16_t port = 0;

    ~Impl() {
        boost::system::error_code ignored;
        input.close(ignored);
        if (process) {
            ::kill(-static_cast<pid_t>(process->id()), SIGKILL);
            process->wait(ignored);
        }
    }
};

PeerProcess::PeerProcess(std::string script, std::vector<std::string> args)
    : impl_(std::make_unique<Impl>()) {
    args.insert(args.begin(), std::move(script));
    impl_->process.emplace(impl_->io, REAGENT_PYTHON3, args,
                           bp::process_stdio{impl_->input, impl_->output, {}}, NewProcessGroup{});
    // The first line is the port; give the interpreter time to start on a busy machine.
    asio::streambuf line;
    boost::system::error_code readError;
    asio::async_read_until(impl_->output, line, '\n',
                           [&](boost::system::error_code ec, std::size_t) { readError = ec; });
    impl_->io.run_for(std::chrono::seconds(10));
    std::istream text(&line);
    int port = 0;
    if (readError || !(text >> port) || port <= 0 || port > 65535) {
        throw std::runtime_error("the test peer " + args.front() + " did not print its port" +
                                 (readError ? ": " + readError.message() : std::string()));
    }
    impl_->port = static_cast<std::uint16_t>(port);
}

PeerProcess::PeerProcess(PeerProcess&&) noexcept = default;
PeerProcess& PeerProcess::operator=(PeerProcess&&) noexcept = default;
PeerProcess::~PeerProcess() = default;

std::uint16_t PeerProcess::port() const noexcept {
    return impl_->port;
}

std::string PeerProcess::url(const std::string& path, const std::string& scheme) const {
    return scheme + "://127.0.0.1:" + std::to_string(impl_->port) + path;
}

PeerProcess startHttpPeer(std::vector<std::string> args) {
    return PeerProcess(std::string(REAGENT_PEERS_DIR) + "/http_peer.py", std::move(args));
}

SelfSignedCert::SelfSignedCert() {
    char pattern[] = "/tmp/reagent-cert-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot create a temporary directory");
    dir_ = pattern;
    asio::io_context io;
    const std::vector<std::string> args{"req",
                                        "-x509",
                                        "-newkey",
                                        "ec",
                                        "-pkeyopt",
                                        "ec_paramgen_curve:prime256v1",
                                        "-nodes",
                                        "-days",
                                        "2",
                                        "-subj",
                                        "/CN=localhost",
                                        "-addext",
                                        "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                        "-keyout",
                                        keyFile(),
                                        "-out",
                                        certFile()};
    boost::system::error_code ec;
    const int status =
        bp::execute(bp::process(io, REAGENT_OPENSSL, args, bp::process_stdio{nullptr, nullptr, nullptr}), ec);
    if (ec || status != 0) throw std::runtime_error("openssl could not make a test certificate");
}

SelfSignedCert::~SelfSignedCert() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

std::uint16_t unusedPort() {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    return acceptor.local_endpoint().port();
}

ClosedPort::ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) {
        throw std::runtime_error(std::string("ClosedPort: socket: ") + std::strerror(errno));
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        const int error = errno;
        ::close(fd_);
        throw std::runtime_error(std::string("ClosedPort: bind: ") + std::strerror(error));
    }
    port_ = ntohs(address.sin_port);
}

ClosedPort::~ClosedPort() {
    ::close(fd_);
}

std::string ClosedPort::url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

}  // namespace reagent::test
