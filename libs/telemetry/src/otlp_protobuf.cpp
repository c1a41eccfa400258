#include "reagent/telemetry/otlp_protobuf.hpp"

#include <array>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <variant>

namespace reagent::telemetry {

namespace {

// The protobuf wire types used here.
enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Appends protobuf fields to a string. A nested message is written into a writer of its own and then
// appended with its length (messages here are small; a batch is encoded once, off any run's path).
class ProtoWriter {
  public:
    void varint(std::uint64_t value) {
        while (value >= 0x80) {
            out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
            value >>= 7;
        }
        out_.push_back(static_cast<char>(value));
    }
    void tag(std::uint32_t field, WireType type) { varint((static_cast<std::uint64_t>(field) << 3) | type); }

    void varintField(std::uint32_t field, std::uint64_t value) {
        tag(field, kVarint);
        varint(value);
    }
    void fixed64Field(std::uint32_t field, std::uint64_t value) {
        tag(field, kFixed64);
        little(value, 8);
    }
    void fixed32Field(std::uint32_t field, std::uint32_t value) {
        tag(field, kFixed32);
        little(value, 4);
    }
    void doubleField(std::uint32_t field, double value) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        fixed64Field(field, bits);
    }
    void bytesField(std::uint32_t field, std::string_view bytes) {
        tag(field, kLengthDelimited);
        varint(bytes.size());
        out_.append(bytes);
    }
    template <std::size_t N>
    void bytesField(std::uint32_t field, const std::array<std::uint8_t, N>& bytes) {
        bytesField(field, std::string_view(reinterpret_cast<const char*>(bytes.data()), N));
    }
    void messageField(std::uint32_t field, const ProtoWriter& message) { bytesField(field, message.out_); }

    // proto3 leaves scalars at their default out.
    void stringIfSet(std::uint32_t field, std::string_view text) {
        if (!text.empty()) {
            bytesField(field, text);
        }
    }
    void varintIfSet(std::uint32_t field, std::uint64_t value) {
        if (value != 0) {
            varintField(field, value);
        }
    }
    void fixed64IfSet(std::uint32_t field, std::uint64_t value) {
        if (value != 0) {
            fixed64Field(field, value);
        }
    }

    [[nodiscard]] std::string take() && { return std::move(out_); }

  private:
    void little(std::uint64_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) {
            out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
        }
    }

    std::string out_;
};

// common.proto: AnyValue { string_value = 1; bool_value = 2; int_value = 3; double_value = 4;
// array_value = 5; } ArrayValue { values = 1; } KeyValue { key = 1; value = 2; }
ProtoWriter protoAnyValue(const AttributeValue& value) {
    ProtoWriter out;
    std::visit(
        [&out](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                out.bytesField(1, v);
            } else if constexpr (std::is_same_v<T, bool>) {
                out.varintField(2, v ? 1 : 0);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                out.varintField(3,
                                static_cast<std::uint64_t>(v));  // int64: two's complement, 10 bytes if < 0
            } else if constexpr (std::is_same_v<T, double>) {
                out.doubleField(4, v);
            } else {
                ProtoWriter array;
                for (const std::string& item : v) {
                    ProtoWriter element;
                    element.bytesField(1, item);
                    array.messageField(1, element);
                }
                out.messageField(5, array);
            }
        },
        value);
    return out;
}

void protoAttributes(ProtoWriter& out, std::uint32_t field, const std::vector<Attribute>& list) {
    for (const Attribute& attribute : list) {
        ProtoWriter keyValue;
        keyValue.bytesField(1, attribute.key);
        keyValue.messageField(2, protoAnyValue(attribute.value));
        out.messageField(field, keyValue);
    }
}

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
    // Resource { attributes = 1; } InstrumentationScope { name = 1; version = 2; }
    // ScopeSpans { scope = 1; spans = 2; } ResourceSpans { resource = 1; scope_spans = 2; }
    // ExportTraceServiceRequest { resource_spans = 1; }
    ProtoWriter resourceMessage;
    protoAttributes(resourceMessage, 1, resource.attributes);
    ProtoWriter scopeMessage;
    scopeMessage.stringIfSet(1, scope.name);
    scopeMessage.stringIfSet(2, scope.version);
    ProtoWriter scopeSpans;
    scopeSpans.messageField(1, scopeMessage);
    for (const SpanData& data : spans) {
        scopeSpans.messageField(2, protoSpan(data));
    }
    ProtoWriter resourceSpans;
    resourceSpans.messageField(1, resourceMessage);
    resourceSpans.messageField(2, scopeSpans);
    ProtoWriter request;
    request.messageField(1, resourceSpans);
    return std::move(request).take();
}

}  // namespace reagent::telemetry
