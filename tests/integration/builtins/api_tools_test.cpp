// web-search and crypto-price against the loopback tools peer, which speaks Tavily's and CoinGecko's
// formats.

#include <catch2/catch.hpp>
#include <cstdlib>

#include "network_test_support.hpp"

using namespace reagent;
using namespace reagent::test;
using nlohmann::json;

TEST_CASE("web-search returns title url and content of each result", "[builtins][web-search]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::webSearchTool(peerOptions(peer)));

    const auto out =
        callJson(tool, {{"query", "reagent runtime"}, {"maxResults", 3}, {"searchDepth", "advanced"}});

    CHECK(out["query"] == "reagent runtime");
    REQUIRE(out["results"].size() == 3);
    CHECK(out["results"][0] == json{{"title", "Result 0 for reagent runtime"},
                                    {"url", "https://example.com/0"},
                                    {"content", "content 0"}});
    CHECK(peerRequests(peer) == std::vector<std::string>{"POST /search HTTP/1.1"});
}

TEST_CASE("web-search without an API key says the tool is inactive", "[builtins][web-search]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);

    SECTION("an empty key in the options") {
        options.tavilyApiKey = "";
    }
    SECTION("no key in the options and none in the environment") {
        options.tavilyApiKey.reset();
        ::unsetenv("TAVILY_API_KEY");
    }
    const auto result = call(made(builtins::webSearchTool(options)), {{"query", "anything"}});

    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "web-search is inactive"));
    CHECK(contains(result.error().message, "TAVILY_API_KEY"));
    CHECK(peerRequests(peer).empty());
}

TEST_CASE("web-search errors never show the API key", "[builtins][web-search][security]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    const std::string key = "tvly-wrong-secret-4242";
    options.tavilyApiKey = key;

    SECTION("a refused key") {
        const auto result = call(made(builtins::webSearchTool(options)), {{"query", "q"}});
        REQUIRE_FALSE(result);
        CHECK(contains(result.error().message, "HTTP 401"));
        CHECK_FALSE(contains(result.error().describe(), key));
    }
    SECTION("rate limited") {
        options.tavilyBaseUrl = peer.url("/limited");
        const auto result = call(made(builtins::webSearchTool(options)), {{"query", "q"}});
        REQUIRE_FALSE(result);
        CHECK(contains(result.error().message, "HTTP 429"));
        CHECK(contains(result.error().message, "retry after 30 seconds"));
        CHECK_FALSE(contains(result.error().describe(), key));
    }
    SECTION("an unreachable server") {
        const ClosedPort closed;
        options.tavilyBaseUrl = closed.url();
        const auto result = call(made(builtins::webSearchTool(options)), {{"query", "q"}});
        REQUIRE_FALSE(result);
        CHECK_FALSE(contains(result.error().describe(), key));
    }
}

TEST_CASE("crypto-price batches symbols and marks unknown ones notFound", "[builtins][crypto-price]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::cryptoPriceTool(peerOptions(peer)));

    const auto out = callJson(tool, {{"coins", {"btc", "ETH", "FOO", "DOGE"}}});

    CHECK(out["currency"] == "usd");
    CHECK(out["source"] == "coingecko");
    REQUIRE(out["prices"].size() == 4);
    CHECK(out["prices"][0] ==
          json{{"symbol", "BTC"}, {"name", "Bitcoin"}, {"price", 50000.5}, {"currency", "usd"}});
    CHECK(out["prices"][1]["price"] == 3000.25);
    CHECK(out["prices"][2] == json{{"symbol", "FOO"}, {"notFound", true}});
    // Known here, but the server had no price for it.
    CHECK(out["prices"][3] == json{{"symbol", "DOGE"}, {"notFound", true}});
    const auto requests = peerRequests(peer);
    REQUIRE(requests.size() == 1);
    CHECK(contains(requests[0], "ids=bitcoin,ethereum,dogecoin&vs_currencies=usd"));
}

TEST_CASE("crypto-price reuses a price for 60 s per coin and currency", "[builtins][crypto-price][cache]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::cryptoPriceTool(peerOptions(peer)));

    CHECK(callJson(tool, {{"coins", {"BTC"}}})["prices"][0]["price"] == 50000.5);
    CHECK(callJson(tool, {{"coins", {"btc"}}})["prices"][0]["price"] == 50000.5);
    CHECK(peerRequests(peer).size() == 1);

    // Another currency is fetched; a batch fetches only the coins it lacks.
    CHECK(callJson(tool, {{"coins", {"BTC"}}, {"currency", "EUR"}})["prices"][0]["price"] == 46000.0);
    const auto batch = callJson(tool, {{"coins", {"BTC", "SOL"}}});
    CHECK(batch["prices"][1]["price"] == 150.0);
    const auto requests = peerRequests(peer);
    REQUIRE(requests.size() == 3);
    CHECK(contains(requests[1], "ids=bitcoin&vs_currencies=eur"));
    CHECK(contains(requests[2], "ids=solana&vs_currencies=usd"));
}

TEST_CASE("crypto-price with a zero cache time asks every time", "[builtins][crypto-price][cache]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    options.priceCacheTtl = std::chrono::milliseconds(0);
    const auto tool = made(builtins::cryptoPriceTool(options));

    CHECK(callJson(tool, {{"coins", {"BTC"}}})["prices"][0]["price"] == 50000.5);
    CHECK(callJson(tool, {{"coins", {"BTC"}}})["prices"][0]["price"] == 50000.5);
    CHECK(peerRequests(peer).size() == 2);
}

TEST_CASE("crypto-price reports a 429 with the retry hint", "[builtins][crypto-price]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    options.coingeckoBaseUrl = peer.url("/limited");
    const auto result = call(made(builtins::cryptoPriceTool(options)), {{"coins", {"BTC"}}});

    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "CoinGecko is rate limiting requests (HTTP 429)"));
    CHECK(contains(result.error().message, "retry after 30 seconds"));
}

TEST_CASE("crypto-price refuses an unsupported currency before any request", "[builtins][crypto-price]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::cryptoPriceTool(peerOptions(peer)));

    const auto result = call(tool, {{"coins", {"BTC"}}, {"currency", "chf"}});

    REQUIRE_FALSE(result);
    CHECK(result.error().code == tools::ToolErrc::invalid_arguments);
    CHECK(peerRequests(peer).empty());
    // Only unknown symbols: no request either.
    CHECK(callJson(tool, {{"coins", {"FOO"}}})["prices"][0]["notFound"] == true);
    CHECK(peerRequests(peer).empty());
}

TEST_CASE("networkTools makes the three tools", "[builtins][network]") {
    const auto tools = builtins::networkTools();
    REQUIRE(tools);
    REQUIRE(tools->size() == 3);
    CHECK((*tools)[0].definition.name == "http-get");
    CHECK((*tools)[1].definition.name == "web-search");
    CHECK((*tools)[2].definition.name == "crypto-price");
    CHECK((*tools)[2].definition.inputSchema["required"] == json::array({"coins"}));
}
