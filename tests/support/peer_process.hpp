#pragma once
/// \file
/// \brief `PeerProcess`: a loopback test server (tests/peers/*.py) run as a child process.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::test {

/// \brief A peer script started with Debian's python3 in its own process group; it prints its port on
/// the first line of stdout.
///
/// The destructor closes the peer's stdin (the peer exits on that by itself) and kills its process group,
/// so nothing outlives the test. Throws `std::runtime_error` when the peer does not start.
class PeerProcess {
  public:
    /// \brief Starts `python3 <script> <args...>` and waits (up to 10 s) for its port.
    PeerProcess(std::string script, std::vector<std::string> args);
    PeerProcess(PeerProcess&&) noexcept;
    PeerProcess& operator=(PeerProcess&&) noexcept;
    ~PeerProcess();

    /// \brief The port the peer listens on, on 127.0.0.1.
    [[nodiscard]] std::uint16_t port() const noexcept;
    /// \brief `scheme://127.0.0.1:<port><path>`.
    [[nodiscard]] std::string url(const std::string& path, const std::string& scheme = "http") const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// \brief tests/peers/http_peer.py with `args` (`--tls cert key`, `--proxy`).
[[nodiscard]] PeerProcess startHttpPeer(std::vector<std::string> args = {});

/// \brief A self-signed certificate for `localhost` and `127.0.0.1`, made with the openssl CLI in a fresh
/// temporary directory that the destructor removes.
class SelfSignedCert {
  public:
    SelfSignedCert();
    SelfSignedCert(const SelfSignedCert&) = delete;
    SelfSignedCert& operator=(const SelfSignedCert&) = delete;
    ~SelfSignedCert();

    [[nodiscard]] std::string certFile() const { return (dir_ / "cert.pem").string(); }
    [[nodiscard]] std::string keyFile() const { return (dir_ / "key.pem").string(); }

  private:
    std::filesystem::path dir_;
};

/// \brief A port on 127.0.0.1 that nothing listens on (bound, then released), for a test to bind later.
/// Another process may take it meanwhile: a test that needs a port to stay unreachable uses `ClosedPort`.
[[nodiscard]] std::uint16_t unusedPort();

/// \brief A port on 127.0.0.1 that refuses connections for as long as this object lives: it is bound and
/// never listened on, so no other test's server can take it, and no outgoing connection is given it as
/// its local port (which on loopback would connect to itself).
class ClosedPort {
  public:
    ClosedPort();
    ClosedPort(const ClosedPort&) = delete;
    ClosedPort& operator=(const ClosedPort&) = delete;
    ~ClosedPort();

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// `http://127.0.0.1:PORT` followed by `path`.
    [[nodiscard]] std::string url(std::string_view path = {}) const;

  private:
    int fd_ = -1;
    std::uint16_t port_ = 0;
};

}  // namespace reagent::test
