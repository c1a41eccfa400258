#pragma once
/// \file
/// \brief OAuth 2.1 for MCP servers over HTTP: the settings of a server's authorization, the hook that
/// lets a person authorize, and where tokens are kept.
///
/// The flow itself (the MCP authorization specification: protected-resource metadata, authorization-server
/// metadata, client registration, PKCE, the `resource` parameter, scope selection and step-up) runs in
/// the streamable HTTP transport of `reagent::mcp_remote` when a server answers 401 or 403
/// `insufficient_scope`; see docs/mcp.md, "Authorization".

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp {

/// \brief What the token endpoint granted. Secrets: never printed, never put in an error.
struct OAuthTokens {
    std::string accessToken;
    std::string refreshToken;
    /// The scopes granted, space-separated (as requested when the server did not say).
    std::string scope;
    /// When the access token expires; unset when the server gave no `expires_in`.
    std::optional<std::chrono::system_clock::time_point> expiresAt;
};

/// \brief This client as an authorization server knows it: pre-registered, registered dynamically
/// (RFC 7591), or named by a metadata document URL.
struct OAuthClient {
    std::string clientId;
    /// Empty for a public client (PKCE only).
    std::string clientSecret;
    /// `client_secret_basic`, `client_secret_post` or `none`; empty: chosen from the server's metadata.
    std::string tokenEndpointAuthMethod;
    /// The authorization server it belongs to (its issuer); a registration is valid there only.
    std::string issuer;
};

/// \brief Keeps one server's tokens and client registration across connections (and, for a persistent
/// store, across runs). Called from the client's executor; implementations need no locking unless they
/// are shared between clients on several threads.
class OAuthStore {
  public:
    virtual ~OAuthStore() = default;
    [[nodiscard]] virtual std::optional<OAuthTokens> tokens() const = 0;
    virtual void saveTokens(const OAuthTokens& tokens) = 0;
    virtual void clearTokens() = 0;
    [[nodiscard]] virtual std::optional<OAuthClient> client() const = 0;
    virtual void saveClient(const OAuthClient& client) = 0;
};

/// \brief A store in memory: tokens live as long as the store (shared by copies of the settings, so a
/// reconnection reuses them). Thread-safe.
[[nodiscard]] std::shared_ptr<OAuthStore> makeMemoryOAuthStore();

/// \brief A store in a JSON file, created with mode 0600 (its directory too, 0700), rewritten whole
/// (through a temporary file and a rename) at each change. A file that cannot be read or parsed is
/// treated as empty; a failed write leaves the tokens in memory for this run.
[[nodiscard]] std::shared_ptr<OAuthStore> makeFileOAuthStore(std::string path);

/// \brief What a person must authorize: the authorization server's page to open in a browser.
struct AuthorizationRequest {
    /// The MCP server's name (`ServerConfig::name`).
    std::string server;
    /// The authorization URL, with the client id, the PKCE challenge, `state`, the scope and the
    /// `resource`.
    std::string url;
    /// Where the authorization server sends the browser back (`OAuthSettings::redirectUri`).
    std::string redirectUri;
};

/// \brief The authorization step: lets a person approve `request.url` (opens a browser, prints the
/// link, ...) and returns the URL the browser was sent back to, with its `code` and `state` (or `error`)
/// query parameters. An error (`unauthorized`, `cancelled`, `timeout`) ends the flow with it.
using Authorizer = std::function<Task<expected<std::string, McpError>>(AuthorizationRequest request)>;

/// \brief How the client obtains its tokens.
enum class OAuthGrant {
    /// `authorization_code`, unless the authorization server offers only `client_credentials` and the
    /// settings hold the client's credentials.
    automatic,
    /// A person approves in a browser (`OAuthSettings::authorize`), with PKCE.
    authorization_code,
    /// The client acts on its own behalf with its pre-registered credentials (a secret or a private key);
    /// no person involved (machine-to-machine, SEP-1046).
    client_credentials,
};

/// \brief How a client obtains tokens for one MCP server (`ServerConfig::oauth`).
///
/// Without a pre-registered `clientId`, the client uses `clientMetadataUrl` as its id when the
/// authorization server supports client metadata documents, else registers itself dynamically.
struct OAuthSettings {
    /// A client id registered beforehand with the authorization server; empty: see above.
    std::string clientId;
    /// Its secret, for a confidential client. A secret: never printed.
    std::string clientSecret;
    /// A PEM private key to authenticate with signed assertions (`private_key_jwt`, RFC 7523) instead
    /// of a secret; needs `clientId`. A secret: never printed.
    std::string privateKeyPem;
    /// The assertion's signature: `ES256` (a P-256 key) or `RS256` (an RSA key).
    std::string signingAlgorithm = "ES256";
    /// How tokens are obtained.
    OAuthGrant grant = OAuthGrant::automatic;
    /// An `https` URL of this client's metadata document, used as the client id where supported.
    std::string clientMetadataUrl;
    /// `client_name` in a dynamic registration.
    std::string clientName = "reagent";
    /// Where the authorization server sends the browser back; registered with the server.
    std::string redirectUri = "http://127.0.0.1:33418/callback";
    /// Scopes to request; empty: the scope of the server's challenge, else every scope its
    /// protected-resource metadata lists, else none.
    std::vector<std::string> scopes;
    /// The authorization step; without it a server that needs a person's approval is `unauthorized`.
    Authorizer authorize;
    /// Tokens and registrations; shared by copies of these settings. Default: in memory.
    std::shared_ptr<OAuthStore> store = makeMemoryOAuthStore();
    /// Longest time the authorization step may take (a person in a browser). It extends the connection
    /// handshake's limit (`ServerConfig::connectTimeout`). Default 5 min.
    std::chrono::milliseconds authorizationTimeout{300'000};
    /// Authorizations (first ones and scope step-ups) one request may cause before it fails
    /// `unauthorized`: a server that keeps refusing ends in an error, not a loop. Default 2.
    int maxAuthorizationsPerRequest = 2;
};

}  // namespace reagent::mcp
