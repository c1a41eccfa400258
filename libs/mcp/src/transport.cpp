#include "reagent/mcp/transport.hpp"

#include <atomic>

namespace reagent::mcp {

namespace {

// Set by enableRemoteTransports() (reagent::mcp_remote); read when a client connects.
std::atomic<TransportMaker> remoteMaker{nullptr};

}  // namespace

void setRemoteTransportMaker(TransportMaker maker) noexcept {
    remoteMaker.store(maker);
}

std::unique_ptr<Transport> makeTransport(const ServerConfig& config) {
    if (config.transport == TransportKind::stdio) {
        return makeStdioTransport(config);
    }
    const TransportMaker maker = remoteMaker.load();
    return maker != nullptr ? maker(config) : nullptr;
}

}  // namespace reagent::mcp
