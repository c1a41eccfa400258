// The request rules of reagent's HTTP servers (sans-io): Host, Origin, bearer token, Content-Type.

#include "reagent/http/server_rules.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/predicate.hpp>
#include <cctype>
#include <stdexcept>

#include "reagent/http/base64_url.hpp"
#include "reagent/http/http_headers.hpp"

namespace reagent::http {

namespace {

[[nodiscard]] std::string lower(std::string_view text) {
    return boost::algorithm::to_lower_copy(std::string(text));
}

// `host[:port]` without the port; `[::1]:80` keeps its brackets.
[[nodiscard]] std::string_view withoutPort(std::string_view host) noexcept {
    if (host.starts_with('[')) {
        const std::size_t close = host.find(']');
        return close == std::string_view::npos ? host : host.substr(0, close + 1);
    }
    const std::size_t colon = host.rfind(':');
    return colon == std::string_view::npos ? host : host.substr(0, colon);
}

[[nodiscard]] bool listed(const std::vector<std::string>& list, std::string_view value) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& item) { return boost::algorithm::iequals(item, value); });
}

[[nodiscard]] std::optional<Refusal> checkHostAndOrigin(std::string_view host,
                                                        std::optional<std::string_view> origin,
                                                        const CallerPolicy& policy) {
    const std::string_view name = withoutPort(host);
    if (policy.loopback) {
        if (!isLocalHost(host) && !listed(policy.allowedHosts, name)) {
            return Refusal{
                403,
                "Forbidden: the Host header '" + std::string(host) +
                    "' is not this server's (a local server accepts localhost, 127.0.0.1 and [::1]; "
                    "list other names in the server's allowed hosts)",
                {}};
        }
    } else if (!policy.allowedHosts.empty() && !listed(policy.allowedHosts, name)) {
        return Refusal{
            403,
            "Forbidden: the Host header '" + std::string(host) + "' is not in this server's allowed hosts",
            {}};
    }
    if (origin && !isLocalOrigin(*origin) && !listed(policy.allowedOrigins, *origin)) {
        return Refusal{403,
                       "Forbidden: requests from the origin '" + std::string(*origin) +
                           "' are not allowed (list it in the server's allowed origins)",
                       {}};
    }
    return std::nullopt;
}

using Digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

[[nodiscard]] Digest sha256(std::string_view text) {
    Digest digest{};
    SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
    return digest;
}

}  // namespace

bool isLocalHost(std::string_view host) noexcept {
    const std::string name = lower(withoutPort(host));
    return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

bool isLocalOrigin(std::string_view origin) noexcept {
    const std::string text = lower(origin);
    std::string_view rest(text);
    if (rest.starts_with("http://")) {
        rest.remove_prefix(7);
    } else if (rest.starts_with("https://")) {
        rest.remove_prefix(8);
    } else {
        return false;
    }
    if (rest.ends_with('/')) {
        rest.remove_suffix(1);
    }
    return rest.find('/') == std::string_view::npos && isLocalHost(rest);
}

bool bearerMatches(std::optional<std::string_view> authorization, std::string_view expected) {
    if (!authorization) {
        return false;
    }
    const std::string_view value = trimWhitespace(*authorization);
    const std::size_t space = value.find(' ');
    if (space == std::string_view::npos || lower(value.substr(0, space)) != "bearer") {
        return false;
    }
    // Equal-length digests compared without an early exit: the time taken says nothing of the token.
    const Digest sent = sha256(trimWhitespace(value.substr(space + 1)));
    const Digest wanted = sha256(expected);
    return CRYPTO_memcmp(sent.data(), wanted.data(), sent.size()) == 0;
}

std::optional<Refusal> checkCaller(const CallerHeaders& headers, const CallerPolicy& policy) {
    if (!headers.host) {
        return Refusal{400, "Bad Request: no Host header", {}};
    }
    if (auto refused = checkHostAndOrigin(*headers.host, headers.origin, policy)) {
        return refused;
    }
    if (policy.bearerToken && !bearerMatches(headers.authorization, *policy.bearerToken)) {
        if (!headers.authorization) {
            return Refusal{
                401,
                "Unauthorized: this server needs a bearer token; send Authorization: Bearer <token> "
                "(the token the server printed at start, or the one it was given)",
                "Bearer"};
        }
        return Refusal{401,
                       "Unauthorized: the Authorization header does not carry this server's bearer token",
                       "Bearer error=\"invalid_token\""};
    }
    return std::nullopt;
}

std::optional<Refusal> checkJsonContentType(std::optional<std::string_view> contentType) {
    if (!contentType) {
        return std::nullopt;
    }
    const std::string type = lower(trimWhitespace(contentType->substr(0, contentType->find(';'))));
    if (type == "application/json") {
        return std::nullopt;
    }
    return Refusal{415, "Unsupported Media Type: POST JSON with Content-Type: application/json", {}};
}

std::string newBearerToken() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        // No secure random source: nothing safe can be generated (a broken system, not a user error).
        throw std::runtime_error("RAND_bytes failed: no secure random source for a bearer token");
    }
    return base64Url(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::optional<std::string> invalidBearerToken(std::string_view token) {
    if (token.empty()) {
        return "the token is empty";
    }
    const std::size_t padding = token.find_last_not_of('=');
    if (padding == std::string_view::npos) {
        return "the token is only '=' padding";
    }
    for (const char c : token.substr(0, padding + 1)) {
        const bool allowed = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' ||
                             c == '_' || c == '~' || c == '+' || c == '/';
        if (!allowed) {
            return "the token holds a character a bearer token cannot (only letters, digits, -._~+/ and "
                   "trailing =)";
        }
    }
    return std::nullopt;
}

}  // namespace reagent::http
