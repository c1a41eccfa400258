// http-get: fetches a URL the model chose, under the network rule (see NetworkToolOptions).
//
// DNS rebinding: a name may resolve to a public address when checked and to a private one when the
// connection is made (a short TTL, or a resolver answering differently each time). The tool therefore
// resolves the host once, checks every address, and hands the checked address to the HTTP client
// (`HttpRequest::connectAddress`), which connects to it without resolving again; `Host`, TLS SNI and
// certificate verification keep the URL's name. No proxy is used, since a proxy would resolve the name
// itself. Each redirect is a new URL: parsed, resolved and checked again before anything is sent.

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <charconv>
#include <memory>

#include "network/address_rule.hpp"
#include "network/checked_resolve.hpp"
#include "network/http_get_result.hpp"
#include "network/network_common.hpp"
#include "reagent/builtins/network_tools.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace reagent::builtins {

namespace {

using nlohmann::json;
using tools::ToolError;
using tools::ToolResult;

struct HttpGetState {
    NetworkToolOptions options;
    std::shared_ptr<const detail::AddressRule> rule;
    http::HttpClient client;
};

struct WebTarget {
    std::string host;
    std::uint16_t port = 0;
};

expected<WebTarget, ToolError> parseWebUrl(const std::string& url) {
    const auto parsed = boost::urls::parse_uri(url);
    if (!parsed) {
        return fail(ToolError::failure(
            "'" + url + "' is not an absolute URL; pass one such as https://example.com/page"));
    }
    const auto scheme = parsed->scheme_id();
    if (scheme != boost::urls::scheme::http && scheme != boost::urls::scheme::https) {
        return fail(ToolError::failure("only http:// and https:// URLs can be fetched, not '" +
                                       std::string(parsed->scheme()) + ":'"));
    }
    WebTarget target;
    target.host = parsed->host_address();
    if (target.host.empty() || parsed->host_type() == boost::urls::host_type::ipvfuture)
        return fail(ToolError::failure("the URL '" + url + "' has no usable host"));
    target.port = scheme == boost::urls::scheme::https ? 443 : 80;
    if (parsed->has_port()) {
        const auto text = parsed->port();
        unsigned port = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
        if (ec != std::errc{} || end != text.data() + text.size() || port == 0 || port > 65535)
            return fail(ToolError::failure("the URL '" + url + "' has a bad port"));
        target.port = static_cast<std::uint16_t>(port);
    }
    return target;
}

bool isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

expected<std::string, ToolError> redirectTarget(const std::string& from, std::string_view location) {
    const auto reference = boost::urls::parse_uri_reference(location);
    boost::urls::url next(from);
    if (!reference || !next.resolve(*reference)) {
        return fail(ToolError::failure("the server at " + from + " redirected to an invalid location '" +
                                       std::string(location) + "'"));
    }
    next.remove_fragment();
    return std::string(next.buffer());
}

// One GET pinned to one of `addresses` (the next is tried when a connection is refused). The body of a
// redirect is not read.
Task<expected<detail::FetchedResponse, ToolError>> fetch(std::shared_ptr<HttpGetState> state, std::string url,
                                                         std::vector<std::string> addresses) {
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        http::HttpRequest request;
        request.url = url;
        request.connectAddress = addresses[i];
        request.timeout = state->options.requestTimeout;
        request.headers.add("Accept", "text/html, application/json;q=0.9, text/*;q=0.8, */*;q=0.5");
        auto opening = state->client.stream(std::move(request));
        auto opened = co_await std::move(opening);
        if (!opened) {
            if (opened.error().code == http::HttpErrc::connect_failed && i + 1 < addresses.size()) continue;
            co_return fail(detail::httpFailure("GET " + url, opened.error()));
        }
        detail::FetchedResponse out;
        out.head = opened->head();
        if (isRedirect(out.head.status) && out.head.headers.contains("location")) co_return out;
        const std::size_t limit = state->options.maxDownloadBytes;
        for (;;) {
            auto reading = opened->next();
            auto piece = co_await std::move(reading);
            if (!piece) co_return fail(detail::httpFailure("GET " + url, piece.error()));
            if (!*piece) break;
            if (out.body.size() + (*piece)->size() > limit) {
                // Stop reading: destroying the stream closes the connection.
                out.body.append(**piece, 0, limit - out.body.size());
                out.downloadCut = true;
                std::uint64_t length = 0;
                const auto declared = out.head.headers.find("content-length").value_or("");
                const auto [end, ec] =
                    std::from_chars(declared.data(), declared.data() + declared.size(), length);
                if (ec == std::errc{} && end == declared.data() + declared.size() && length > out.body.size())
                    out.bytesNotDownloaded = length - out.body.size();
                break;
            }
            out.body += **piece;
        }
        co_return out;
    }
    co_return fail(ToolError::failure("no address to connect to for " + url));
}

Task<ToolResult> runHttpGet(std::shared_ptr<HttpGetState> state, json args) {
    std::string url = args.value("url", std::string());
    std::vector<std::string> redirects;
    for (;;) {
        // After a redirect, errors say where it led, so the model does not blame the URL it gave.
        const std::string hop = redirects.empty() ? std::string() : "after a redirect to " + url + ": ";
        const auto target = parseWebUrl(url);
        if (!target) co_return fail(ToolError::failure(hop + target.error().message));
        auto lookup =
            detail::resolveChecked(target->host, target->port, state->rule, state->options.requestTimeout);
        auto addresses = co_await std::move(lookup);
        if (!addresses) co_return fail(ToolError::failure(hop + addresses.error().message));
        auto fetching = fetch(state, url, std::move(*addresses));
        auto fetched = co_await std::move(fetching);
        if (!fetched) co_return fail(ToolError::failure(hop + fetched.error().message));
        const auto location = fetched->head.headers.find("location");
        // maxRedirects 0: the redirect itself is the result (its Location among the headers).
        if (isRedirect(fetched->head.status) && location && state->options.maxRedirects > 0) {
            if (static_cast<int>(redirects.size()) >= state->options.maxRedirects) {
                co_return fail(ToolError::failure(
                    "too many redirects: more than " + std::to_string(state->options.maxRedirects) +
                    " starting from " + args.value("url", std::string()) + " (the last led to " +
                    std::string(*location) + "); the page may loop, do not retry"));
            }
            auto next = redirectTarget(url, *location);
            if (!next) co_return fail(next.error());
            url = std::move(*next);
            redirects.push_back(url);
            continue;
        }
        fetched->url = url;
        fetched->redirects = std::move(redirects);
        co_return detail::jsonText(
            detail::describeResponse(std::move(*fetched), state->options.maxBodyBytes));
    }
}

expected<std::shared_ptr<const detail::AddressRule>, ToolError> makeRule(const NetworkToolOptions& options) {
    std::vector<detail::AddressRange> ranges;
    for (const auto& entry : options.allowedPrivateRanges) {
        auto range = detail::parseAddressRange(entry);
        if (!range) {
            return fail(ToolError{tools::ToolErrc::invalid_definition,
                                  "http-get: allowedPrivateRanges: " + range.error()});
        }
        ranges.push_back(*range);
    }
    return std::make_shared<const detail::AddressRule>(options.allowPrivateNetwork, std::move(ranges));
}

http::HttpClientConfig clientConfig(const NetworkToolOptions& options) {
    http::HttpClientConfig config = options.http;
    // Never a proxy: it would resolve the host itself, past the network rule.
    config.proxy = http::ProxySettings{};
    // The tool caps the body itself (it keeps the first bytes instead of failing).
    config.maxBodyBytes = 0;
    config.requestTimeout = options.requestTimeout;
    return config;
}

}  // namespace

expected<tools::Tool, ToolError> httpGetTool(const NetworkToolOptions& options) {
    auto rule = makeRule(options);
    if (!rule) return fail(std::move(rule.error()));
    auto state = std::make_shared<HttpGetState>(
        HttpGetState{options, std::move(*rule), http::HttpClient(clientConfig(options))});
    tools::ParamOptions required;
    required.required = true;
    auto builder = tools::ToolBuilder::create("http-get");
    builder
        .description(
            "Fetch a web page or HTTP API with a GET request (http:// and https:// only). Returns JSON: "
            "url, status, selected headers, redirects followed, and the body (JSON parsed, HTML reduced "
            "to readable text, long bodies cut with bytesCut saying how much). Addresses on private, "
            "loopback or link-local networks are refused.")
        .param("url", "string", "Absolute http:// or https:// URL to fetch.", required)
        .category("http")
        .riskLevel(tools::RiskLevel::medium)
        .timeout(options.callTimeout)
        .action([](const json& args) { return "Fetching " + args.value("url", std::string()); })
        .handler([state](json args, tools::ToolContext) { return runHttpGet(state, std::move(args)); });
    return builder.build();
}

}  // namespace reagent::builtins
