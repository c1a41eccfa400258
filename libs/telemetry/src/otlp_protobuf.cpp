#include "reagent/telemetry/otlp_protobuf.hpp"

#include "proto_writer.hpp"

namespace reagent::telemetry {

namespace {

using detail::protoAttributes;
using detail::ProtoWriter;

// trace.proto: Span { trace_id = 1; span_id = 2; trace_state = 3; parent_span_id = 4; name = 5; kind = 6;
// start_time_unix_nano = 7; end_time_unix_nano = 8; attributes = 9; events = 11; status = 15; flags = 16; }
// Span.Event { time_unix_nano = 1; name = 2; attributes = 3; } Status { message = 2; code = 3; }
ProtoWriter protoSpan(const SpanData& data) {
    ProtoWriter out;
    out.bytesField(1, data.context.traceId.bytes);
    out.bytesField(2, data.context.spanId.bytes);
    out.stringIfSet(3, data.context.traceState);
    if (data.parentSpanId.valid()) {
        out.bytesField(4, data.parentSpanId.bytes);
    }
    out.stringIfSet(5, data.name);
    out.varintIfSet(6, static_cast<std::uint64_t>(data.kind));
    out.fixed64IfSet(7, data.startTimeUnixNano);
    out.fixed64IfSet(8, data.endTimeUnixNano);
    protoAttributes(out, 9, data.attributes);
    for (const SpanEvent& event : data.events) {
        ProtoWriter item;
        item.fixed64IfSet(1, event.timeUnixNano);
        item.stringIfSet(2, event.name);
        protoAttributes(item, 3, event.attributes);
        out.messageField(11, item);
    }
    if (data.status != StatusCode::unset) {
        ProtoWriter status;
        if (data.status == StatusCode::error) {
            status.stringIfSet(2, data.statusMessage);
        }
        status.varintField(3, static_cast<std::uint64_t>(data.status));
        out.messageField(15, status);
    }
    if (data.context.flags != 0) {
        out.fixed32Field(16, data.context.flags);  // the W3C trace flags, in the low byte
    }
    return out;
}

}  // namespace

std::string encodeTracesProtobuf(const Resource& resource, const InstrumentationScope& scope,
                                 std::span<const SpanData> spans) {
    std::vector<ProtoWriter> items;
    items.reserve(spans.size());
    for (const SpanData& item : spans) {
        items.push_back(protoSpan(item));
    }
    return detail::exportRequest(resource, scope, items);
}

}  // namespace reagent::telemetry
