// The OAuth rules of the MCP authorization specification (oauth_protocol.hpp, no I/O), and the stores.

#include "oauth_protocol.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "reagent/mcp/oauth.hpp"
#include "reagent/mcp/server_config.hpp"

namespace {

namespace mcp = reagent::mcp;
namespace detail = reagent::mcp::detail;
using nlohmann::json;

}  // namespace

TEST_CASE("oauth: a Bearer challenge is read among other schemes", "[mcp][oauth]") {
    const auto challenge = detail::parseBearerChallenge(
        R"(Basic realm="x", Bearer error="insufficient_scope", scope="mcp:basic mcp:write", )"
        R"(resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="need \"write\"")");
    REQUIRE(challenge);
    CHECK(challenge->error == "insufficient_scope");
    CHECK(challenge->scope == "mcp:basic mcp:write");
    CHECK(challenge->resourceMetadata == "https://h/.well-known/oauth-protected-resource/mcp");
    CHECK(challenge->errorDescription == R"(need "write")");

    CHECK(detail::parseBearerChallenge("bearer")->scope.empty());
    CHECK(detail::parseBearerChallenge("Basic realm=\"only\"") == std::nullopt);
    CHECK(detail::parseBearerChallenge("") == std::nullopt);
    CHECK(detail::parseBearerChallenge("Negotiate abc123==, Bearer scope=read")->scope == "read");
}

TEST_CASE("oauth: metadata is looked for where the specification says and in its order", "[mcp][oauth]") {
    CHECK(detail::resourceMetadataUrls("https://Example.com:8443/mcp/") ==
          std::vector<std::string>{"https://example.com:8443/.well-known/oauth-protected-resource/mcp",
                                   "https://example.com:8443/.well-known/oauth-protected-resource"});
    CHECK(detail::resourceMetadataUrls("http://h") ==
          std::vector<std::string>{"http://h/.well-known/oauth-protected-resource"});
    CHECK(detail::resourceMetadataUrls("not a url").empty());

    CHECK(detail::authServerMetadataUrls("https://as.example/tenant1") ==
          std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server/tenant1",
                                   "https://as.example/.well-known/openid-configuration/tenant1",
                                   "https://as.example/tenant1/.well-known/openid-configuration"});
    CHECK(detail::authServerMetadataUrls("https://as.example/") ==
          std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server",
                                   "https://as.example/.well-known/openid-configuration"});
}

TEST_CASE("oauth: metadata documents are read and checked", "[mcp][oauth]") {
    auto resource = detail::parseResourceMetadata(
        R"({"resource":"https://h/mcp","authorization_servers":["https://as"],"scopes_supported":["a","b"]})");
    REQUIRE(resource);
    CHECK(resource->authorizationServers == std::vector<std::string>{"https://as"});
    CHECK(resource->scopesSupported == std::vector<std::string>{"a", "b"});
    CHECK_FALSE(detail::parseResourceMetadata(R"({"resource":"https://h/mcp"})"));
    CHECK_FALSE(detail::parseResourceMetadata("<html>"));

    auto server = detail::parseAuthServerMetadata(
        R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t",)"
        R"("code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true})");
    REQUIRE(server);
    CHECK(server->registrationEndpoint.empty());
    CHECK(server->clientIdMetadataDocumentSupported);
    CHECK_FALSE(server->issParameterSupported);
    CHECK(
        detail::parseAuthServerMetadata(
            R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t",)"
            R"("authorization_response_iss_parameter_supported":true})")
            ->issParameterSupported);
    const auto plainOnly = detail::parseAuthServerMetadata(
        R"({"authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["plain"]})");
    REQUIRE_FALSE(plainOnly);
    CHECK(plainOnly.error().find("S256") != std::string::npos);
    CHECK_FALSE(detail::parseAuthServerMetadata(R"({"issuer":"https://as"})"));

    const auto fallback = detail::fallbackAuthServerMetadata("http://h:1");
    CHECK(fallback.authorizationEndpoint == "http://h:1/authorize");
    CHECK(fallback.tokenEndpoint == "http://h:1/token");
    CHECK(fallback.registrationEndpoint == "http://h:1/register");
}

TEST_CASE("oauth: a resource covers its server only by origin and whole path segments", "[mcp][oauth]") {
    CHECK(detail::resourceCovers("https://h/mcp", "https://h/mcp"));
    CHECK(detail::resourceCovers("https://h", "https://h/mcp"));
    CHECK(detail::resourceCovers("https://h/", "https://h/mcp"));
    CHECK(detail::resourceCovers("https://H/mcp", "https://h/mcp/sub"));
    CHECK_FALSE(detail::resourceCovers("https://h/mcp", "https://h/mcp-evil"));
    CHECK_FALSE(detail::resourceCovers("https://h/mcp", "https://h:444/mcp"));
    CHECK_FALSE(detail::resourceCovers("https://other/mcp", "https://h/mcp"));
    CHECK_FALSE(detail::resourceCovers("http://h/mcp", "https://h/mcp"));
    CHECK(detail::canonicalResource("HTTPS://Example.COM/MCP#frag") == "https://example.com/MCP");
}

TEST_CASE("oauth: scope selection and step-up follow the specification's precedence", "[mcp][oauth]") {
    mcp::OAuthSettings settings;
    detail::BearerChallenge challenge;
    detail::ResourceMetadata resource;
    resource.scopesSupported = std::vector<std::string>{"mcp:basic", "mcp:read"};
    CHECK(detail::selectScope(settings, challenge, nullptr).empty());
    CHECK(detail::selectScope(settings, challenge, &resource) == "mcp:basic mcp:read");
    challenge.scope = "mcp:basic";
    CHECK(detail::selectScope(settings, challenge, &resource) == "mcp:basic");
    settings.scopes = {"x", "y"};
    CHECK(detail::selectScope(settings, challenge, &resource) == "x y");

    CHECK(detail::mergeScopes("a b", "b c") == "a b c");
    CHECK(detail::mergeScopes("", "a") == "a");
    CHECK(detail::scopesCover("a b c", "c a"));
    CHECK_FALSE(detail::scopesCover("a b", "a d"));
    CHECK(detail::scopesCover("a", ""));
}

TEST_CASE("oauth: the token endpoint's authentication follows the server and the client", "[mcp][oauth]") {
    detail::AuthServerMetadata server;
    mcp::OAuthClient client{"id", "", "", "https://as"};
    CHECK(detail::chooseAuthMethod(server, client) == "none");
    client.clientSecret = "s3cret";
    CHECK(detail::chooseAuthMethod(server, client) == "client_secret_basic");  // RFC 8414's default
    server.tokenEndpointAuthMethods = std::vector<std::string>{"client_secret_post"};
    CHECK(detail::chooseAuthMethod(server, client) == "client_secret_post");
    client.tokenEndpointAuthMethod = "client_secret_basic";
    CHECK(detail::chooseAuthMethod(server, client) == "client_secret_basic");

    const auto basic =
        detail::tokenRequest({"my id", "p&ss", "", ""}, "client_secret_basic", {{"grant_type", "x"}});
    CHECK(basic.authorization == "Basic bXklMjBpZDpwJTI2c3M=");  // base64("my%20id:p%26ss")
    CHECK(basic.body == "grant_type=x");
    const auto post = detail::tokenRequest({"id", "sec", "", ""}, "client_secret_post", {{"a", "1 2"}});
    CHECK(post.authorization.empty());
    CHECK(post.body == "a=1%202&client_id=id&client_secret=sec");
    CHECK(detail::tokenRequest({"id", "", "", ""}, "none", {}).body == "client_id=id");
}

TEST_CASE("oauth: PKCE S256 is base64url of SHA-256 and verifiers are fresh", "[mcp][oauth]") {
    // SHA-256("abc") = ba7816bf...15ad (FIPS 180-2), in base64url without padding.
    CHECK(detail::sha256Base64Url("abc") == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    const auto a = detail::makePkce();
    const auto b = detail::makePkce();
    CHECK(a.verifier.size() == 43);
    CHECK(a.verifier != b.verifier);
    CHECK(a.challenge == detail::sha256Base64Url(a.verifier));
}

TEST_CASE("oauth: the authorization URL and the redirect carry what they must", "[mcp][oauth]") {
    detail::AuthServerMetadata server;
    server.authorizationEndpoint = "https://as/authorize?tenant=1";
    const std::string url = detail::authorizationUrl(
        server, {"client id", "http://127.0.0.1:1/cb", "", "st", "ch", "https://h/mcp"});
    CHECK(url.rfind("https://as/authorize?tenant=1&response_type=code&client_id=client%20id&", 0) == 0);
    CHECK(url.find("&code_challenge=ch&code_challenge_method=S256") != std::string::npos);
    CHECK(url.find("&resource=https%3A%2F%2Fh%2Fmcp") != std::string::npos);
    CHECK(url.find("scope=") == std::string::npos);  // omitted when empty

    const detail::ExpectedIssuer quiet{"https://as", false};
    CHECK(detail::codeFromRedirect("http://127.0.0.1:1/cb?code=abc&state=st", "st", quiet).value() == "abc");
    const auto forged = detail::codeFromRedirect("http://127.0.0.1:1/cb?code=abc&state=other", "st", quiet);
    REQUIRE_FALSE(forged);
    CHECK(forged.error().find("state") != std::string::npos);
    const auto denied =
        detail::codeFromRedirect("/cb?error=access_denied&error_description=no&state=st", "st", quiet);
    REQUIRE_FALSE(denied);
    CHECK(denied.error().find("access_denied (no)") != std::string::npos);
    CHECK_FALSE(detail::codeFromRedirect("/cb?state=st", "st", quiet));
}

TEST_CASE("oauth: the authorization response's issuer is checked as RFC 9207 says", "[mcp][oauth]") {
    const detail::ExpectedIssuer named{"https://as.example.com", true};
    const detail::ExpectedIssuer quiet{"https://as.example.com", false};
    const auto code = [](const char* query, const detail::ExpectedIssuer& issuer) {
        return detail::codeFromRedirect(std::string("http://127.0.0.1:1/cb?") + query, "st", issuer);
    };
    // Named and advertised, or neither: the code.
    CHECK(code("code=c&state=st&iss=https%3A%2F%2Fas.example.com", named).value() == "c");
    CHECK(code("code=c&state=st", quiet).value() == "c");
    // Advertised but missing; wrong; sent unasked and wrong; the same issuer with a trailing slash.
    const auto missing = code("code=c&state=st", named);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().find("does not name its issuer") != std::string::npos);
    CHECK_FALSE(code("code=c&state=st&iss=https%3A%2F%2Fevil.example.com", named));
    CHECK_FALSE(code("code=c&state=st&iss=https%3A%2F%2Fevil.example.com", quiet));
    CHECK_FALSE(code("code=c&state=st&iss=https%3A%2F%2Fas.example.com%2F", named));
    // On a mix-up the response's error is not what is reported.
    const auto mixed =
        code("error=access_denied&error_description=click%20here&state=st&iss=https%3A%2F%2Fevil", quiet);
    REQUIRE_FALSE(mixed);
    CHECK(mixed.error().find("mix-up") != std::string::npos);
    CHECK(mixed.error().find("click") == std::string::npos);
}

TEST_CASE("oauth: token answers and registrations are read and checked", "[mcp][oauth]") {
    const auto now = std::chrono::system_clock::now();
    auto tokens = detail::parseTokenResponse(
        R"({"access_token":"t","token_type":"bearer","expires_in":60,"refresh_token":"r"})", "a b", now);
    REQUIRE(tokens);
    CHECK(tokens->scope == "a b");
    CHECK(tokens->refreshToken == "r");
    CHECK(*tokens->expiresAt == now + std::chrono::seconds(60));
    CHECK_FALSE(detail::parseTokenResponse(R"({"access_token":"t","token_type":"mac"})", "", now));
    const auto refused =
        detail::parseTokenResponse(R"({"error":"invalid_grant","error_description":"used"})", "", now);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("invalid_grant (used)") != std::string::npos);

    mcp::OAuthSettings settings;
    detail::AuthServerMetadata server;
    const json body = json::parse(detail::registrationBody(settings, server));
    CHECK(body["token_endpoint_auth_method"] == "none");
    CHECK(body["redirect_uris"] == json::array({settings.redirectUri}));
    CHECK(body["grant_types"] == json::array({"authorization_code", "refresh_token"}));
    // SEP-837: a program redirected to the loopback is a native application, an https:// site a web one.
    CHECK(body["application_type"] == "native");
    mcp::OAuthSettings site = settings;
    site.redirectUri = "https://app.example.com/callback";
    CHECK(json::parse(detail::registrationBody(site, server))["application_type"] == "web");
    site.redirectUri = "https://localhost:8443/callback";
    CHECK(json::parse(detail::registrationBody(site, server))["application_type"] == "native");
    site.redirectUri = "https://localhost.example.com/callback";
    CHECK(json::parse(detail::registrationBody(site, server))["application_type"] == "web");
    server.tokenEndpointAuthMethods = std::vector<std::string>{"client_secret_post"};
    CHECK(json::parse(detail::registrationBody(settings, server))["token_endpoint_auth_method"] ==
          "client_secret_post");

    auto client = detail::parseRegistration(R"({"client_id":"c","client_secret":"s"})", "https://as");
    REQUIRE(client);
    CHECK(client->issuer == "https://as");
    CHECK_FALSE(detail::parseRegistration(R"({"error":"invalid_client_metadata"})", "https://as"));
}

TEST_CASE("oauth: client credentials are used when asked or when the server offers nothing else",
          "[mcp][oauth]") {
    mcp::OAuthSettings settings;
    detail::AuthServerMetadata server;
    server.grantTypes = std::vector<std::string>{"client_credentials"};
    CHECK_FALSE(detail::usesClientCredentials(settings, server));  // no credentials
    settings.clientId = "c";
    settings.clientSecret = "s";
    CHECK(detail::usesClientCredentials(settings, server));
    server.grantTypes->push_back("authorization_code");
    CHECK_FALSE(detail::usesClientCredentials(settings, server));
    settings.grant = mcp::OAuthGrant::client_credentials;
    CHECK(detail::usesClientCredentials(settings, server));

    const auto bad = detail::signClientAssertion("not a key", "ES256", "c", "https://as",
                                                 std::chrono::system_clock::now());
    REQUIRE_FALSE(bad);
    CHECK(bad.error().find("PEM") != std::string::npos);
    CHECK_FALSE(
        detail::signClientAssertion("", "HS256", "c", "https://as", std::chrono::system_clock::now()));
}

TEST_CASE("oauth: the file store keeps tokens across instances with owner-only access", "[mcp][oauth]") {
    const auto dir = std::filesystem::temp_directory_path() / ("reagent-oauth-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const std::string path = (dir / "nested" / "server.json").string();
    {
        auto store = mcp::makeFileOAuthStore(path);
        CHECK_FALSE(store->tokens());
        store->saveClient({"id", "secret", "client_secret_post", "https://as"});
        store->saveTokens({"access", "refresh", "a b",
                           std::chrono::system_clock::time_point(std::chrono::seconds(2000000000))});
    }
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
    auto again = mcp::makeFileOAuthStore(path);
    REQUIRE(again->tokens());
    CHECK(again->tokens()->accessToken == "access");
    CHECK(again->tokens()->expiresAt->time_since_epoch() == std::chrono::seconds(2000000000));
    CHECK(again->client()->tokenEndpointAuthMethod == "client_secret_post");
    again->clearTokens();
    CHECK_FALSE(mcp::makeFileOAuthStore(path)->tokens());
    CHECK(mcp::makeFileOAuthStore(path)->client());
    std::filesystem::remove_all(dir);

    auto memory = mcp::makeMemoryOAuthStore();
    memory->saveTokens({"t", "", "", {}});
    CHECK(memory->tokens()->accessToken == "t");
}

TEST_CASE("oauth: the mcpServers format configures OAuth", "[mcp][oauth][config]") {
    auto servers = mcp::parseServers(json::parse(R"({"mcpServers": {
        "plain": {"url": "https://h/mcp"},
        "keyed": {"url": "https://h/mcp", "headers": {"authorization": "Bearer x"}},
        "off": {"url": "https://h/mcp", "oauth": false},
        "set": {"url": "https://h/mcp", "oauth": {"clientId": "c", "clientSecret": "s", "scopes": ["a", "b"],
                "redirectUri": "http://127.0.0.1:9/cb", "authorizationTimeoutMs": 1000}},
        "stdio": {"command": "x"}}})"));
    REQUIRE(servers);
    REQUIRE(servers->size() == 5);
    CHECK_FALSE(servers->at(0).oauth);  // keyed: its own Authorization header
    CHECK_FALSE(servers->at(1).oauth);  // off
    CHECK(servers->at(2).oauth);        // plain
    REQUIRE(servers->at(3).oauth);      // set
    CHECK(servers->at(3).oauth->scopes == std::vector<std::string>{"a", "b"});
    CHECK(servers->at(3).oauth->authorizationTimeout == std::chrono::milliseconds(1000));
    CHECK_FALSE(servers->at(4).oauth);  // stdio

    const auto bad = [](const char* text) {
        auto parsed = mcp::parseServers(json::parse(text));
        REQUIRE_FALSE(parsed);
        return parsed.error().message;
    };
    CHECK(bad(R"({"a": {"url": "https://h", "oauth": "yes"}})").find("`oauth`") != std::string::npos);
    CHECK(bad(R"({"a": {"url": "https://h", "oauth": {"scopes": "a b"}}})").find("oauth.scopes") !=
          std::string::npos);
    CHECK(bad(R"({"a": {"url": "https://h", "oauth": {"clientSecret": "s"}}})").find("clientId") !=
          std::string::npos);
    CHECK(bad(R"({"a": {"url": "https://h", "oauth": {"clientMetadataUrl": "http://x"}}})").find("https") !=
          std::string::npos);
    CHECK(bad(R"({"a": {"url": "ws://h", "oauth": true}})").find("streamable-http") != std::string::npos);
}
