#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

std::unique_ptr<Transport> makeTransport(const ServerConfig& config) {
    switch (config.transport) {
        case TransportKind::stdio:
            return makeStdioTransport(config);
        case TransportKind::websocket:
            return makeWebSocketTransport(config);
        case TransportKind::streamable_http:
        case TransportKind::sse:
            return nullptr;  // TEMPORARY: each transport's own source adds its case
    }
    return nullptr;
}

}  // namespace reagent::mcp
