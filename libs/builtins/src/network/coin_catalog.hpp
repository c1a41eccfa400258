#pragma once
// The coins crypto-price knows: ticker symbols mapped to CoinGecko ids (no I/O).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::builtins::detail {

struct Coin {
    /// Upper-case ticker: "BTC".
    std::string_view symbol;
    /// CoinGecko's id: "bitcoin".
    std::string_view id;
    /// Display name: "Bitcoin".
    std::string_view name;
};

/// The coin of `symbol` (any case, surrounding blanks ignored), or nothing for an unknown symbol.
[[nodiscard]] std::optional<Coin> findCoin(std::string_view symbol);

/// Every supported symbol, in the catalogue's order (for the tool's description).
[[nodiscard]] std::vector<std::string_view> coinSymbols();

}  // namespace reagent::builtins::detail
