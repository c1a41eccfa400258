#include "reagent/telemetry/tracer.hpp"

#include <catch2/catch.hpp>
#include <memory>

using namespace reagent::telemetry;

namespace {

// A trace id whose 56 random low bits are `low`.
TraceId traceWithRandomness(std::uint64_t low) {
    TraceId id;
    id.bytes[0] = 1;
    for (int i = 0; i < 7; ++i) {
        id.bytes[static_cast<std::size_t>(15 - i)] = static_cast<std::uint8_t>(low >> (8 * i));
    }
    return id;
}

}  // namespace

TEST_CASE("sampling: the built-in samplers", "[telemetry][sampler]") {
    const TraceId trace = IdGenerator(5).traceId();
    SpanContext sampledParent{IdGenerator(6).traceId(), IdGenerator(7).spanId(), kSampledFlag};
    SpanContext unsampledParent = sampledParent;
    unsampledParent.flags = 0;

    CHECK(shouldSample({SamplerKind::always_on}, &unsampledParent, trace));
    CHECK_FALSE(shouldSample({SamplerKind::always_off}, &sampledParent, trace));
    CHECK(shouldSample({SamplerKind::parentbased_always_on}, nullptr, trace));
    CHECK_FALSE(shouldSample({SamplerKind::parentbased_always_on}, &unsampledParent, trace));
    CHECK(shouldSample({SamplerKind::parentbased_always_off}, &sampledParent, trace));
    CHECK_FALSE(shouldSample({SamplerKind::parentbased_always_off}, nullptr, trace));

    SECTION("a ratio compares the trace's randomness with a threshold: deterministic and monotonic") {
        const SamplerConfig half{SamplerKind::traceidratio, 0.5};
        CHECK(shouldSample(half, nullptr, traceWithRandomness(0xFFFFFFFFFFFFFFULL)));
        CHECK(shouldSample(half, nullptr, traceWithRandomness(0x80000000000000ULL)));
        CHECK_FALSE(shouldSample(half, nullptr, traceWithRandomness(0x7FFFFFFFFFFFFFULL)));
        CHECK_FALSE(shouldSample({SamplerKind::traceidratio, 0.0}, nullptr,
                                 traceWithRandomness(0xFFFFFFFFFFFFFFULL)));
        CHECK(shouldSample({SamplerKind::traceidratio, 1.0}, nullptr, traceWithRandomness(0)));
        IdGenerator ids(9);
        int atQuarter = 0;
        for (int i = 0; i < 4000; ++i) {
            const TraceId id = ids.traceId();
            const bool quarter = shouldSample({SamplerKind::traceidratio, 0.25}, nullptr, id);
            if (quarter) {
                ++atQuarter;
                CHECK(shouldSample({SamplerKind::traceidratio, 0.5}, nullptr, id));  // monotonic
            }
            CHECK(quarter == shouldSample({SamplerKind::traceidratio, 0.25}, nullptr, id));  // deterministic
        }
        CHECK(atQuarter > 800);
        CHECK(atQuarter < 1200);
    }
    SECTION("parent-based with a ratio: the parent decides, a root uses the ratio") {
        const SamplerConfig config{SamplerKind::parentbased_traceidratio, 0.0};
        CHECK(shouldSample(config, &sampledParent, trace));
        CHECK_FALSE(shouldSample(config, nullptr, trace));
    }
}

TEST_CASE("spans: a tree with attributes, events and status reaches the sink when each ends",
          "[telemetry][tracer]") {
    auto sink = std::make_shared<InMemorySpanSink>();
    Tracer tracer(SamplerConfig{}, sink, IdGenerator(1));
    Span run = tracer.startSpan("invoke_agent helper", SpanKind::internal, nullptr, 1000);
    REQUIRE(run.recording());
    CHECK(run.context().sampled());
    run.setAttribute("gen_ai.operation.name", std::string("invoke_agent"));
    {
        Span chat = tracer.startSpan("chat m", SpanKind::client, &run.context(), 1100);
        chat.setAttribute("gen_ai.usage.input_tokens", std::int64_t{1});
        chat.setAttribute("gen_ai.usage.input_tokens", std::int64_t{40});  // replaced, not repeated
        chat.addEvent("gen_ai.retry", {{"attempt", std::int64_t{2}}}, 1150);
        chat.setStatus(StatusCode::error, "provider_failed: overloaded");
        CHECK(chat.context().traceId == run.context().traceId);
        // ends when it goes out of scope
    }
    run.setStatus(StatusCode::ok);
    run.setStatus(StatusCode::error, "too late");  // ok is final
    run.end(2000);
    run.end(3000);  // once

    const auto spans = sink->spans();
    REQUIRE(spans.size() == 2);
    const SpanData& chat = spans[0];
    CHECK(chat.name == "chat m");
    CHECK(chat.kind == SpanKind::client);
    CHECK(chat.parentSpanId == spans[1].context.spanId);
    CHECK(chat.startTimeUnixNano == 1100);
    CHECK(chat.endTimeUnixNano >= chat.startTimeUnixNano);
    REQUIRE(chat.attributes.size() == 1);
    CHECK(std::get<std::int64_t>(chat.attributes[0].value) == 40);
    REQUIRE(chat.events.size() == 1);
    CHECK(chat.events[0].timeUnixNano == 1150);
    CHECK(chat.status == StatusCode::error);
    CHECK(chat.statusMessage == "provider_failed: overloaded");

    const SpanData& root = spans[1];
    CHECK_FALSE(root.parentSpanId.valid());
    CHECK(root.startTimeUnixNano == 1000);
    CHECK(root.endTimeUnixNano == 2000);
    CHECK(root.status == StatusCode::ok);
    CHECK(root.statusMessage.empty());
    CHECK(sink->take().size() == 2);
    CHECK(sink->spans().empty());
}

TEST_CASE("spans: a remote parent continues its trace, an unsampled span passes its decision on",
          "[telemetry][tracer]") {
    auto sink = std::make_shared<InMemorySpanSink>();
    Tracer tracer(SamplerConfig{}, sink, IdGenerator(2));
    auto remote = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "rojo=1");
    REQUIRE(remote);
    {
        Span server = tracer.startSpan("tools/call echo", SpanKind::server, &*remote);
        CHECK(server.context().traceId == remote->traceId);
        CHECK_FALSE(server.context().spanId == remote->spanId);
        CHECK(server.context().traceState == "rojo=1");
    }
    REQUIRE(sink->spans().size() == 1);
    CHECK(sink->spans()[0].parentSpanId == remote->spanId);

    auto unsampled = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
    REQUIRE(unsampled);
    Span quiet = tracer.startSpan("chat m", SpanKind::client, &*unsampled);
    CHECK_FALSE(quiet.recording());
    CHECK(quiet.context().valid());
    CHECK_FALSE(quiet.context().sampled());
    CHECK(formatTraceparent(quiet.context()).substr(0, 36) == "00-4bf92f3577b34da6a3ce929d0e0e4736-");
    quiet.setAttribute("ignored", true);
    quiet.end();
    CHECK(sink->spans().size() == 1);

    Tracer off(SamplerConfig{SamplerKind::always_off}, sink, IdGenerator(3));
    Span root = off.startSpan("invoke_agent x", SpanKind::internal);
    CHECK_FALSE(root.recording());
    CHECK(root.context().valid());
}

TEST_CASE("spans: moving a span moves its ending", "[telemetry][tracer]") {
    auto sink = std::make_shared<InMemorySpanSink>();
    Tracer tracer(SamplerConfig{}, sink, IdGenerator(4));
    Span first = tracer.startSpan("a", SpanKind::internal);
    Span second = tracer.startSpan("b", SpanKind::internal);
    second = std::move(first);  // "b" ends here, "a" is now second's
    REQUIRE(sink->spans().size() == 1);
    CHECK(sink->spans()[0].name == "b");
    second.end();
    REQUIRE(sink->spans().size() == 2);
    CHECK(sink->spans()[1].name == "a");
}
