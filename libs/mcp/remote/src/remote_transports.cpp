#include "reagent/mcp/remote_transports.hpp"

#include <utility>

namespace reagent::mcp {

std::unique_ptr<Transport> makeAnyTransport(const ServerConfig& config) {
    switch (config.transport) {
        case TransportKind::websocket:
            return makeWebSocketTransport(config);
        case TransportKind::streamable_http:
            return makeStreamableHttpTransport(config);
        case TransportKind::sse:
            return makeSseTransport(config);
        case TransportKind::stdio:
            return makeStdioTransport(config);
    }
    return nullptr;
}

Task<expected<std::shared_ptr<Client>, McpError>> connectAny(ServerConfig config, ClientOptions options) {
    ServerConfig copy = config;
    TransportFactory factory = [copy = std::move(copy)] { return makeAnyTransport(copy); };
    auto connecting = Client::connect(std::move(config), std::move(options), std::move(factory));
    co_return co_await std::move(connecting);
}

Task<expected<std::shared_ptr<Client>, McpError>> connectAny(ServerConfig config) {
    ClientOptions options;
    auto connecting = connectAny(std::move(config), std::move(options));
    co_return co_await std::move(connecting);
}

}  // namespace reagent::mcp
