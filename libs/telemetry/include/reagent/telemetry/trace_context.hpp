#pragma once
/// \file
/// \brief Trace and span identities, and their W3C Trace Context headers (`traceparent`, `tracestate`).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

/// \brief A trace's identity: 16 bytes, valid when not all zero.
struct TraceId {
    std::array<std::uint8_t, 16> bytes{};

    [[nodiscard]] bool valid() const noexcept;
    /// \brief 32 lowercase hex digits, as `traceparent` and OTLP/JSON write it.
    [[nodiscard]] std::string hex() const;
    friend bool operator==(const TraceId&, const TraceId&) = default;
};

/// \brief A span's identity within its trace: 8 bytes, valid when not all zero.
struct SpanId {
    std::array<std::uint8_t, 8> bytes{};

    [[nodiscard]] bool valid() const noexcept;
    /// \brief 16 lowercase hex digits.
    [[nodiscard]] std::string hex() const;
    friend bool operator==(const SpanId&, const SpanId&) = default;
};

/// \brief `traceparent`'s flag for a trace whose spans are recorded (sampled) by its caller.
inline constexpr std::uint8_t kSampledFlag = 0x01;

/// \brief What a span passes on to its children, in this process or across a request: the W3C Trace
/// Context of one span.
struct SpanContext {
    TraceId traceId;
    SpanId spanId;
    /// The trace flags (`kSampledFlag`, and whatever else the sender set, passed on as received).
    std::uint8_t flags = 0;
    /// The `tracestate` header, as received when it was valid (empty otherwise).
    std::string traceState{};
    /// True for a context read from a request (its span is in another process).
    bool remote = false;

    [[nodiscard]] bool valid() const noexcept { return traceId.valid() && spanId.valid(); }
    [[nodiscard]] bool sampled() const noexcept { return (flags & kSampledFlag) != 0; }
    friend bool operator==(const SpanContext&, const SpanContext&) = default;
};

/// \brief The context a `traceparent` header carries (and `tracestate`, kept when it is valid), as a
/// remote context.
///
/// Follows W3C Trace Context: lowercase hex only; version `ff` is invalid; version `00` is exactly 55
/// characters; a later version may be longer when a `-` follows the flags (what follows is ignored); the
/// trace and parent ids must not be all zero. An invalid `tracestate` is dropped, not an error, as the
/// specification asks.
///
/// \par Errors
/// `invalid_trace_context`, saying what is wrong (the header itself is not quoted: it comes from outside).
[[nodiscard]] expected<SpanContext, TelemetryError> parseTraceparent(std::string_view traceparent,
                                                                     std::string_view tracestate = {});

/// \brief The `traceparent` header of `context` (version `00`).
[[nodiscard]] std::string formatTraceparent(const SpanContext& context);

/// \brief Whether `tracestate` is a header W3C Trace Context allows: at most 32 comma-separated members
/// `key=value` (empty members and surrounding spaces and tabs ignored), each key once, keys and values of
/// the allowed characters and lengths.
[[nodiscard]] bool validTraceState(std::string_view tracestate);

}  // namespace reagent::telemetry
