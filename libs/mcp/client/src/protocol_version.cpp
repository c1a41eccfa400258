#include "reagent/mcp/protocol_version.hpp"

#include <algorithm>
#include <string>

namespace reagent::mcp {

bool isHandshakeVersion(std::string_view version) noexcept {
    return version == kLegacyProtocolVersion ||
           std::find(kSupportedProtocolVersions.begin(), kSupportedProtocolVersions.end(), version) !=
               kSupportedProtocolVersions.end();
}

expected<std::string_view, McpError> acceptServerVersion(std::string_view chosen) {
    std::string known;
    for (const std::string_view version : kSupportedProtocolVersions) {
        if (version == chosen) {
            return version;
        }
        known += known.empty() ? "" : ", ";
        known += version;
    }
    if (chosen == kLegacyProtocolVersion) {
        return kLegacyProtocolVersion;
    }
    known += ", ";
    known += kLegacyProtocolVersion;
    return fail(
        McpError{McpErrc::unsupported_version,
                 "the server chose protocol version '" + std::string(chosen) + "'; reagent speaks " + known});
}

}  // namespace reagent::mcp
