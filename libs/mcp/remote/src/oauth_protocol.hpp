#pragma once
// The OAuth 2.1 rules of the MCP authorization specification as plain functions, with no I/O: which
// metadata URLs to try, what the documents mean, which scope and client authentication to use, the
// requests to send and how to read their answers. `OAuthFlow` (oauth_flow.hpp) performs the requests.
// Failures are plain messages; the flow turns them into `unauthorized` errors naming the server.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/oauth.hpp"

namespace reagent::mcp::detail {

/// The parameters of a `Bearer` challenge in `WWW-Authenticate` (RFC 6750 §3, RFC 9728 §5.1).
struct BearerChallenge {
    std::string resourceMetadata;
    std::string scope;
    std::string error;
    std::string errorDescription;
};

/// The `Bearer` challenge of a `WWW-Authenticate` value, which may hold several challenges; nullopt
/// when there is none.
[[nodiscard]] std::optional<BearerChallenge> parseBearerChallenge(std::string_view header);

/// `scheme://host[:port]` (scheme and host in lower case) and the path (`/` when empty) of a URL.
struct UrlParts {
    std::string origin;
    std::string path;
};
[[nodiscard]] expected<UrlParts, std::string> splitUrl(std::string_view url);

/// Where the protected-resource metadata of `serverUrl` may be (RFC 9728 §3.1): the path-based
/// well-known URL first, then the root one.
[[nodiscard]] std::vector<std::string> resourceMetadataUrls(std::string_view serverUrl);

/// Where the metadata of the authorization server `issuer` may be, in the specification's order
/// (RFC 8414 with the path inserted, OpenID Connect with it inserted, OpenID Connect appended).
[[nodiscard]] std::vector<std::string> authServerMetadataUrls(std::string_view issuer);

struct ResourceMetadata {
    std::string resource;
    std::vector<std::string> authorizationServers;
    std::optional<std::vector<std::string>> scopesSupported;
};
[[nodiscard]] expected<ResourceMetadata, std::string> parseResourceMetadata(std::string_view body);

struct AuthServerMetadata {
    std::string issuer;
    std::string authorizationEndpoint;
    std::string tokenEndpoint;
    /// Empty when the server offers no dynamic registration.
    std::string registrationEndpoint;
    std::optional<std::vector<std::string>> scopesSupported;
    std::optional<std::vector<std::string>> tokenEndpointAuthMethods;
    std::optional<std::vector<std::string>> codeChallengeMethods;
    std::optional<std::vector<std::string>> grantTypes;
    bool clientIdMetadataDocumentSupported = false;
    /// `authorization_response_iss_parameter_supported` (RFC 9207): its authorization responses name it.
    bool issParameterSupported = false;
};
[[nodiscard]] expected<AuthServerMetadata, std::string> parseAuthServerMetadata(std::string_view body);

/// MCP 2025-03-26's default endpoints when a server publishes no metadata: `/authorize`, `/token` and
/// `/register` at `origin`.
[[nodiscard]] AuthServerMetadata fallbackAuthServerMetadata(const std::string& origin);

/// The canonical URI of the MCP server (RFC 8707): the URL without its fragment, scheme and host in
/// lower case.
[[nodiscard]] std::string canonicalResource(std::string_view serverUrl);

/// True when `resource` (from protected-resource metadata) is `serverUrl` or a parent of it: same
/// origin, and its path a prefix of the server's at a segment boundary.
[[nodiscard]] bool resourceCovers(std::string_view resource, std::string_view serverUrl);

/// The scope to request: the settings' scopes, else the challenge's, else every scope the resource
/// metadata lists, else none (empty: the parameter is omitted).
[[nodiscard]] std::string selectScope(const OAuthSettings& settings, const BearerChallenge& challenge,
                                      const ResourceMetadata* resource);

/// The union of two space-separated scope lists, in order of first appearance.
[[nodiscard]] std::string mergeScopes(std::string_view a, std::string_view b);

/// True when every scope of `wanted` is in `granted`.
[[nodiscard]] bool scopesCover(std::string_view granted, std::string_view wanted);

/// The token-endpoint authentication to use: the client's registered method, else for a client with a
/// secret `client_secret_basic` (the default of RFC 8414) or `client_secret_post` as the server
/// supports, else `none`.
[[nodiscard]] std::string chooseAuthMethod(const AuthServerMetadata& server, const OAuthClient& client);

/// True when tokens come from the `client_credentials` grant: asked for, or (automatic) the server
/// offers it and not `authorization_code`, and the settings hold credentials.
[[nodiscard]] bool usesClientCredentials(const OAuthSettings& settings, const AuthServerMetadata& server);

/// A client assertion (RFC 7523 §2.2): a JWT with `iss` and `sub` the client id, `aud` the authorization
/// server, valid 5 minutes, signed with `pem` (ES256 or RS256). An error names what is wrong with the key.
[[nodiscard]] expected<std::string, std::string> signClientAssertion(
    std::string_view pem, std::string_view algorithm, std::string_view clientId, std::string_view audience,
    std::chrono::system_clock::time_point now);

/// PKCE (RFC 7636) with S256: a random verifier and its challenge.
struct Pkce {
    std::string verifier;
    std::string challenge;
};
[[nodiscard]] Pkce makePkce();

/// `bytes` random bytes as base64url without padding (for `state`).
[[nodiscard]] std::string randomToken(std::size_t bytes);

/// base64url of SHA-256 of `text`, without padding.
[[nodiscard]] std::string sha256Base64Url(std::string_view text);

/// `application/x-www-form-urlencoded` value encoding (spaces as `%20`).
[[nodiscard]] std::string formEncode(std::string_view text);

struct AuthorizationParams {
    std::string clientId;
    std::string redirectUri;
    std::string scope;
    std::string state;
    std::string codeChallenge;
    std::string resource;
};
/// The authorization endpoint's URL with the query of an authorization-code request with PKCE.
[[nodiscard]] std::string authorizationUrl(const AuthServerMetadata& server,
                                           const AuthorizationParams& params);

/// Who must have answered an authorization request (RFC 9207): the issuer of the server it went to, and
/// whether that server names itself in its responses (`iss`).
struct ExpectedIssuer {
    std::string issuer;
    bool named = false;
};

/// The `code` of the URL the browser was sent back to. An error, checked in this order: an `iss` other
/// than `issuer.issuer` (compared byte for byte), or none when the server names itself (a mix-up: the
/// response's `error` is then not shown); `error` (`access_denied`, ...); a `state` that differs; no code.
[[nodiscard]] expected<std::string, std::string> codeFromRedirect(std::string_view redirected,
                                                                  std::string_view state,
                                                                  const ExpectedIssuer& issuer);

/// A token request: the form body and, for `client_secret_basic`, the `Authorization` value. For
/// `private_key_jwt`, `assertion` is the signed client assertion.
struct TokenRequest {
    std::string body;
    std::string authorization;
};
using FormParams = std::vector<std::pair<std::string, std::string>>;
[[nodiscard]] TokenRequest tokenRequest(const OAuthClient& client, std::string_view method, FormParams params,
                                        std::string_view assertion = {});

/// The token endpoint's JSON answer; `requestedScope` stands for the scope when the server names none.
[[nodiscard]] expected<OAuthTokens, std::string> parseTokenResponse(
    std::string_view body, std::string_view requestedScope, std::chrono::system_clock::time_point now);

/// The `error` and `error_description` of an OAuth error body, for messages (untrusted, shortened).
[[nodiscard]] std::string describeOAuthError(std::string_view body);

/// The JSON body of a dynamic client registration (RFC 7591): a public client using PKCE unless the
/// server supports no `none` authentication; `application_type` (SEP-837) `native` for a redirect to the
/// loopback or to a custom scheme, `web` for one to an https:// site.
[[nodiscard]] std::string registrationBody(const OAuthSettings& settings, const AuthServerMetadata& server);

/// The client the registration endpoint created.
[[nodiscard]] expected<OAuthClient, std::string> parseRegistration(std::string_view body, std::string issuer);

}  // namespace reagent::mcp::detail
