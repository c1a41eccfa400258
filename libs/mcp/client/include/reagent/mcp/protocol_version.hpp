#pragma once
/// \file
/// \brief The MCP protocol versions reagent speaks, and the client's side of version negotiation.

#include <array>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp {

/// \brief The version a client offers in `initialize`: the newest of the handshake era.
inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";

/// \brief The revision without a handshake (2026-07-28): every request carries its version and the
/// client's capabilities in `params._meta`, and `server/discover` tells what a server speaks. reagent's
/// client speaks it to a server that answers `server/discover` (`ProtocolEra`).
inline constexpr std::string_view kModernProtocolVersion = "2026-07-28";

/// \brief Every version reagent speaks, newest first.
inline constexpr std::array<std::string_view, 3> kSupportedProtocolVersions{"2025-11-25", "2025-06-18",
                                                                            "2025-03-26"};

/// \brief The version of the HTTP+SSE era, which the client still accepts from a server (the deployments
/// the `sse` transport exists for). reagent's server does not offer it.
inline constexpr std::string_view kLegacyProtocolVersion = "2024-11-05";

/// \brief True for a version of the handshake era (`kSupportedProtocolVersions`, or
/// `kLegacyProtocolVersion`): one that `initialize` negotiates, as opposed to 2026-07-28's per-request
/// envelope.
[[nodiscard]] bool isHandshakeVersion(std::string_view version) noexcept;

/// \brief The server's answer to the offered version: accepted when reagent speaks it, or when it is
/// `kLegacyProtocolVersion` (the client reads what such a server sends; nothing it sends depends on
/// a newer version).
///
/// \par Errors
/// `unsupported_version`, naming the server's choice and the versions the client accepts (the client
/// must then disconnect, as the specification says).
[[nodiscard]] expected<std::string_view, McpError> acceptServerVersion(std::string_view chosen);

}  // namespace reagent::mcp
