#pragma once
// `OAuthFlow`: obtains and renews the access token of one streamable HTTP transport, performing the
// requests that oauth_protocol.hpp describes. The transport asks it for the `Authorization` value of
// each request and hands it every 401 and 403 it gets; the flow answers whether to send again.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oauth_protocol.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server_config.hpp"

namespace reagent::mcp::detail {

class OAuthFlow {
  public:
    /// `config.oauth` must be set; `where` names the server in messages.
    OAuthFlow(const ServerConfig& config, Executor executor, std::string where);

    /// The `Authorization` value for the next request (`Bearer ...`), or empty before any token.
    [[nodiscard]] std::string header() const;

    /// `header()`, after renewing a token about to expire when a refresh token allows it.
    [[nodiscard]] Task<std::string> freshHeader();

    /// Handles a refusal: `status` 401 or 403, the `WWW-Authenticate` value, and the header the refused
    /// request carried. Success means: send the request again with `header()`. One flow runs at a time;
    /// concurrent refusals wait for it and then send again.
    ///
    /// Errors: `unauthorized` (with the reason), `cancelled`, `timeout` (the authorization step).
    [[nodiscard]] Task<expected<void, McpError>> handleRefusal(int status, std::string wwwAuthenticate,
                                                               std::string sentHeader);

    /// `text` (quoted from a server: an error body, a message) with every secret of this flow masked as
    /// `***`: the live access and refresh tokens, the client secret, the private key.
    [[nodiscard]] std::string redact(std::string text) const;

  private:
    struct Discovery {
        std::optional<ResourceMetadata> resource;
        AuthServerMetadata server;
        /// The `resource` parameter: the metadata's resource, else the server's canonical URL.
        std::string resourceUri;
    };

    struct Document {
        std::string url;
        std::string body;
    };

    /// The first of `urls` that answers 2xx (the others answer 404 and the like), or none.
    Task<expected<std::optional<Document>, McpError>> firstDocument(std::vector<std::string> urls,
                                                                    std::string what);
    Task<expected<void, McpError>> refuse(int status, BearerChallenge challenge, std::string sentHeader);
    Task<expected<Discovery, McpError>> discover(BearerChallenge challenge);
    Task<expected<OAuthClient, McpError>> obtainClient(Discovery discovery);
    Task<expected<void, McpError>> authorize(BearerChallenge challenge, std::string stepUpScope);
    Task<bool> refresh();
    Task<expected<OAuthTokens, McpError>> requestToken(Discovery discovery, OAuthClient client,
                                                       FormParams params, std::string requestedScope);
    Task<expected<http::HttpResponse, McpError>> fetch(http::HttpRequest request, std::string what);

    [[nodiscard]] McpError unauthorized(std::string why) const;

    [[nodiscard]] const OAuthSettings& settings() const { return *config_.oauth; }

    ServerConfig config_;
    std::string where_;
    http::HttpClient http_;
    std::optional<Discovery> discovery_;
    /// One flow at a time: the others wait for `gate_`, which the running one sets when it ends.
    bool running_ = false;
    Event gate_;
};

}  // namespace reagent::mcp::detail
