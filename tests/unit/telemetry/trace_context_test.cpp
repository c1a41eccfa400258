#include "reagent/telemetry/trace_context.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "reagent/telemetry/id_generator.hpp"

using reagent::telemetry::formatTraceparent;
using reagent::telemetry::IdGenerator;
using reagent::telemetry::parseTraceparent;
using reagent::telemetry::SpanContext;
using reagent::telemetry::TelemetryErrc;
using reagent::telemetry::validTraceState;

namespace {

constexpr const char* kExample = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

std::string why(std::string_view header) {
    auto parsed = parseTraceparent(header);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code == TelemetryErrc::invalid_trace_context);
    return parsed.error().message;
}

}  // namespace

TEST_CASE("traceparent: the specification's example reads and writes back", "[telemetry][trace-context]") {
    auto parsed = parseTraceparent(kExample, "congo=t61rcWkgMzE");
    REQUIRE(parsed);
    CHECK(parsed->traceId.hex() == "4bf92f3577b34da6a3ce929d0e0e4736");
    CHECK(parsed->spanId.hex() == "00f067aa0ba902b7");
    CHECK(parsed->sampled());
    CHECK(parsed->remote);
    CHECK(parsed->traceState == "congo=t61rcWkgMzE");
    CHECK(formatTraceparent(*parsed) == kExample);

    SECTION("not sampled, and flags it does not know passed on as received") {
        auto unsampled = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
        REQUIRE(unsampled);
        CHECK_FALSE(unsampled->sampled());
        auto other = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03");
        REQUIRE(other);
        CHECK(other->flags == 0x03);
        CHECK(formatTraceparent(*other).substr(53) == "03");
    }
    SECTION("a later version may carry more after a '-'; it is read as version 00") {
        auto later = parseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes");
        REQUIRE(later);
        CHECK(formatTraceparent(*later) == kExample);
        CHECK(parseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
    }
    SECTION("surrounding spaces are not part of the header") {
        CHECK(parseTraceparent(std::string(" ") + kExample + "\t"));
    }
}

TEST_CASE("traceparent: every malformed header is refused, saying why", "[telemetry][trace-context]") {
    CHECK(why("") == "traceparent is invalid: it has 0 characters, fewer than the 55 of version 00");
    CHECK(why("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-") ==
          "traceparent is invalid: version 00 has exactly 55 characters, not 56");
    CHECK(why("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") ==
          "traceparent is invalid: version ff is not a version");
    CHECK(why("0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").find("version") !=
          std::string::npos);
    CHECK(why("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01") ==
          "traceparent is invalid: the trace id is not 32 lowercase hex digits");
    CHECK(why("00-00000000000000000000000000000000-00f067aa0ba902b7-01") ==
          "traceparent is invalid: the trace id is all zeros");
    CHECK(why("00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01") ==
          "traceparent is invalid: the parent id is not 16 lowercase hex digits");
    CHECK(why("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01") ==
          "traceparent is invalid: the parent id is all zeros");
    CHECK(why("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x") ==
          "traceparent is invalid: the flags are not two lowercase hex digits");
    CHECK(why("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") ==
          "traceparent is invalid: its fields are not separated by '-' where version 00 puts them");
    CHECK(why("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x") ==
          "traceparent is invalid: a later version's fields must follow the flags after a '-'");
}

TEST_CASE("tracestate: kept when valid, dropped when not", "[telemetry][trace-context]") {
    CHECK(validTraceState("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"));
    CHECK(validTraceState(" rojo=1 ,\tcongo=2 ,,"));
    CHECK(validTraceState("tenant@vendor=x,a-b_c*d/e=y z"));
    CHECK_FALSE(validTraceState(""));
    CHECK_FALSE(validTraceState("Upper=1"));
    CHECK_FALSE(validTraceState("rojo"));
    CHECK_FALSE(validTraceState("rojo=1,rojo=2"));  // a key appears once
    CHECK_FALSE(validTraceState("rojo=a,b"));
    CHECK_FALSE(validTraceState("rojo=a\tb"));  // a tab inside a value (around a member it is allowed)
    CHECK_FALSE(validTraceState("rojo=has=equals"));
    CHECK_FALSE(validTraceState("1abc=x"));  // a simple key starts with a letter
    CHECK_FALSE(validTraceState("t@Vendor=x"));
    CHECK_FALSE(validTraceState(std::string("k=") + std::string(257, 'v')));
    std::string many;
    for (int i = 0; i < 33; ++i) {
        many += (i ? "," : "") + std::string("k") + std::to_string(i) + "=v";
    }
    CHECK_FALSE(validTraceState(many));
    CHECK(validTraceState(many.substr(0, many.rfind(','))));  // 32 members

    auto parsed = parseTraceparent(kExample, "Bad Entry");
    REQUIRE(parsed);  // the context stands, without its invalid trace state
    CHECK(parsed->traceState.empty());
}

TEST_CASE("ids are random, never all zero, and reproducible from a seed", "[telemetry][ids]") {
    IdGenerator ids;
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const auto trace = ids.traceId();
        const auto span = ids.spanId();
        CHECK(trace.valid());
        CHECK(span.valid());
        seen.insert(trace.hex());
    }
    CHECK(seen.size() == 1000);

    IdGenerator first(42);
    IdGenerator second(42);
    CHECK(first.traceId() == second.traceId());
    CHECK(first.spanId() == second.spanId());
    CHECK_FALSE(IdGenerator(1).traceId() == IdGenerator(2).traceId());

    SpanContext context{IdGenerator(7).traceId(), IdGenerator(8).spanId(), reagent::telemetry::kSampledFlag};
    auto back = parseTraceparent(formatTraceparent(context));
    REQUIRE(back);
    CHECK(back->traceId == context.traceId);
    CHECK(back->spanId == context.spanId);
    CHECK(back->sampled());
}
