#include "reagent/http/sse_parser.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

using namespace std::chrono_literals;
using reagent::http::SseEvent;
using reagent::http::SseParser;

namespace {

std::vector<SseEvent> parseChunks(const std::vector<std::string_view>& chunks) {
    SseParser parser;
    std::vector<SseEvent> events;
    for (const std::string_view chunk : chunks) {
        for (SseEvent& event : parser.feed(chunk)) {
            events.push_back(std::move(event));
        }
    }
    for (SseEvent& event : parser.finish()) {
        events.push_back(std::move(event));
    }
    return events;
}

std::vector<SseEvent> parseWhole(std::string_view stream) {
    return parseChunks({stream});
}

SseEvent event(std::string data, std::string type = "message", std::string id = {}) {
    SseEvent e;
    e.type = std::move(type);
    e.data = std::move(data);
    e.lastEventId = std::move(id);
    return e;
}

std::string describe(const std::vector<SseEvent>& events) {
    std::string text;
    for (const SseEvent& e : events) {
        text += "[" + e.type + "|" + e.data + "|" + e.lastEventId + "|" +
                (e.retry ? std::to_string(e.retry->count()) : std::string("-")) + "]";
    }
    return text;
}

// Every way of cutting `stream` in two, then in three around a moving middle piece, and byte by byte,
// must give the events of the whole stream.
void checkEverySplit(std::string_view stream) {
    const std::vector<SseEvent> expected = parseWhole(stream);
    INFO("stream: " << describe(expected));
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        INFO("cut at " << cut);
        REQUIRE(describe(parseChunks({stream.substr(0, cut), stream.substr(cut)})) == describe(expected));
    }
    for (std::size_t first = 0; first < stream.size(); ++first) {
        for (std::size_t length = 1; length <= 3 && first + length <= stream.size(); ++length) {
            INFO("pieces at " << first << " and " << first + length);
            REQUIRE(describe(parseChunks({stream.substr(0, first), stream.substr(first, length),
                                          stream.substr(first + length)})) == describe(expected));
        }
    }
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < stream.size(); ++i) {
        bytes.push_back(stream.substr(i, 1));
    }
    REQUIRE(describe(parseChunks(bytes)) == describe(expected));
}

}  // namespace

TEST_CASE("data lines are joined with LF and the last LF is dropped", "[http][sse]") {
    const auto events = parseWhole("data: YHOO\ndata: +2\ndata: 10\n\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0] == event("YHOO\n+2\n10"));
}

TEST_CASE("the spec's example stream: comments, ids, one leading space stripped", "[http][sse]") {
    const auto events = parseWhole(
        ": test stream\n\n"
        "data: first event\nid: 1\n\n"
        "data:second event\nid\n\n"
        "data:  third event\n\n");
    REQUIRE(events.size() == 3);
    CHECK(events[0] == event("first event", "message", "1"));
    // A bare `id` field sets the last event ID to the empty string.
    CHECK(events[1] == event("second event", "message", ""));
    // Only the first space after the colon goes.
    CHECK(events[2] == event(" third event", "message", ""));
}

TEST_CASE("fields without a colon, empty data and unterminated blocks", "[http][sse]") {
    // From the spec: the first block fires "", the second "\n", the last is never terminated.
    const auto events = parseWhole("data\n\ndata\ndata\n\ndata:");
    REQUIRE(events.size() == 2);
    CHECK(events[0].data.empty());
    CHECK(events[1].data == "\n");

    CHECK(describe(parseWhole("data:test\n\ndata: test\n\n")) == describe({event("test"), event("test")}));
}

TEST_CASE("event types, and blocks without data dispatch nothing", "[http][sse]") {
    const auto events = parseWhole(
        "event: add\ndata: 73857293\n\n"
        "event: remove\ndata: 2153\n\n"
        "event: ignored-no-data\n\n"
        "data: plain\n\n"
        "event\ndata: bare event field\n\n");
    REQUIRE(events.size() == 4);
    CHECK(events[0] == event("73857293", "add"));
    CHECK(events[1] == event("2153", "remove"));
    // The type of a block without data is dropped with it.
    CHECK(events[2] == event("plain", "message"));
    CHECK(events[3] == event("bare event field", "message"));
}

TEST_CASE("ids persist across events and an id containing NUL is ignored", "[http][sse]") {
    using namespace std::string_view_literals;
    const auto events =
        parseWhole("id: 7\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid: 8\n\ndata: d\n\n"sv);
    REQUIRE(events.size() == 4);
    CHECK(events[0].lastEventId == "7");
    CHECK(events[1].lastEventId == "7");
    CHECK(events[2].lastEventId == "7");
    // An id in a block without data still sets the buffer.
    CHECK(events[3].lastEventId == "8");
}

TEST_CASE("retry accepts ASCII digits only and persists", "[http][sse]") {
    SseParser parser;
    auto events = parser.feed(
        "retry: 1500\ndata: a\n\nretry: 15a\ndata: b\n\nretry:\nretry: -3\nretry: 2 \ndata: c\n\n");
    REQUIRE(events.size() == 3);
    CHECK(events[0].retry == 1500ms);
    CHECK(events[1].retry == 1500ms);
    CHECK(events[2].retry == 1500ms);
    // A retry in a block without data still sets the reconnection time.
    CHECK(parser.feed("retry: 300\n\n").empty());
    CHECK(parser.reconnectionTime() == 300ms);
    CHECK(parser.feed("retry: 99999999999999999999999\n\n").empty());
    CHECK(parser.reconnectionTime() == std::chrono::milliseconds::max());
}

TEST_CASE("unknown, case-different and comment lines are ignored", "[http][sse]") {
    const auto events =
        parseWhole(":keep-alive\nfoo: bar\nData: no\nDATA: no\n:data: no\ndata: a:b\n\n: ping\n\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0].data == "a:b");
    CHECK(parseWhole("data:\tx\n\n").at(0).data == "\tx");
}

TEST_CASE("CRLF, CR and LF all end lines, mixed in one stream", "[http][sse]") {
    CHECK(describe(parseWhole("data: a\r\n\r\n")) == describe({event("a")}));
    CHECK(describe(parseWhole("data: a\r\rdata: b\r\r")) == describe({event("a"), event("b")}));
    CHECK(describe(parseWhole("data: a\r\ndata: b\rdata: c\n\n")) == describe({event("a\nb\nc")}));
    // \n\r is two line ends: a blank line.
    CHECK(describe(parseWhole("data: a\n\rdata: b\n\n")) == describe({event("a"), event("b")}));
}

TEST_CASE("a CR ending one chunk and an LF starting the next make one line end", "[http][sse]") {
    CHECK(describe(parseChunks({"data: a\r", "\ndata: b\r", "\n\r", "\n"})) == describe({event("a\nb")}));
    // The CR still ends the line when something else follows it.
    CHECK(describe(parseChunks({"data: a\r", "data: b\r", "\r"})) == describe({event("a\nb")}));
    // An empty chunk between CR and LF changes nothing.
    CHECK(describe(parseChunks({"data: a\r", "", "\n\r\n"})) == describe({event("a")}));
}

TEST_CASE("one leading BOM is skipped, even split across chunks", "[http][sse]") {
    const std::string bom = "\xEF\xBB\xBF";
    const std::string stream = bom + "data: x\n\n";
    CHECK(describe(parseWhole(stream)) == describe({event("x")}));
    CHECK(describe(parseChunks({"\xEF", "\xBB", std::string_view(stream).substr(2)})) ==
          describe({event("x")}));
    // A second BOM is part of the first field's name, which is then unknown.
    CHECK(parseWhole(bom + stream).empty());
    // Bytes that only start like a BOM are data.
    CHECK(describe(parseChunks({"\xEF\xBB", "x\n\ndata: y\n\n"})) == describe({event("y")}));
    CHECK(describe(parseWhole("data: " + bom + "\n\n")) == describe({event(bom)}));
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, valid multi-byte text passes", "[http][sse]") {
    const std::string replacement = "\xEF\xBF\xBD";
    CHECK(parseWhole("data: \xFF\n\n").at(0).data == replacement);
    // A truncated sequence is one replacement; the byte that broke it is kept.
    CHECK(parseWhole("data: \xE2\x82x\n\n").at(0).data == replacement + "x");
    // Overlong forms and surrogates are invalid.
    CHECK(parseWhole("data: \xC0\xAF\n\n").at(0).data == replacement + replacement);
    CHECK(parseWhole("data: \xED\xA0\x80\n\n").at(0).data == replacement + replacement + replacement);
    CHECK(parseWhole("data: caf\xC3\xA9 \xF0\x9F\x98\x80\n\n").at(0).data == "caf\xC3\xA9 \xF0\x9F\x98\x80");
    // A character split across chunks is whole again.
    CHECK(parseChunks({"data: \xF0\x9F", "\x98", "\x80\n\n"}).at(0).data == "\xF0\x9F\x98\x80");
}

TEST_CASE("finish discards an unterminated event and re-arms the BOM check", "[http][sse]") {
    SseParser parser;
    CHECK(parser.feed("id: 5\nretry: 10\n\ndata: pending\n").empty());
    CHECK(parser.finish().empty());
    // A new stream (a reconnection): the pending data is gone, the id and retry remain.
    const auto events = parser.feed(std::string("\xEF\xBB\xBF") + "data: fresh\n\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0].data == "fresh");
    CHECK(events[0].lastEventId == "5");
    CHECK(events[0].retry == 10ms);
    CHECK(parseWhole("data: no blank line").empty());
    CHECK(parseWhole("data: half\r").empty());
}

TEST_CASE("events do not depend on how the bytes are split", "[http][sse][split]") {
    const std::vector<std::string_view> streams = {
        "event: message_start\ndata: {\"a\":1}\n\n: ping\n\nid: 3\ndata: x\ndata: y\n\n",
        "\xEF\xBB\xBF"
        "data: caf\xC3\xA9\r\n\r\nevent: e\rdata: \xF0\x9F\x98\x80\r\rretry: 250\r\ndata: z\r\n\r\n",
        "data\n\ndata\ndata\n\ndata:\r\n\r\n:c\r\nid: 9\r\n\r\ndata: last\n\n",
        // CRLF between the lines of one event: a CR|LF split must not end the event early.
        "event: multi\r\ndata: one\r\ndata: two\r\n: note\r\ndata: three\r\n\r\n",
        "data: \xE2\x82\r\n\r\ndata: \xFF\xFE\n\ndata: unterminated",
    };
    for (const std::string_view stream : streams) {
        checkEverySplit(stream);
    }
}
