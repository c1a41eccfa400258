// http-get against the loopback tools peer: bodies, caps, redirects and the network rule.

#include <catch2/catch.hpp>

#include "network_test_support.hpp"

using namespace reagent;
using namespace reagent::test;
using nlohmann::json;

TEST_CASE("http-get returns status and headers with a JSON body parsed", "[builtins][http-get]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::httpGetTool(peerOptions(peer)));

    const auto out = callJson(tool, {{"url", peer.url("/json")}});

    CHECK(out["status"] == 200);
    CHECK(out["url"] == peer.url("/json"));
    CHECK(out["format"] == "json");
    CHECK(out["headers"]["content-type"] == "application/json");
    CHECK(out["body"]["name"] == "peer");
    CHECK(out["body"]["nested"]["ok"] == true);
    CHECK_FALSE(out.contains("redirects"));
}

TEST_CASE("http-get reduces HTML to readable text", "[builtins][http-get][html]") {
    auto peer = startToolsPeer();
    const auto out = callJson(made(builtins::httpGetTool(peerOptions(peer))), {{"url", peer.url("/html")}});

    CHECK(out["format"] == "html-text");
    CHECK(out["title"] == "Peer & Page");
    const auto body = out["body"].get<std::string>();
    // Markdown: the <h1> as a heading, paragraphs apart, the list items as "- " lines.
    CHECK(body ==
          "# Hello world\n\nFish & chips <3 \u00e9t\u00e9 \"q\"\n\none two three\n\n- first\n- second\n");
    CHECK_FALSE(contains(body, "secret"));
    CHECK_FALSE(contains(body, "color"));
    CHECK_FALSE(contains(body, "comment"));
    CHECK_FALSE(contains(body, "enable scripts"));
}

TEST_CASE("http-get describes a binary body and returns a 404 as a result", "[builtins][http-get]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::httpGetTool(peerOptions(peer)));

    const auto binary = callJson(tool, {{"url", peer.url("/binary")}});
    CHECK(binary["format"] == "binary");
    CHECK(binary["body"].is_null());
    CHECK(contains(binary["note"].get<std::string>(), "image/png"));

    const auto missing = callJson(tool, {{"url", peer.url("/nothing-here")}});
    CHECK(missing["status"] == 404);
}

TEST_CASE("http-get caps the body text and says how many bytes were cut", "[builtins][http-get][cap]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    options.maxBodyBytes = 1000;
    options.maxDownloadBytes = 20000;
    const auto tool = made(builtins::httpGetTool(options));

    SECTION("the text shown") {
        const auto out = callJson(tool, {{"url", peer.url("/text?bytes=5000")}});
        CHECK(out["body"].get<std::string>().size() == 1000);
        CHECK(out["bytesCut"] == 4000);
        CHECK(out["bodyBytes"] == 5000);
        CHECK_FALSE(out.contains("downloadCut"));
    }
    SECTION("the download, with a Content-Length") {
        const auto out = callJson(tool, {{"url", peer.url("/text?bytes=50000")}});
        CHECK(out["downloadCut"] == true);
        CHECK(out["bodyBytes"] == 20000);
        CHECK(out["bytesNotDownloaded"] == 30000);
        CHECK(out["bytesCut"] == 19000);
    }
    SECTION("the download, chunked") {
        const auto out = callJson(tool, {{"url", peer.url("/stream?bytes=50000")}});
        CHECK(out["downloadCut"] == true);
        CHECK(out["bodyBytes"] == 20000);
        CHECK_FALSE(out.contains("bytesNotDownloaded"));
    }
}

TEST_CASE("http-get follows a bounded number of redirects", "[builtins][http-get][redirect]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    options.maxRedirects = 3;
    const auto tool = made(builtins::httpGetTool(options));

    const auto relative = callJson(tool, {{"url", peer.url("/redirect?to=/json&status=301")}});
    CHECK(relative["status"] == 200);
    CHECK(relative["url"] == peer.url("/json"));
    CHECK(relative["redirects"] == json::array({peer.url("/json")}));

    const auto chain = callJson(tool, {{"url", peer.url("/loop?n=3")}});
    CHECK(chain["body"]["arrived"] == true);
    CHECK(chain["redirects"].size() == 3);

    const auto tooMany = call(tool, {{"url", peer.url("/loop?n=4")}});
    REQUIRE_FALSE(tooMany);
    CHECK(contains(tooMany.error().message, "too many redirects"));

    auto noFollow = peerOptions(peer);
    noFollow.maxRedirects = 0;
    const auto shown =
        callJson(made(builtins::httpGetTool(noFollow)), {{"url", peer.url("/redirect?to=/json")}});
    CHECK(shown["status"] == 302);
    CHECK(shown["headers"]["location"] == "/json");

    const auto toFile = call(tool, {{"url", peer.url("/redirect?to=file:///etc/passwd")}});
    REQUIRE_FALSE(toFile);
    CHECK(contains(toFile.error().message, "only http:// and https://"));
}

TEST_CASE("A redirect from an allowed host to a private address is refused",
          "[builtins][http-get][security]") {
    auto peer = startToolsPeer();
    // 127.0.0.1 is allowed (the peer), nothing else that is not public.
    const auto tool = made(builtins::httpGetTool(peerOptions(peer)));
    const std::string port = std::to_string(peer.port());
    const std::vector<std::pair<std::string, std::string>> targets{
        {"http://127.0.0.2:" + port + "/json", "127.0.0.2 is a loopback address"},
        {"http://10.1.2.3/admin", "10.1.2.3 is a private address"},
        {"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"},
        {"http://[::1]:" + port + "/json", "::1 is the loopback address"},
        {"http://[fd00::1]/", "fd00::1 is a unique local address"},
    };
    for (const auto& [target, why] : targets) {
        CAPTURE(target);
        const auto result = call(tool, {{"url", peer.url("/redirect?to=" + queryEncoded(target))}});
        REQUIRE_FALSE(result);
        CAPTURE(result.error().message);
        CHECK(contains(result.error().message, "after a redirect to " + target));
        CHECK(contains(result.error().message, why));
        CHECK(contains(result.error().message, "allowPrivateNetwork"));
    }
}

TEST_CASE("http-get refuses loopback and other private addresses by default",
          "[builtins][http-get][security]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    options.allowedPrivateRanges.clear();
    const auto tool = made(builtins::httpGetTool(options));
    const std::string port = std::to_string(peer.port());
    const std::vector<std::string> urls{
        "http://127.0.0.1:" + port + "/json",
        "http://localhost:" + port + "/json",
        "http://2130706433:" + port + "/json",  // 127.0.0.1 in decimal, resolved by getaddrinfo
        "http://[::ffff:127.0.0.1]:" + port + "/json",
        "http://0.0.0.0:" + port + "/json",
        "http://100.64.0.1/",
        "http://192.168.1.1/",
        "http://[fe80::1]/",
        "http://224.0.0.1/",
    };
    for (const auto& url : urls) {
        CAPTURE(url);
        const auto result = call(tool, {{"url", url}});
        REQUIRE_FALSE(result);
        CHECK(contains(result.error().message, "http-get refused"));
        CHECK(contains(result.error().message, "Do not retry"));
    }
    // Nothing reached the peer.
    CHECK(peerRequests(peer).empty());
}

TEST_CASE("allowPrivateNetwork lets http-get reach loopback by name", "[builtins][http-get][security]") {
    auto peer = startToolsPeer();
    auto options = peerOptions(peer);
    options.allowedPrivateRanges.clear();
    options.allowPrivateNetwork = true;
    const auto tool = made(builtins::httpGetTool(options));

    // localhost may resolve to ::1 first, where the peer does not listen: the next address is tried.
    const auto out = callJson(tool, {{"url", "http://localhost:" + std::to_string(peer.port()) + "/json"}});

    CHECK(out["status"] == 200);
    CHECK(out["body"]["name"] == "peer");
}

TEST_CASE("http-get refuses URLs it cannot fetch with errors the model can act on", "[builtins][http-get]") {
    auto peer = startToolsPeer();
    const auto tool = made(builtins::httpGetTool(peerOptions(peer)));

    const auto file = call(tool, {{"url", "file:///etc/passwd"}});
    REQUIRE_FALSE(file);
    CHECK(contains(file.error().message, "only http:// and https://"));

    const auto relative = call(tool, {{"url", "example.com/page"}});
    REQUIRE_FALSE(relative);
    CHECK(contains(relative.error().message, "not an absolute URL"));

    const auto unknown = call(tool, {{"url", "http://no-such-host.invalid/"}});
    REQUIRE_FALSE(unknown);
    CHECK(contains(unknown.error().message, "could not be resolved"));
}

TEST_CASE("A range that does not parse fails the tool's creation", "[builtins][http-get]") {
    builtins::NetworkToolOptions options;
    options.allowedPrivateRanges = {"10.0.0.0/40"};
    const auto tool = builtins::httpGetTool(options);
    REQUIRE_FALSE(tool);
    CHECK(tool.error().code == tools::ToolErrc::invalid_definition);
    CHECK(contains(tool.error().message, "10.0.0.0/40"));
}
