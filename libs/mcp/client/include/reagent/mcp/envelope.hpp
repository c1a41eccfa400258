#pragma once
/// \file
/// \brief The 2026-07-28 envelope: the `_meta` keys every request and result carries, and the error codes
/// the revision added. Shared by reagent's client and server.

#include <string_view>

namespace reagent::mcp {

/// \brief `params._meta` of a request: its protocol version (its presence marks a 2026-07-28 request).
inline constexpr std::string_view kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
/// \brief `params._meta` of a request: what the client can do for this request (an object).
inline constexpr std::string_view kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
/// \brief `params._meta` of a request: the client's name and version (optional).
inline constexpr std::string_view kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
/// \brief `params._meta` of a request: the lowest level of log lines the client wants for it (optional;
/// without it the server sends none).
inline constexpr std::string_view kMetaLogLevel = "io.modelcontextprotocol/logLevel";
/// \brief `result._meta`: the server's name and version.
inline constexpr std::string_view kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
/// \brief `params._meta` of a notification on a `subscriptions/listen` stream: the listen request's id.
inline constexpr std::string_view kMetaSubscriptionId = "io.modelcontextprotocol/subscriptionId";

/// \brief JSON-RPC error: an HTTP header is missing or contradicts the body (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
inline constexpr int kHeaderMismatch = -32020;
/// \brief JSON-RPC error: serving the request needs a client capability the request did not declare;
/// `data.requiredCapabilities` names it.
inline constexpr int kMissingClientCapability = -32021;
/// \brief JSON-RPC error: the request's protocol version is not served; `data.supported` lists those that
/// are, `data.requested` repeats the one asked for.
inline constexpr int kUnsupportedProtocolVersion = -32022;

}  // namespace reagent::mcp
