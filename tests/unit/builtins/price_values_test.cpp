// crypto-price's plain parts: the coin catalogue and the price cache.

#include <catch2/catch.hpp>

#include "network/coin_catalog.hpp"
#include "network/price_cache.hpp"

using namespace reagent::builtins::detail;
using namespace std::chrono_literals;

TEST_CASE("Coins are found by symbol in any case", "[builtins][crypto]") {
    const auto btc = findCoin(" btc ");
    REQUIRE(btc);
    CHECK(btc->id == "bitcoin");
    CHECK(btc->name == "Bitcoin");
    CHECK(findCoin("MATIC")->id == findCoin("pol")->id);
    CHECK(findCoin("Avax")->id == "avalanche-2");
    CHECK_FALSE(findCoin("FOO"));
    CHECK_FALSE(findCoin(""));
    CHECK(coinSymbols().size() == 30);
}

TEST_CASE("A price lives for the cache time, per currency", "[builtins][crypto][cache]") {
    PriceCache cache(60s);
    const auto t0 = PriceCache::Clock::time_point{} + 1000s;
    cache.store("usd", "bitcoin", 50000, t0);

    CHECK(cache.find("usd", "bitcoin", t0 + 59s) == 50000);
    CHECK_FALSE(cache.find("usd", "bitcoin", t0 + 60s));
    CHECK_FALSE(cache.find("eur", "bitcoin", t0));
    CHECK_FALSE(cache.find("usd", "ethereum", t0));

    PriceCache off(0s);
    off.store("usd", "bitcoin", 1, t0);
    CHECK_FALSE(off.find("usd", "bitcoin", t0));
}
