#include "network/coin_catalog.hpp"

#include <cctype>

namespace reagent::builtins::detail {

namespace {

// The coins crypto-price knows by symbol. MATIC was renamed POL; both map to CoinGecko's current token.
constexpr Coin kCoins[] = {
    {"BTC", "bitcoin", "Bitcoin"},
    {"ETH", "ethereum", "Ethereum"},
    {"XRP", "ripple", "XRP"},
    {"XLM", "stellar", "Stellar"},
    {"SOL", "solana", "Solana"},
    {"ADA", "cardano", "Cardano"},
    {"DOGE", "dogecoin", "Dogecoin"},
    {"DOT", "polkadot", "Polkadot"},
    {"AVAX", "avalanche-2", "Avalanche"},
    {"MATIC", "polygon-ecosystem-token", "Polygon"},
    {"POL", "polygon-ecosystem-token", "Polygon"},
    {"LINK", "chainlink", "Chainlink"},
    {"LTC", "litecoin", "Litecoin"},
    {"BCH", "bitcoin-cash", "Bitcoin Cash"},
    {"UNI", "uniswap", "Uniswap"},
    {"ATOM", "cosmos", "Cosmos Hub"},
    {"NEAR", "near", "NEAR Protocol"},
    {"ARB", "arbitrum", "Arbitrum"},
    {"OP", "optimism", "Optimism"},
    {"SUI", "sui", "Sui"},
    {"APT", "aptos", "Aptos"},
    {"TRX", "tron", "TRON"},
    {"TON", "the-open-network", "Toncoin"},
    {"SHIB", "shiba-inu", "Shiba Inu"},
    {"PEPE", "pepe", "Pepe"},
    {"FIL", "filecoin", "Filecoin"},
    {"ICP", "internet-computer", "Internet Computer"},
    {"VET", "vechain", "VeChain"},
    {"ALGO", "algorand", "Algorand"},
    {"HBAR", "hedera-hashgraph", "Hedera"},
};

}  // namespace

std::optional<Coin> findCoin(std::string_view symbol) {
    while (!symbol.empty() && std::isspace(static_cast<unsigned char>(symbol.front())))
        symbol.remove_prefix(1);
    while (!symbol.empty() && std::isspace(static_cast<unsigned char>(symbol.back())))
        symbol.remove_suffix(1);
    for (const auto& coin : kCoins) {
        if (coin.symbol.size() != symbol.size()) continue;
        bool same = true;
        for (std::size_t i = 0; i < symbol.size() && same; ++i)
            same = std::toupper(static_cast<unsigned char>(symbol[i])) == coin.symbol[i];
        if (same) return coin;
    }
    return std::nullopt;
}

std::vector<std::string_view> coinSymbols() {
    std::vector<std::string_view> out;
    for (const auto& coin : kCoins) out.push_back(coin.symbol);
    return out;
}

}  // namespace reagent::builtins::detail
