// The OAuth 2.1 flow of the MCP authorization specification, as the transport meets it: a refusal
// (401, or 403 `insufficient_scope`) leads to discovery (protected-resource metadata, then the
// authorization server's metadata, or MCP 2025-03-26's defaults), a client (pre-registered, a metadata
// document URL, or dynamic registration), the person's approval through `OAuthSettings::authorize`
// with PKCE, and the token request; tokens are renewed with their refresh token when one was given.

#include "oauth_flow.hpp"

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <utility>

#include "http_transport_support.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/timeout.hpp"

namespace reagent::mcp::detail {

namespace {

namespace asio = boost::asio;

/// Renew a token this long before it expires.
constexpr std::chrono::seconds kRenewMargin{30};
/// Metadata and token answers are small documents.
constexpr std::uint64_t kMaxDocumentBytes = 1U << 20U;

[[nodiscard]] http::HttpClientConfig oauthHttpConfig(const ServerConfig& config) {
    http::HttpClientConfig http;
    http.connectTimeout = config.connectTimeout;
    http.requestTimeout = config.connectTimeout;
    http.maxBodyBytes = kMaxDocumentBytes;
    return http;
}

[[nodiscard]] std::string bearer(const std::optional<OAuthTokens>& tokens) {
    return tokens && !tokens->accessToken.empty() ? "Bearer " + tokens->accessToken : std::string();
}

[[nodiscard]] http::HttpRequest getJson(std::string url) {
    http::HttpRequest request;
    request.url = std::move(url);
    request.headers.set("Accept", "application/json");
    return request;
}

}  // namespace

OAuthFlow::OAuthFlow(const ServerConfig& config, Executor executor, std::string where)
    : config_(config), where_(std::move(where)), http_(oauthHttpConfig(config)), gate_(std::move(executor)) {}

std::string OAuthFlow::header() const {
    return bearer(settings().store->tokens());
}

Task<std::string> OAuthFlow::freshHeader() {
    const auto tokens = settings().store->tokens();
    if (tokens && tokens->expiresAt && !tokens->refreshToken.empty() && !running_ &&
        *tokens->expiresAt - kRenewMargin < std::chrono::system_clock::now()) {
        running_ = true;
        auto renewal = refresh();
        (void)co_await std::move(renewal);
        running_ = false;
        gate_.set();
    }
    co_return header();
}

Task<expected<void, McpError>> OAuthFlow::handleRefusal(int status, std::string wwwAuthenticate,
                                                        std::string sentHeader) {
    while (running_) {
        gate_.reset();
        (void)co_await gate_.wait(asio::use_awaitable);
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return fail(McpError{McpErrc::cancelled, where_ + ": cancelled while authorizing"});
        }
    }
    if (header() != sentHeader) {
        co_return expected<void, McpError>{};  // another request renewed the token meanwhile
    }
    BearerChallenge challenge = parseBearerChallenge(wwwAuthenticate).value_or(BearerChallenge{});
    running_ = true;
    auto flow = refuse(status, std::move(challenge), std::move(sentHeader));
    auto outcome = co_await std::move(flow);
    running_ = false;
    gate_.set();
    co_return outcome;
}

Task<expected<void, McpError>> OAuthFlow::refuse(int status, BearerChallenge challenge,
                                                 std::string sentHeader) {
    const auto tokens = settings().store->tokens();
    if (status == 403) {
        if (challenge.error != "insufficient_scope" || challenge.scope.empty()) {
            co_return fail(unauthorized("refused the request (HTTP 403" +
                                        (challenge.error.empty() ? std::string() : ", " + challenge.error) +
                                        ") and named no scope that would allow it"));
        }
        const std::string granted = tokens ? tokens->scope : std::string();
        if (!sentHeader.empty() && scopesCover(granted, challenge.scope)) {
            // Authorizing again for scopes the token already has would loop.
            co_return fail(
                unauthorized("refuses the token although it holds the scopes the server asks for ('" +
                             challenge.scope + "'): authorizing again would not help"));
        }
        std::string wider = mergeScopes(granted, challenge.scope);
        auto stepUp = authorize(std::move(challenge), std::move(wider));
        auto outcome = co_await std::move(stepUp);
        co_return outcome;
    }
    if (tokens && !tokens->refreshToken.empty() && !sentHeader.empty()) {
        auto renewal = refresh();
        const bool renewed = co_await std::move(renewal);
        if (renewed) {
            co_return expected<void, McpError>{};
        }
    }
    if (!sentHeader.empty()) {
        // The token was refused and not renewed: the server may have moved to another authorization
        // server (SEP-2352), so its metadata is read again; a client registered with the old one is not
        // used with the new one (clients are kept per issuer).
        discovery_.reset();
    }
    auto first = authorize(std::move(challenge), std::string());
    auto outcome = co_await std::move(first);
    co_return outcome;
}

Task<expected<OAuthFlow::Discovery, McpError>> OAuthFlow::discover(BearerChallenge challenge) {
    Discovery found;
    std::vector<std::string> candidates = challenge.resourceMetadata.empty()
                                              ? resourceMetadataUrls(config_.url)
                                              : std::vector<std::string>{challenge.resourceMetadata};
    auto prmTask = firstDocument(std::move(candidates), "its protected-resource metadata");
    auto prm = co_await std::move(prmTask);
    if (!prm) {
        co_return fail(prm.error());
    }
    if (prm->has_value()) {
        auto metadata = parseResourceMetadata((*prm)->body);
        if (!metadata) {
            co_return fail(unauthorized(metadata.error() + " (" + http::redactedUrl((*prm)->url) + ")"));
        }
        found.resource = std::move(*metadata);
    }
    const auto server = splitUrl(config_.url);
    if (!server) {
        co_return fail(unauthorized(server.error()));
    }
    std::vector<std::string> metadataUrls;
    if (found.resource) {
        if (!found.resource->resource.empty() && !resourceCovers(found.resource->resource, config_.url)) {
            co_return fail(unauthorized("its protected-resource metadata is for another resource ('" +
                                        http::redactedUrl(found.resource->resource) +
                                        "'): refusing to send tokens for it"));
        }
        found.resourceUri =
            found.resource->resource.empty() ? canonicalResource(config_.url) : found.resource->resource;
        metadataUrls = authServerMetadataUrls(found.resource->authorizationServers.front());
        if (metadataUrls.empty()) {
            co_return fail(unauthorized("its authorization server '" +
                                        http::redactedUrl(found.resource->authorizationServers.front()) +
                                        "' is not an absolute URL"));
        }
    } else {
        // MCP 2025-03-26: no protected-resource metadata; the server's origin is the authorization server.
        found.resourceUri = canonicalResource(config_.url);
        metadataUrls = {server->origin + "/.well-known/oauth-authorization-server"};
    }
    auto asTask = firstDocument(metadataUrls, "the authorization server's metadata");
    auto as = co_await std::move(asTask);
    if (!as) {
        co_return fail(as.error());
    }
    if (as->has_value()) {
        auto metadata = parseAuthServerMetadata((*as)->body);
        if (!metadata) {
            co_return fail(unauthorized(metadata.error() + " (" + http::redactedUrl((*as)->url) + ")"));
        }
        // RFC 8414 §3.3: the metadata names the issuer it was looked up for, or it is not that server's.
        if (found.resource) {
            const std::string& expected = found.resource->authorizationServers.front();
            if (metadata->issuer != expected) {
                co_return fail(unauthorized("the metadata of the authorization server '" +
                                            http::redactedUrl(expected) + "' names the issuer '" +
                                            http::redactedUrl(metadata->issuer) + "' (" +
                                            http::redactedUrl((*as)->url) + "): refusing it"));
            }
        }
        found.server = std::move(*metadata);
        co_return found;
    }
    if (found.resource) {
        co_return fail(unauthorized("its authorization server publishes no metadata (tried " +
                                    http::redactedUrl(metadataUrls.front()) + " and " +
                                    std::to_string(metadataUrls.size() - 1) + " other places)"));
    }
    found.server = fallbackAuthServerMetadata(server->origin);
    co_return found;
}

Task<expected<std::optional<OAuthFlow::Document>, McpError>> OAuthFlow::firstDocument(
    std::vector<std::string> urls, std::string what) {
    for (auto& url : urls) {
        auto responseTask = fetch(getJson(url), what);
        auto response = co_await std::move(responseTask);
        if (!response) {
            co_return fail(response.error());
        }
        if (response->ok()) {
            co_return Document{std::move(url), std::move(response->body)};
        }
    }
    co_return std::optional<Document>{};
}

Task<expected<OAuthClient, McpError>> OAuthFlow::obtainClient(Discovery discovery) {
    const OAuthSettings& s = settings();
    const std::string& issuer = discovery.server.issuer;
    if (!s.clientId.empty()) {
        co_return OAuthClient{s.clientId, s.clientSecret, {}, issuer};
    }
    if (auto stored = s.store->client(); stored && stored->issuer == issuer) {
        co_return std::move(*stored);
    }
    if (!s.clientMetadataUrl.empty() && discovery.server.clientIdMetadataDocumentSupported) {
        co_return OAuthClient{s.clientMetadataUrl, {}, "none", issuer};
    }
    if (discovery.server.registrationEndpoint.empty()) {
        co_return fail(
            unauthorized("its authorization server offers no dynamic client registration: register "
                         "a client there and set OAuthSettings::clientId (`oauth.clientId`)"));
    }
    http::HttpRequest request;
    request.method = "POST";
    request.url = discovery.server.registrationEndpoint;
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", "application/json");
    request.body = registrationBody(s, discovery.server);
    auto responseTask = fetch(std::move(request), "client registration");
    auto response = co_await std::move(responseTask);
    if (!response) {
        co_return fail(response.error());
    }
    if (!response->ok()) {
        co_return fail(unauthorized("its authorization server refused to register this client (HTTP " +
                                    std::to_string(response->status) + ": " +
                                    describeOAuthError(response->body) + ")"));
    }
    auto client = parseRegistration(response->body, issuer);
    if (!client) {
        co_return fail(unauthorized(client.error()));
    }
    s.store->saveClient(*client);
    co_return std::move(*client);
}

Task<expected<void, McpError>> OAuthFlow::authorize(BearerChallenge challenge, std::string stepUpScope) {
    if (!discovery_) {
        auto foundTask = discover(challenge);
        auto found = co_await std::move(foundTask);
        if (!found) {
            co_return fail(found.error());
        }
        discovery_ = std::move(*found);
    }
    auto clientTask = obtainClient(*discovery_);
    auto client = co_await std::move(clientTask);
    if (!client) {
        co_return fail(client.error());
    }
    const OAuthSettings& s = settings();
    if (usesClientCredentials(s, discovery_->server)) {
        std::string scope =
            stepUpScope.empty()
                ? selectScope(s, challenge, discovery_->resource ? &*discovery_->resource : nullptr)
                : stepUpScope;
        FormParams form = {{"grant_type", "client_credentials"}, {"resource", discovery_->resourceUri}};
        if (!scope.empty()) {
            form.emplace_back("scope", scope);
        }
        auto grantedTask = requestToken(*discovery_, *client, std::move(form), scope);
        auto granted = co_await std::move(grantedTask);
        if (!granted) {
            co_return fail(granted.error());
        }
        s.store->saveTokens(*granted);
        co_return expected<void, McpError>{};
    }
    if (!s.authorize) {
        co_return fail(
            unauthorized("requires a person to authorize this client in a browser, and no "
                         "authorization step is set (OAuthSettings::authorize)"));
    }
    std::string scope =
        stepUpScope.empty()
            ? selectScope(s, challenge, discovery_->resource ? &*discovery_->resource : nullptr)
            : stepUpScope;
    // SEP-2207: ask for a refresh token where the authorization server offers `offline_access`.
    const auto& offered = discovery_->server.scopesSupported;
    if (!scope.empty() && offered &&
        std::find(offered->begin(), offered->end(), "offline_access") != offered->end()) {
        scope = mergeScopes(scope, "offline_access");
    }
    const Pkce pkce = makePkce();
    const std::string state = randomToken(24);
    AuthorizationParams params{client->clientId, s.redirectUri,          scope, state,
                               pkce.challenge,   discovery_->resourceUri};
    AuthorizationRequest request{config_.name, authorizationUrl(discovery_->server, params), s.redirectUri};
    auto approval = s.authorize(std::move(request));
    auto step = withTimeout(std::move(approval), s.authorizationTimeout);
    auto redirected = co_await std::move(step);
    if (!redirected) {
        const bool cancelled = redirected.error().code == EffectErrc::cancelled;
        co_return fail(
            McpError{cancelled ? McpErrc::cancelled : McpErrc::timeout,
                     where_ + ": the authorization step " +
                         (cancelled ? std::string("was cancelled")
                                    : "took longer than " + std::to_string(s.authorizationTimeout.count()) +
                                          " ms (OAuthSettings::authorizationTimeout)")});
    }
    if (!*redirected) {
        co_return fail(redirected->error());
    }
    const ExpectedIssuer expectedIssuer{discovery_->server.issuer, discovery_->server.issParameterSupported};
    auto code = codeFromRedirect(**redirected, state, expectedIssuer);
    if (!code) {
        co_return fail(unauthorized(code.error()));
    }
    FormParams form = {{"grant_type", "authorization_code"},
                       {"code", *code},
                       {"redirect_uri", s.redirectUri},
                       {"code_verifier", pkce.verifier},
                       {"resource", discovery_->resourceUri}};
    auto tokensTask = requestToken(*discovery_, *client, std::move(form), scope);
    auto tokens = co_await std::move(tokensTask);
    if (!tokens) {
        co_return fail(tokens.error());
    }
    s.store->saveTokens(*tokens);
    co_return expected<void, McpError>{};
}

Task<bool> OAuthFlow::refresh() {
    const auto tokens = settings().store->tokens();
    if (!tokens || tokens->refreshToken.empty()) {
        co_return false;
    }
    if (!discovery_) {
        BearerChallenge none;
        auto foundTask = discover(std::move(none));
        auto found = co_await std::move(foundTask);
        if (!found) {
            co_return false;
        }
        discovery_ = std::move(*found);
    }
    auto clientTask = obtainClient(*discovery_);
    auto client = co_await std::move(clientTask);
    if (!client) {
        co_return false;
    }
    FormParams form = {{"grant_type", "refresh_token"},
                       {"refresh_token", tokens->refreshToken},
                       {"resource", discovery_->resourceUri}};
    auto renewedTask = requestToken(*discovery_, *client, std::move(form), tokens->scope);
    auto renewed = co_await std::move(renewedTask);
    if (!renewed) {
        settings().store->clearTokens();  // the refresh token is spent or revoked: authorize anew
        co_return false;
    }
    if (renewed->refreshToken.empty()) {
        renewed->refreshToken = tokens->refreshToken;  // RFC 6749 §6: the old one stays valid
    }
    settings().store->saveTokens(*renewed);
    co_return true;
}

Task<expected<OAuthTokens, McpError>> OAuthFlow::requestToken(Discovery discovery, OAuthClient client,
                                                              FormParams params, std::string requestedScope) {
    const OAuthSettings& s = settings();
    const std::string method =
        s.privateKeyPem.empty() ? chooseAuthMethod(discovery.server, client) : "private_key_jwt";
    std::string assertion;
    if (method == "private_key_jwt") {
        // The audience is the authorization server (its issuer), as RFC 7523 §3 allows.
        auto signedAssertion = signClientAssertion(s.privateKeyPem, s.signingAlgorithm, client.clientId,
                                                   discovery.server.issuer, std::chrono::system_clock::now());
        if (!signedAssertion) {
            co_return fail(unauthorized("cannot authenticate with OAuthSettings::privateKeyPem: " +
                                        signedAssertion.error()));
        }
        assertion = std::move(*signedAssertion);
    }
    TokenRequest form = tokenRequest(client, method, std::move(params), assertion);
    http::HttpRequest request;
    request.method = "POST";
    request.url = discovery.server.tokenEndpoint;
    request.headers.set("Content-Type", "application/x-www-form-urlencoded");
    request.headers.set("Accept", "application/json");
    if (!form.authorization.empty()) {
        request.headers.set("Authorization", std::move(form.authorization));
    }
    request.body = std::move(form.body);
    auto responseTask = fetch(std::move(request), "the token request");
    auto response = co_await std::move(responseTask);
    if (!response) {
        co_return fail(response.error());
    }
    if (!response->ok()) {
        co_return fail(unauthorized("its authorization server refused the token request (HTTP " +
                                    std::to_string(response->status) + ": " +
                                    describeOAuthError(response->body) + ")"));
    }
    auto tokens = parseTokenResponse(response->body, requestedScope, std::chrono::system_clock::now());
    if (!tokens) {
        co_return fail(unauthorized(tokens.error()));
    }
    co_return std::move(*tokens);
}

Task<expected<http::HttpResponse, McpError>> OAuthFlow::fetch(http::HttpRequest request, std::string what) {
    const std::string url = http::redactedUrl(request.url);
    auto response = co_await http_.send(std::move(request));
    if (!response) {
        McpError error = fromHttpError(response.error(), where_);
        if (error.code != McpErrc::cancelled) {
            error.code = McpErrc::unauthorized;
            error.message = where_ + " requires authorization, and " + what + " at " + url +
                            " failed: " + response.error().message;
        }
        co_return fail(std::move(error));
    }
    co_return std::move(*response);
}

McpError OAuthFlow::unauthorized(std::string why) const {
    return McpError{McpErrc::unauthorized, redact(where_ + " requires authorization: " + std::move(why))};
}

// Servers' texts are quoted in messages: mask anything secret they might echo.
std::string OAuthFlow::redact(std::string text) const {
    std::vector<std::string> secrets = {settings().clientSecret, settings().privateKeyPem};
    if (const auto tokens = settings().store->tokens()) {
        secrets.push_back(tokens->accessToken);
        secrets.push_back(tokens->refreshToken);
    }
    if (const auto client = settings().store->client()) {
        secrets.push_back(client->clientSecret);
    }
    for (const auto& secret : secrets) {
        maskSecret(text, secret);
    }
    return text;
}

}  // namespace reagent::mcp::detail
