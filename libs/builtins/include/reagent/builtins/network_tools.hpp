#pragma once
/// \file
/// \brief The network tools: `http-get`, `web-search` (Tavily) and `crypto-price` (CoinGecko).

#include <vector>

#include "reagent/builtins/network_tool_options.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::builtins {

/// \brief `http-get`: GETs an `http://` or `https://` URL and returns JSON with the final `url`,
/// `status`, selected `headers`, the `redirects` followed and the `body` (JSON bodies parsed, HTML reduced
/// to text, binary bodies described, not shown), capped as `options` say.
///
/// A non-2xx status is a result, not an error. Errors (`ToolErrc::failed`, worded for the model): a URL
/// that is not absolute http(s), a host that does not resolve, an address refused by the network rule
/// (see `NetworkToolOptions`), too many redirects, a connection, TLS or timeout failure.
///
/// \par Errors at creation
/// `ToolErrc::invalid_definition` when an entry of `allowedPrivateRanges` does not parse.
[[nodiscard]] expected<tools::Tool, tools::ToolError> httpGetTool(const NetworkToolOptions& options = {});

/// \brief `web-search`: searches the web with the Tavily API; returns `{query, results: [{title, url,
/// content}]}`.
///
/// Without an API key every call fails with a message telling the model the tool is inactive. Errors
/// name the HTTP status (401/403: the key was refused; 429: rate limited, with the retry hint) and never
/// the key.
[[nodiscard]] expected<tools::Tool, tools::ToolError> webSearchTool(const NetworkToolOptions& options = {});

/// \brief `crypto-price`: current prices of well-known coins from CoinGecko's simple-price API; returns
/// `{prices: [{symbol, name, price, currency}], currency, source: "coingecko"}`, an unknown symbol
/// listed as `{symbol, notFound: true}`.
///
/// Prices are reused for `NetworkToolOptions::priceCacheTtl` per coin and currency (the tool holds the
/// cache; it is thread-safe). HTTP 429 fails with a message carrying the server's `Retry-After`.
[[nodiscard]] expected<tools::Tool, tools::ToolError> cryptoPriceTool(const NetworkToolOptions& options = {});

/// \brief The three tools above, in that order, made with the same options.
[[nodiscard]] expected<std::vector<tools::Tool>, tools::ToolError> networkTools(
    const NetworkToolOptions& options = {});

}  // namespace reagent::builtins
