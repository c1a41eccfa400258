#include "oauth_protocol.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>

#include "reagent/core/base64.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/base64_url.hpp"

namespace reagent::mcp::detail {

namespace {

using nlohmann::json;

[[nodiscard]] std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

[[nodiscard]] bool isTokenChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void skipSpace(std::string_view text, std::size_t& at) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) {
        ++at;
    }
}

[[nodiscard]] std::string readToken(std::string_view text, std::size_t& at) {
    const std::size_t start = at;
    while (at < text.size() && isTokenChar(text[at])) {
        ++at;
    }
    return std::string(text.substr(start, at - start));
}

// A quoted-string (backslash escapes) or a token (token68 too: `=` allowed at its end).
[[nodiscard]] std::string readValue(std::string_view text, std::size_t& at) {
    std::string value;
    if (at < text.size() && text[at] == '"') {
        for (++at; at < text.size() && text[at] != '"'; ++at) {
            if (text[at] == '\\' && at + 1 < text.size()) {
                ++at;
            }
            value += text[at];
        }
        if (at < text.size()) {
            ++at;  // the closing quote
        }
        return value;
    }
    while (at < text.size() && text[at] != ',' && text[at] != ' ' && text[at] != '\t') {
        value += text[at++];
    }
    return value;
}

[[nodiscard]] std::optional<std::vector<std::string>> stringList(const json& document, const char* key) {
    const auto it = document.find(key);
    if (it == document.end() || !it->is_array()) {
        return std::nullopt;
    }
    std::vector<std::string> out;
    for (const json& item : *it) {
        if (item.is_string()) {
            out.push_back(item.get<std::string>());
        }
    }
    return out;
}

[[nodiscard]] bool contains(const std::optional<std::vector<std::string>>& list, std::string_view item) {
    return list && std::find(list->begin(), list->end(), item) != list->end();
}

[[nodiscard]] std::vector<std::string> splitScopes(std::string_view scopes) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < scopes.size()) {
        const std::size_t end = std::min(scopes.find(' ', at), scopes.size());
        if (end > at) {
            out.emplace_back(scopes.substr(at, end - at));
        }
        at = end + 1;
    }
    return out;
}

[[nodiscard]] std::string joinScopes(const std::vector<std::string>& scopes) {
    std::string out;
    for (const auto& scope : scopes) {
        out += (out.empty() ? "" : " ") + scope;
    }
    return out;
}

[[nodiscard]] std::string base64Url(const unsigned char* data, std::size_t size) {
    return http::base64Url(std::string_view(reinterpret_cast<const char*>(data), size));
}

[[nodiscard]] std::string shorten(std::string text, std::size_t limit = 200) {
    for (char& c : text) {
        if (static_cast<unsigned char>(c) < 0x20) {
            c = ' ';
        }
    }
    if (text.size() > limit) {
        text.resize(limit);
        text += "...";
    }
    return text;
}

}  // namespace

std::optional<BearerChallenge> parseBearerChallenge(std::string_view header) {
    std::size_t at = 0;
    while (at < header.size()) {
        skipSpace(header, at);
        while (at < header.size() && header[at] == ',') {
            ++at;
            skipSpace(header, at);
        }
        const std::string scheme = lower(readToken(header, at));
        if (scheme.empty()) {
            return std::nullopt;
        }
        BearerChallenge challenge;
        // Parameters `name=value` follow, separated by commas, until the next scheme (a token not
        // followed by `=`).
        for (;;) {
            skipSpace(header, at);
            const std::size_t mark = at;
            const std::string name = lower(readToken(header, at));
            skipSpace(header, at);
            if (name.empty() || at >= header.size() || header[at] != '=') {
                at = mark;
                if (name.empty() && at < header.size() && header[at] != ',') {
                    (void)readValue(header, at);  // a token68 credential
                }
                break;
            }
            ++at;
            skipSpace(header, at);
            std::string value = readValue(header, at);
            if (name == "resource_metadata") {
                challenge.resourceMetadata = std::move(value);
            } else if (name == "scope") {
                challenge.scope = std::move(value);
            } else if (name == "error") {
                challenge.error = std::move(value);
            } else if (name == "error_description") {
                challenge.errorDescription = std::move(value);
            }
            skipSpace(header, at);
            if (at < header.size() && header[at] == ',') {
                ++at;
            }
        }
        if (scheme == "bearer") {
            return challenge;
        }
    }
    return std::nullopt;
}

expected<UrlParts, std::string> splitUrl(std::string_view url) {
    const auto parsed = boost::urls::parse_uri(url);
    if (!parsed || !parsed->has_authority() || parsed->encoded_host().empty()) {
        return unexpected("'" + shorten(std::string(url)) + "' is not an absolute URL");
    }
    UrlParts parts;
    parts.origin = lower(parsed->scheme()) + "://" + lower(parsed->encoded_host_and_port());
    parts.path = std::string(parsed->encoded_path());
    if (parts.path.empty()) {
        parts.path = "/";
    }
    return parts;
}

std::vector<std::string> resourceMetadataUrls(std::string_view serverUrl) {
    const auto parts = splitUrl(serverUrl);
    if (!parts) {
        return {};
    }
    std::vector<std::string> urls;
    std::string path = parts->path;
    while (path.size() > 1 && path.back() == '/') {
        path.pop_back();
    }
    if (path != "/") {
        urls.push_back(parts->origin + "/.well-known/oauth-protected-resource" + path);
    }
    urls.push_back(parts->origin + "/.well-known/oauth-protected-resource");
    return urls;
}

std::vector<std::string> authServerMetadataUrls(std::string_view issuer) {
    const auto parts = splitUrl(issuer);
    if (!parts) {
        return {};
    }
    std::string path = parts->path;
    while (!path.empty() && path.back() == '/') {
        path.pop_back();
    }
    if (path.empty()) {
        return {parts->origin + "/.well-known/oauth-authorization-server",
                parts->origin + "/.well-known/openid-configuration"};
    }
    return {parts->origin + "/.well-known/oauth-authorization-server" + path,
            parts->origin + "/.well-known/openid-configuration" + path,
            parts->origin + path + "/.well-known/openid-configuration"};
}

expected<ResourceMetadata, std::string> parseResourceMetadata(std::string_view body) {
    const json document = parseUntrustedJson(body).value_or(json());
    if (!document.is_object()) {
        return unexpected(std::string("its protected-resource metadata is not a JSON object"));
    }
    ResourceMetadata metadata;
    metadata.resource = stringOr(document, "resource");
    metadata.authorizationServers =
        stringList(document, "authorization_servers").value_or(std::vector<std::string>{});
    metadata.scopesSupported = stringList(document, "scopes_supported");
    if (metadata.authorizationServers.empty()) {
        return unexpected(std::string("its protected-resource metadata names no authorization server"));
    }
    return metadata;
}

expected<AuthServerMetadata, std::string> parseAuthServerMetadata(std::string_view body) {
    const json document = parseUntrustedJson(body).value_or(json());
    if (!document.is_object()) {
        return unexpected(std::string("the authorization server's metadata is not a JSON object"));
    }
    AuthServerMetadata metadata;
    metadata.issuer = stringOr(document, "issuer");
    metadata.authorizationEndpoint = stringOr(document, "authorization_endpoint");
    metadata.tokenEndpoint = stringOr(document, "token_endpoint");
    metadata.registrationEndpoint = stringOr(document, "registration_endpoint");
    metadata.scopesSupported = stringList(document, "scopes_supported");
    metadata.tokenEndpointAuthMethods = stringList(document, "token_endpoint_auth_methods_supported");
    metadata.codeChallengeMethods = stringList(document, "code_challenge_methods_supported");
    metadata.grantTypes = stringList(document, "grant_types_supported");
    const auto cimd = document.find("client_id_metadata_document_supported");
    metadata.clientIdMetadataDocumentSupported =
        cimd != document.end() && cimd->is_boolean() && cimd->get<bool>();
    const auto iss = document.find("authorization_response_iss_parameter_supported");
    metadata.issParameterSupported = iss != document.end() && iss->is_boolean() && iss->get<bool>();
    if (metadata.authorizationEndpoint.empty() || metadata.tokenEndpoint.empty()) {
        return unexpected(
            std::string("the authorization server's metadata lacks its authorization or token endpoint"));
    }
    if (metadata.codeChallengeMethods && !contains(metadata.codeChallengeMethods, "S256")) {
        return unexpected(
            std::string("the authorization server does not support PKCE with S256, which MCP requires"));
    }
    return metadata;
}

AuthServerMetadata fallbackAuthServerMetadata(const std::string& origin) {
    AuthServerMetadata metadata;
    metadata.issuer = origin;
    metadata.authorizationEndpoint = origin + "/authorize";
    metadata.tokenEndpoint = origin + "/token";
    metadata.registrationEndpoint = origin + "/register";
    return metadata;
}

std::string canonicalResource(std::string_view serverUrl) {
    const auto parts = splitUrl(serverUrl);
    if (!parts) {
        return std::string(serverUrl);
    }
    const auto parsed = boost::urls::parse_uri(serverUrl);
    std::string out = parts->origin + std::string(parsed->encoded_path());
    if (parsed->has_query()) {
        out += "?" + std::string(parsed->encoded_query());
    }
    return out;
}

bool resourceCovers(std::string_view resource, std::string_view serverUrl) {
    const auto granted = splitUrl(resource);
    const auto server = splitUrl(serverUrl);
    if (!granted || !server || granted->origin != server->origin) {
        return false;
    }
    std::string prefix = granted->path;
    while (!prefix.empty() && prefix.back() == '/') {
        prefix.pop_back();
    }
    const std::string& path = server->path;
    return path.compare(0, prefix.size(), prefix) == 0 &&
           (path.size() == prefix.size() || path[prefix.size()] == '/');
}

std::string selectScope(const OAuthSettings& settings, const BearerChallenge& challenge,
                        const ResourceMetadata* resource) {
    if (!settings.scopes.empty()) {
        return joinScopes(settings.scopes);
    }
    if (!challenge.scope.empty()) {
        return challenge.scope;
    }
    if (resource != nullptr && resource->scopesSupported) {
        return joinScopes(*resource->scopesSupported);
    }
    return {};
}

std::string mergeScopes(std::string_view a, std::string_view b) {
    std::vector<std::string> scopes = splitScopes(a);
    for (auto& scope : splitScopes(b)) {
        if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) {
            scopes.push_back(std::move(scope));
        }
    }
    return joinScopes(scopes);
}

bool scopesCover(std::string_view granted, std::string_view wanted) {
    const auto have = splitScopes(granted);
    const auto want = splitScopes(wanted);
    return std::all_of(want.begin(), want.end(), [&have](const std::string& scope) {
        return std::find(have.begin(), have.end(), scope) != have.end();
    });
}

std::string chooseAuthMethod(const AuthServerMetadata& server, const OAuthClient& client) {
    if (!client.tokenEndpointAuthMethod.empty()) {
        return client.tokenEndpointAuthMethod;
    }
    if (client.clientSecret.empty()) {
        return "none";
    }
    if (!server.tokenEndpointAuthMethods ||
        contains(server.tokenEndpointAuthMethods, "client_secret_basic")) {
        return "client_secret_basic";
    }
    if (contains(server.tokenEndpointAuthMethods, "client_secret_post")) {
        return "client_secret_post";
    }
    return "client_secret_basic";
}

bool usesClientCredentials(const OAuthSettings& settings, const AuthServerMetadata& server) {
    switch (settings.grant) {
        case OAuthGrant::client_credentials:
            return true;
        case OAuthGrant::authorization_code:
            return false;
        case OAuthGrant::automatic:
            break;
    }
    const bool credentials =
        !settings.clientId.empty() && (!settings.clientSecret.empty() || !settings.privateKeyPem.empty());
    return credentials && contains(server.grantTypes, "client_credentials") &&
           !contains(server.grantTypes, "authorization_code");
}

expected<std::string, std::string> signClientAssertion(std::string_view pem, std::string_view algorithm,
                                                       std::string_view clientId, std::string_view audience,
                                                       std::chrono::system_clock::time_point now) {
    if (algorithm != "ES256" && algorithm != "RS256") {
        return unexpected("signing algorithm '" + shorten(std::string(algorithm), 20) +
                          "' is not supported (ES256 or RS256)");
    }
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                  BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
    if (!key) {
        return unexpected(std::string("the private key is not a PEM private key"));
    }
    const bool ec = EVP_PKEY_base_id(key.get()) == EVP_PKEY_EC;
    if (ec != (algorithm == "ES256")) {
        return unexpected("the private key does not fit " + std::string(algorithm) +
                          " (ES256 needs a P-256 key, RS256 an RSA key)");
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    const json header = {{"alg", algorithm}, {"typ", "JWT"}};
    const json claims = {{"iss", clientId}, {"sub", clientId},      {"aud", audience},
                         {"iat", seconds},  {"exp", seconds + 300}, {"jti", randomToken(16)}};
    const std::string headerText = header.dump();
    const std::string claimsText = claims.dump();
    const std::string input =
        base64Url(reinterpret_cast<const unsigned char*>(headerText.data()), headerText.size()) + "." +
        base64Url(reinterpret_cast<const unsigned char*>(claimsText.data()), claimsText.size());
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    std::size_t size = 0;
    if (!context || EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
        EVP_DigestSign(context.get(), nullptr, &size, reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) != 1) {
        return unexpected(std::string("the assertion could not be signed with the private key"));
    }
    std::vector<unsigned char> signature(size);
    if (EVP_DigestSign(context.get(), signature.data(), &size,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
        return unexpected(std::string("the assertion could not be signed with the private key"));
    }
    signature.resize(size);
    if (ec) {
        // JWS wants R and S as two 32-byte big-endian numbers, not OpenSSL's DER sequence.
        const unsigned char* der = signature.data();
        std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> parsed(
            d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size())), ECDSA_SIG_free);
        if (!parsed) {
            return unexpected(std::string("the assertion's signature could not be encoded"));
        }
        std::vector<unsigned char> raw(64);
        if (BN_bn2binpad(ECDSA_SIG_get0_r(parsed.get()), raw.data(), 32) != 32 ||
            BN_bn2binpad(ECDSA_SIG_get0_s(parsed.get()), raw.data() + 32, 32) != 32) {
            return unexpected(std::string("the private key is not a P-256 key, which ES256 needs"));
        }
        signature = std::move(raw);
    }
    return input + "." + base64Url(signature.data(), signature.size());
}

std::string randomToken(std::size_t bytes) {
    std::vector<unsigned char> data(bytes);
    if (RAND_bytes(data.data(), static_cast<int>(data.size())) != 1) {
        // The system's random source failed: nothing safe can be generated, and OAuth cannot go on.
        throw std::runtime_error("RAND_bytes failed: no secure random source for OAuth");
    }
    return base64Url(data.data(), data.size());
}

std::string sha256Base64Url(std::string_view text) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
    return base64Url(digest, sizeof digest);
}

Pkce makePkce() {
    Pkce pkce;
    pkce.verifier = randomToken(32);  // 43 characters of base64url: within RFC 7636's 43..128
    pkce.challenge = sha256Base64Url(pkce.verifier);
    return pkce;
}

std::string formEncode(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
            out += c;
        } else {
            out += '%';
            out += kHex[byte >> 4U];
            out += kHex[byte & 0x0FU];
        }
    }
    return out;
}

std::string authorizationUrl(const AuthServerMetadata& server, const AuthorizationParams& params) {
    FormParams query = {{"response_type", "code"},
                        {"client_id", params.clientId},
                        {"redirect_uri", params.redirectUri},
                        {"state", params.state},
                        {"code_challenge", params.codeChallenge},
                        {"code_challenge_method", "S256"},
                        {"resource", params.resource}};
    if (!params.scope.empty()) {
        query.emplace_back("scope", params.scope);
    }
    std::string url = server.authorizationEndpoint;
    char separator = url.find('?') == std::string::npos ? '?' : '&';
    for (const auto& [key, value] : query) {
        url += separator + key + "=" + formEncode(value);
        separator = '&';
    }
    return url;
}

expected<std::string, std::string> codeFromRedirect(std::string_view redirected, std::string_view state,
                                                    const ExpectedIssuer& issuer) {
    const auto parsed = boost::urls::parse_uri_reference(redirected);
    if (!parsed) {
        return unexpected(std::string("the authorization step returned something that is not a URL"));
    }
    std::string code;
    std::string returnedState;
    std::string error;
    std::string description;
    std::optional<std::string> iss;
    for (const auto& param : parsed->params()) {
        if (param.key == "iss") {
            iss = param.value;
        } else if (param.key == "code") {
            code = param.value;
        } else if (param.key == "state") {
            returnedState = param.value;
        } else if (param.key == "error") {
            error = param.value;
        } else if (param.key == "error_description") {
            description = param.value;
        }
    }
    // Before anything in the response is believed: did the server the request went to send it?
    if (iss ? *iss != issuer.issuer : issuer.named) {
        return unexpected(iss ? "the authorization response names the issuer '" + shorten(*iss) + "', not '" +
                                    shorten(issuer.issuer) +
                                    "' to which the request went (a mix-up attack, RFC 9207)"
                              : "the authorization response does not name its issuer, which '" +
                                    shorten(issuer.issuer) + "' promises to do (RFC 9207)");
    }
    if (!error.empty()) {
        return unexpected("the authorization server refused: " + shorten(error) +
                          (description.empty() ? "" : " (" + shorten(description) + ")"));
    }
    if (returnedState != state) {
        return unexpected(
            std::string("the redirect's `state` does not match the request's (a forged or stale redirect)"));
    }
    if (code.empty()) {
        return unexpected(std::string("the redirect carries no authorization `code`"));
    }
    return code;
}

TokenRequest tokenRequest(const OAuthClient& client, std::string_view method, FormParams params,
                          std::string_view assertion) {
    TokenRequest request;
    if (method == "private_key_jwt") {
        params.emplace_back("client_id", client.clientId);
        params.emplace_back("client_assertion_type",
                            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
        params.emplace_back("client_assertion", std::string(assertion));
    } else if (method == "client_secret_basic") {
        // RFC 6749 §2.3.1: the id and secret are form-encoded before the Basic encoding.
        request.authorization =
            "Basic " + base64Encode(formEncode(client.clientId) + ":" + formEncode(client.clientSecret));
    } else {
        params.emplace_back("client_id", client.clientId);
        if (method == "client_secret_post") {
            params.emplace_back("client_secret", client.clientSecret);
        }
    }
    for (const auto& [key, value] : params) {
        request.body += (request.body.empty() ? "" : "&") + key + "=" + formEncode(value);
    }
    return request;
}

expected<OAuthTokens, std::string> parseTokenResponse(std::string_view body, std::string_view requestedScope,
                                                      std::chrono::system_clock::time_point now) {
    const json document = parseUntrustedJson(body).value_or(json());
    if (!document.is_object()) {
        return unexpected(std::string("the token endpoint's answer is not a JSON object"));
    }
    OAuthTokens tokens;
    tokens.accessToken = stringOr(document, "access_token");
    if (tokens.accessToken.empty()) {
        return unexpected("the token endpoint's answer has no access_token" +
                          (document.contains("error") ? ": " + describeOAuthError(body) : std::string()));
    }
    const std::string type = lower(stringOr(document, "token_type"));
    if (!type.empty() && type != "bearer") {
        return unexpected("the token endpoint issued a '" + shorten(type, 40) +
                          "' token; MCP uses Bearer tokens");
    }
    tokens.refreshToken = stringOr(document, "refresh_token");
    tokens.scope = document.contains("scope") ? stringOr(document, "scope") : std::string(requestedScope);
    if (const auto expires = document.find("expires_in"); expires != document.end() && expires->is_number()) {
        tokens.expiresAt = now + std::chrono::seconds(expires->get<long long>());
    }
    return tokens;
}

std::string describeOAuthError(std::string_view body) {
    const json document = parseUntrustedJson(body).value_or(json());
    if (!document.is_object()) {
        return shorten(std::string(body));
    }
    std::string text = shorten(stringOr(document, "error"), 80);
    if (const std::string description = stringOr(document, "error_description"); !description.empty()) {
        text += " (" + shorten(description) + ")";
    }
    return text;
}

namespace {

// A program on the user's machine receives its redirect on the loopback or through a custom scheme;
// a web application on an https:// site (OpenID Connect Dynamic Registration's application_type).
std::string applicationType(std::string_view redirectUri) {
    constexpr std::string_view kHttps = "https://";
    if (!redirectUri.starts_with(kHttps)) {
        return "native";  // http:// (loopback only, RFC 8252) or a custom scheme
    }
    std::string_view host = redirectUri.substr(kHttps.size());
    host = host.starts_with("[") ? host.substr(0, host.find(']') + 1)
                                 : host.substr(0, host.find_first_of(":/?#"));
    return host == "127.0.0.1" || host == "localhost" || host == "[::1]" ? "native" : "web";
}

}  // namespace

std::string registrationBody(const OAuthSettings& settings, const AuthServerMetadata& server) {
    std::string method = "none";
    if (server.tokenEndpointAuthMethods && !contains(server.tokenEndpointAuthMethods, "none")) {
        method = contains(server.tokenEndpointAuthMethods, "client_secret_basic") ? "client_secret_basic"
                                                                                  : "client_secret_post";
    }
    const json body = {{"client_name", settings.clientName},
                       {"redirect_uris", json::array({settings.redirectUri})},
                       {"grant_types", json::array({"authorization_code", "refresh_token"})},
                       {"response_types", json::array({"code"})},
                       {"token_endpoint_auth_method", method},
                       {"application_type", applicationType(settings.redirectUri)}};
    return body.dump();
}

expected<OAuthClient, std::string> parseRegistration(std::string_view body, std::string issuer) {
    const json document = parseUntrustedJson(body).value_or(json());
    if (!document.is_object() || stringOr(document, "client_id").empty()) {
        return unexpected(std::string("the registration endpoint's answer has no client_id"));
    }
    OAuthClient client;
    client.clientId = stringOr(document, "client_id");
    client.clientSecret = stringOr(document, "client_secret");
    client.tokenEndpointAuthMethod = stringOr(document, "token_endpoint_auth_method");
    client.issuer = std::move(issuer);
    return client;
}

}  // namespace reagent::mcp::detail
