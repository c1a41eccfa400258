#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

std::unique_ptr<Transport> makeTransport(const ServerConfig& config) {
    return config.transport == TransportKind::stdio ? makeStdioTransport(config) : nullptr;
}

}  // namespace reagent::mcp
