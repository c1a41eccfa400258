#include "reagent/mcp/remote_transports.hpp"

namespace reagent::mcp {

namespace {

std::unique_ptr<Transport> makeRemoteTransport(const ServerConfig& config) {
    switch (config.transport) {
        case TransportKind::websocket:
            return makeWebSocketTransport(config);
        case TransportKind::streamable_http:
            return makeStreamableHttpTransport(config);
        case TransportKind::sse:
            return makeSseTransport(config);
        case TransportKind::stdio:
            return nullptr;
    }
    return nullptr;
}

}  // namespace

bool enableRemoteTransports() noexcept {
    setRemoteTransportMaker(&makeRemoteTransport);
    return true;
}

}  // namespace reagent::mcp
