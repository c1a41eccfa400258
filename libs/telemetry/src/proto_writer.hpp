#pragma once
// The protobuf wire format, written by hand (no protobuf library), and the OTLP messages that traces and
// metrics share: attributes, the resource and the instrumentation scope. Private to the telemetry library.

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "reagent/telemetry/span_data.hpp"

namespace reagent::telemetry::detail {

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
        tag(field, kFixed64);
        littleDouble(value);
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

    // Raw little-endian numbers, for the body of a packed repeated field.
    void littleDouble(double value) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        little(bits, 8);
    }
    void little(std::uint64_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) {
            out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
        }
    }

  private:
    std::string out_;
};

// common.proto: AnyValue { string_value = 1; bool_value = 2; int_value = 3; double_value = 4;
// array_value = 5; } ArrayValue { values = 1; } KeyValue { key = 1; value = 2; }
inline ProtoWriter protoAnyValue(const AttributeValue& value) {
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

inline void protoAttributes(ProtoWriter& out, std::uint32_t field, const std::vector<Attribute>& list) {
    for (const Attribute& attribute : list) {
        ProtoWriter keyValue;
        keyValue.bytesField(1, attribute.key);
        keyValue.messageField(2, protoAnyValue(attribute.value));
        out.messageField(field, keyValue);
    }
}

// common.proto / resource.proto: Resource { attributes = 1; } InstrumentationScope { name = 1; version = 2; }
inline ProtoWriter protoResource(const Resource& resource) {
    ProtoWriter out;
    protoAttributes(out, 1, resource.attributes);
    return out;
}

inline ProtoWriter protoScope(const InstrumentationScope& scope) {
    ProtoWriter out;
    out.stringIfSet(1, scope.name);
    out.stringIfSet(2, scope.version);
    return out;
}

// The envelope traces and metrics share: ExportXServiceRequest { resource_x = 1; } with one
// ResourceX { resource = 1; scope_x = 2; } holding one ScopeX { scope = 1; x = 2; } of `items`.
inline std::string exportRequest(const Resource& resource, const InstrumentationScope& scope,
                                 const std::vector<ProtoWriter>& items) {
    ProtoWriter scoped;
    scoped.messageField(1, protoScope(scope));
    for (const ProtoWriter& item : items) {
        scoped.messageField(2, item);
    }
    ProtoWriter resourced;
    resourced.messageField(1, protoResource(resource));
    resourced.messageField(2, scoped);
    ProtoWriter request;
    request.messageField(1, resourced);
    return std::move(request).take();
}

}  // namespace reagent::telemetry::detail
