#include "node_peer.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <chrono>
#include <istream>
#include <optional>
#include <stdexcept>

#ifndef REAGENT_NODE
#error "REAGENT_NODE must name the node binary"
#endif
#ifndef REAGENT_MCP_PEERS_DIR
#error "REAGENT_MCP_PEERS_DIR must name tests/peers/mcp"
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

constexpr const char* kPortLine = "reagent-peer-port ";
// ws_bridge.mjs's first line.
constexpr const char* kListeningLine = "listening ";

}  // namespace

struct NodePeer::Impl {
    asio::io_context io;
    asio::readable_pipe output{io};
    // Held open: some peers (ws_bridge.mjs) exit when their stdin ends.
    asio::writable_pipe input{io};
    std::optional<bp::process> process;
    std::uint16_t port = 0;

    void stop() {
        if (process) {
            boost::system::error_code ignored;
            ::kill(-static_cast<pid_t>(process->id()), SIGKILL);
            process->wait(ignored);
            process.reset();
        }
    }
    ~Impl() { stop(); }
};

NodePeer::NodePeer(std::vector<std::string> args)
    : NodePeer(std::string(REAGENT_MCP_PEERS_DIR) + "/ref_server.mjs", std::move(args)) {}

NodePeer::NodePeer(std::string script, std::vector<std::string> args) : impl_(std::make_unique<Impl>()) {
    args.insert(args.begin(), std::move(script));
    // stderr is the test's (the servers log every request there); stdout carries the port line only;
    // stdin stays open until the peer is stopped.
    impl_->process.emplace(impl_->io, REAGENT_NODE, args, bp::process_stdio{impl_->input, impl_->output, {}},
                           NewProcessGroup{});
    asio::streambuf line;
    boost::system::error_code readError;
    asio::async_read_until(impl_->output, line, '\n',
                           [&](boost::system::error_code ec, std::size_t) { readError = ec; });
    impl_->io.run_for(std::chrono::seconds(15));
    std::istream text(&line);
    std::string first;
    std::getline(text, first);
    int port = 0;
    if (first.rfind(kPortLine, 0) == 0) {
        port = std::stoi(first.substr(std::char_traits<char>::length(kPortLine)));
    } else if (first.rfind(kListeningLine, 0) == 0) {
        port = std::stoi(first.substr(std::char_traits<char>::length(kListeningLine)));
    }
    if (readError || port <= 0 || port > 65535) {
        throw std::runtime_error(args.at(0) + " did not print its port (got '" + first +
                                 "'; run scripts/setup.sh --tests for tests/peers/mcp/node_modules)");
    }
    impl_->port = static_cast<std::uint16_t>(port);
}

NodePeer::NodePeer(NodePeer&&) noexcept = default;
NodePeer& NodePeer::operator=(NodePeer&&) noexcept = default;
NodePeer::~NodePeer() = default;

std::uint16_t NodePeer::port() const noexcept {
    return impl_->port;
}

std::string NodePeer::url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(impl_->port) + path;
}

void NodePeer::kill() {
    impl_->stop();
}

NodePeer startEverything(const std::string& mode) {
    return NodePeer({"everything", mode});
}

NodePeer startWebSocketBridge() {
    return NodePeer(std::string(REAGENT_MCP_PEERS_DIR) + "/ws_bridge.mjs", {"0"});
}

NodePeer startSdkPeer(bool json) {
    return json ? NodePeer({"http", "json"}) : NodePeer({"http"});
}

}  // namespace reagent::test
