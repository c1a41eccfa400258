// crypto-price: current prices from CoinGecko's simple-price API, cached per coin and currency.

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include "network/coin_catalog.hpp"
#include "network/network_common.hpp"
#include "network/price_cache.hpp"
#include "reagent/builtins/network_tools.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace reagent::builtins {

namespace {

using nlohmann::json;
using tools::ToolError;
using tools::ToolResult;

constexpr std::string_view kCurrencies[] = {"usd", "eur", "gbp", "jpy", "btc", "eth"};

struct CryptoState {
    explicit CryptoState(const NetworkToolOptions& settings)
        : options(settings), client(settings.http), cache(settings.priceCacheTtl) {}

    NetworkToolOptions options;
    http::HttpClient client;
    detail::PriceCache cache;
};

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// Fetches the prices of `ids` in `currency` into `prices` (and the cache).
Task<expected<void, ToolError>> fetchPrices(std::shared_ptr<CryptoState> state, std::vector<std::string> ids,
                                            std::string currency, std::map<std::string, double>* prices) {
    std::string joined;
    for (const auto& id : ids) joined += (joined.empty() ? "" : ",") + id;
    http::HttpRequest request;
    request.url =
        state->options.coingeckoBaseUrl + "/api/v3/simple/price?ids=" + joined + "&vs_currencies=" + currency;
    request.headers.add("Accept", "application/json");
    request.timeout = state->options.requestTimeout;
    auto sending = state->client.send(std::move(request));
    auto response = co_await std::move(sending);
    if (!response) co_return fail(detail::httpFailure("CoinGecko", response.error()));
    if (response->status == 429)
        co_return fail(ToolError::failure(detail::rateLimited("CoinGecko", *response)));
    if (!response->ok()) {
        co_return fail(ToolError::failure("CoinGecko answered HTTP " + std::to_string(response->status) +
                                          ": " + detail::bodyExcerpt(response->body)));
    }
    const json body = parseUntrustedJson(response->body).value_or(json());
    if (!body.is_object()) {
        co_return fail(ToolError::failure("CoinGecko sent an answer that is not a JSON object: " +
                                          detail::bodyExcerpt(response->body)));
    }
    const auto now = detail::PriceCache::Clock::now();
    for (const auto& id : ids) {
        const auto coin = body.find(id);
        if (coin == body.end() || !coin->is_object()) continue;
        const auto price = coin->find(currency);
        if (price == coin->end() || !price->is_number()) continue;
        (*prices)[id] = price->get<double>();
        state->cache.store(currency, id, price->get<double>(), now);
    }
    co_return expected<void, ToolError>{};
}

Task<ToolResult> runCryptoPrice(std::shared_ptr<CryptoState> state, json args) {
    const std::string currency = lower(args.value("currency", std::string("usd")));
    if (std::find(std::begin(kCurrencies), std::end(kCurrencies), currency) == std::end(kCurrencies)) {
        co_return fail(
            ToolError{tools::ToolErrc::invalid_arguments,
                      "currency '" + currency + "' is not supported; use usd, eur, gbp, jpy, btc or eth"});
    }
    std::vector<std::string> symbols;
    for (const auto& item : args.value("coins", json::array())) {
        if (item.is_string()) symbols.push_back(item.get<std::string>());
    }
    if (symbols.empty()) {
        co_return fail(ToolError{tools::ToolErrc::invalid_arguments,
                                 "coins must list at least one symbol, e.g. [\"BTC\", \"ETH\"]"});
    }
    std::map<std::string, double> prices;
    std::vector<std::string> missing;
    const auto now = detail::PriceCache::Clock::now();
    for (const auto& symbol : symbols) {
        const auto coin = detail::findCoin(symbol);
        if (!coin) continue;
        const std::string id(coin->id);
        if (const auto cached = state->cache.find(currency, id, now)) {
            prices[id] = *cached;
        } else if (std::find(missing.begin(), missing.end(), id) == missing.end()) {
            missing.push_back(id);
        }
    }
    if (!missing.empty()) {
        auto fetching = fetchPrices(state, std::move(missing), currency, &prices);
        auto fetched = co_await std::move(fetching);
        if (!fetched) co_return fail(std::move(fetched.error()));
    }
    json list = json::array();
    for (const auto& symbol : symbols) {
        const auto coin = detail::findCoin(symbol);
        json entry;
        entry["symbol"] = coin ? std::string(coin->symbol) : symbol;
        const auto price = coin ? prices.find(std::string(coin->id)) : prices.end();
        if (price == prices.end()) {
            entry["notFound"] = true;
        } else {
            entry["name"] = std::string(coin->name);
            entry["price"] = price->second;
            entry["currency"] = currency;
        }
        list.push_back(std::move(entry));
    }
    json out;
    out["prices"] = std::move(list);
    out["currency"] = currency;
    out["source"] = "coingecko";
    co_return detail::jsonText(out);
}

std::string description() {
    std::string symbols;
    for (const auto symbol : detail::coinSymbols())
        symbols += (symbols.empty() ? "" : ", ") + std::string(symbol);
    return "Current cryptocurrency prices from CoinGecko. Always batch every coin you need into one call. "
           "Supported symbols: " +
           symbols +
           ". Returns {prices: [{symbol, name, price, currency}], currency, source}; an unknown symbol is "
           "listed with notFound: true. Prices are cached for a minute.";
}

}  // namespace

expected<tools::Tool, ToolError> cryptoPriceTool(const NetworkToolOptions& options) {
    auto state = std::make_shared<CryptoState>(options);
    tools::ParamOptions coins;
    coins.required = true;
    coins.items = json{{"type", "string"}};
    tools::ParamOptions currency;
    currency.defaultValue = "usd";
    auto builder = tools::ToolBuilder::create("crypto-price");
    builder.description(description())
        .param("coins", "array", "Coin symbols, e.g. [\"BTC\", \"ETH\", \"SOL\"] (case-insensitive).", coins)
        .param("currency", "string", "Quote currency: usd (default), eur, gbp, jpy, btc or eth.", currency)
        .category("data")
        .timeout(options.callTimeout)
        .action(
            [](const json& args) { return "Getting prices of " + args.value("coins", json::array()).dump(); })
        .handler([state](json args, tools::ToolContext) { return runCryptoPrice(state, std::move(args)); });
    return builder.build();
}

}  // namespace reagent::builtins
