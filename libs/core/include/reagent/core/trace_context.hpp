#pragma once
/// \file
/// \brief Trace and span identities as W3C Trace Context carries them between calls and processes: what
/// a run hands to its model calls, its tools and the servers they reach, whether or not it records spans.
/// Parsing a received header and recording spans are `reagent::telemetry`'s.

#include <array>
#include <cstdint>
#include <string>

namespace reagent {

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
/// Context of one span. Not valid (all zero) where nothing is traced.
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

/// \brief The `traceparent` header of `context` (version `00`).
[[nodiscard]] std::string formatTraceparent(const SpanContext& context);

}  // namespace reagent
