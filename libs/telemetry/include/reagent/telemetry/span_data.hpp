#pragma once
/// \file
/// \brief What a finished span holds, in OpenTelemetry's data model: its identity and parent, name, kind,
/// times, attributes, events and status; and the resource and instrumentation scope it is exported with.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "reagent/telemetry/trace_context.hpp"

namespace reagent::telemetry {

/// \brief The span kinds, with OTLP's numbers (`SpanKind` in trace.proto).
enum class SpanKind : int { internal = 1, server = 2, client = 3, producer = 4, consumer = 5 };

/// \brief A span's status, with OTLP's numbers (`Status.StatusCode`).
enum class StatusCode : int { unset = 0, ok = 1, error = 2 };

/// \brief An attribute's value: the OpenTelemetry primitive types and a homogeneous array of strings (what
/// the GenAI conventions use, for finish reasons).
using AttributeValue = std::variant<std::string, bool, std::int64_t, double, std::vector<std::string>>;

struct Attribute {
    std::string key;
    AttributeValue value;
    friend bool operator==(const Attribute&, const Attribute&) = default;
    /// Orders sets of attributes (a metric's points are kept per set).
    friend auto operator<=>(const Attribute&, const Attribute&) = default;
};

/// \brief Something that happened during a span (a retry, an approval), at a time.
struct SpanEvent {
    std::string name;
    /// Nanoseconds since the Unix epoch.
    std::uint64_t timeUnixNano = 0;
    std::vector<Attribute> attributes;
    friend bool operator==(const SpanEvent&, const SpanEvent&) = default;
};

/// \brief A finished span, ready to export.
struct SpanData {
    /// Its own context (trace id, span id, flags, trace state).
    SpanContext context;
    /// Its parent's span id; not valid for a root span.
    SpanId parentSpanId;
    std::string name;
    SpanKind kind = SpanKind::internal;
    /// Nanoseconds since the Unix epoch.
    std::uint64_t startTimeUnixNano = 0;
    std::uint64_t endTimeUnixNano = 0;
    std::vector<Attribute> attributes;
    std::vector<SpanEvent> events;
    StatusCode status = StatusCode::unset;
    /// Only with `StatusCode::error`: what went wrong.
    std::string statusMessage;
    friend bool operator==(const SpanData&, const SpanData&) = default;
};

/// \brief The entity that produced the spans (`service.name`, ...).
struct Resource {
    std::vector<Attribute> attributes;
};

/// \brief The library that produced the spans (its name and version).
struct InstrumentationScope {
    std::string name;
    std::string version;
};

}  // namespace reagent::telemetry
