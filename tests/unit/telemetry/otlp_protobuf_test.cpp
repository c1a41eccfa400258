#include "reagent/telemetry/otlp_protobuf.hpp"

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/telemetry/id_generator.hpp"

using namespace reagent::telemetry;

namespace {

// A protobuf message read field by field from the wire format (no schema): what a decoder sees.
struct Field {
    int wireType = 0;
    std::uint64_t number = 0;  // varint, fixed64, fixed32
    std::string bytes;         // length-delimited
};
using Message = std::multimap<std::uint32_t, Field>;

std::uint64_t readVarint(std::string_view& in) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (in.empty()) {
            throw std::runtime_error("truncated varint");
        }
        const auto byte = static_cast<std::uint8_t>(in.front());
        in.remove_prefix(1);
        value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) {
            return value;
        }
    }
    throw std::runtime_error("varint over 10 bytes");
}

std::uint64_t readFixed(std::string_view& in, int size) {
    if (in.size() < static_cast<std::size_t>(size)) {
        throw std::runtime_error("truncated fixed field");
    }
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i) {
        value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in[static_cast<std::size_t>(i)]))
                 << (8 * i);
    }
    in.remove_prefix(static_cast<std::size_t>(size));
    return value;
}

Message parse(std::string_view in) {
    Message out;
    while (!in.empty()) {
        const std::uint64_t key = readVarint(in);
        Field field;
        field.wireType = static_cast<int>(key & 7);
        switch (field.wireType) {
            case 0:
                field.number = readVarint(in);
                break;
            case 1:
                field.number = readFixed(in, 8);
                break;
            case 5:
                field.number = readFixed(in, 4);
                break;
            case 2: {
                const std::uint64_t length = readVarint(in);
                if (length > in.size()) {
                    throw std::runtime_error("length past the end");
                }
                field.bytes = std::string(in.substr(0, length));
                in.remove_prefix(length);
                break;
            }
            default:
                throw std::runtime_error("unexpected wire type");
        }
        out.emplace(static_cast<std::uint32_t>(key >> 3), std::move(field));
    }
    return out;
}

const Field& one(const Message& message, std::uint32_t number) {
    REQUIRE(message.count(number) == 1);
    return message.find(number)->second;
}

std::vector<Message> all(const Message& message, std::uint32_t number) {
    std::vector<Message> out;
    const auto [first, last] = message.equal_range(number);
    for (auto it = first; it != last; ++it) {
        out.push_back(parse(it->second.bytes));
    }
    return out;
}

std::string bytesOf(const auto& id) {
    return std::string(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size());
}

// KeyValue { key = 1; value = 2 } as key → AnyValue message.
std::map<std::string, Message> attributesOf(const Message& message, std::uint32_t number) {
    std::map<std::string, Message> out;
    for (const Message& keyValue : all(message, number)) {
        out[one(keyValue, 1).bytes] = parse(one(keyValue, 2).bytes);
    }
    return out;
}

}  // namespace

TEST_CASE("OTLP/protobuf: a root span and its child, field by field", "[telemetry][otlp]") {
    IdGenerator ids(3);
    SpanData root;
    root.context = SpanContext{ids.traceId(), ids.spanId(), kSampledFlag};
    root.name = "invoke_agent helper";
    root.startTimeUnixNano = 1'700'000'000'000'000'000ULL;
    root.endTimeUnixNano = 1'700'000'000'500'000'000ULL;
    root.attributes = {{"gen_ai.operation.name", std::string("invoke_agent")}};
    root.status = StatusCode::ok;
    SpanData chat;
    chat.context = SpanContext{root.context.traceId, ids.spanId(), 0, "rojo=1"};
    chat.parentSpanId = root.context.spanId;
    chat.name = "chat gpt-4.1";
    chat.kind = SpanKind::client;
    chat.startTimeUnixNano = root.startTimeUnixNano + 1;
    chat.endTimeUnixNano = root.endTimeUnixNano - 1;
    chat.attributes = {{"tokens", std::int64_t{-1}},
                       {"ratio", 0.25},
                       {"stream", false},
                       {"empty", std::string()},
                       {"reasons", std::vector<std::string>{"stop", "length"}}};
    chat.events = {{"retry", 42, {{"attempt", std::int64_t{2}}}}};
    chat.status = StatusCode::error;
    chat.statusMessage = "provider_failed: overloaded";
    const std::vector<SpanData> spans{root, chat};

    const std::string body = encodeTracesProtobuf(Resource{{{"service.name", std::string("billing")}}},
                                                  InstrumentationScope{"reagent", "0.1.0"}, spans);
    const Message request = parse(body);
    const auto resourceSpans = all(request, 1);
    REQUIRE(resourceSpans.size() == 1);
    const Message resource = parse(one(resourceSpans[0], 1).bytes);
    CHECK(one(attributesOf(resource, 1)["service.name"], 1).bytes == "billing");
    const auto scopeSpans = all(resourceSpans[0], 2);
    REQUIRE(scopeSpans.size() == 1);
    const Message scope = parse(one(scopeSpans[0], 1).bytes);
    CHECK(one(scope, 1).bytes == "reagent");
    CHECK(one(scope, 2).bytes == "0.1.0");
    const auto written = all(scopeSpans[0], 2);
    REQUIRE(written.size() == 2);

    const Message& first = written[0];
    CHECK(one(first, 1).bytes == bytesOf(root.context.traceId));  // 16 raw bytes
    CHECK(one(first, 2).bytes == bytesOf(root.context.spanId));
    CHECK(first.count(4) == 0);  // a root: no parent
    CHECK(one(first, 5).bytes == "invoke_agent helper");
    CHECK(one(first, 6).number == 1);  // internal
    CHECK(one(first, 7).wireType == 1);
    CHECK(one(first, 7).number == root.startTimeUnixNano);
    CHECK(one(first, 8).number == root.endTimeUnixNano);
    CHECK(one(parse(one(first, 15).bytes), 3).number == 1);  // ok
    CHECK(one(first, 16).wireType == 5);
    CHECK(one(first, 16).number == kSampledFlag);
    CHECK(first.count(3) == 0);  // no trace state

    const Message& second = written[1];
    CHECK(one(second, 4).bytes == bytesOf(root.context.spanId));
    CHECK(one(second, 3).bytes == "rojo=1");
    CHECK(one(second, 6).number == 3);  // client
    CHECK(second.count(16) == 0);       // no flags set
    auto values = attributesOf(second, 9);
    CHECK(one(values["tokens"], 3).number == static_cast<std::uint64_t>(-1));  // int64 as two's complement
    double ratio = 0;
    const std::uint64_t bits = one(values["ratio"], 4).number;
    std::memcpy(&ratio, &bits, sizeof ratio);
    CHECK(ratio == 0.25);
    CHECK(one(values["stream"], 2).number == 0);  // a oneof member is written even at its default
    CHECK(one(values["empty"], 1).bytes.empty());
    const auto reasons = all(parse(one(values["reasons"], 5).bytes), 1);
    REQUIRE(reasons.size() == 2);
    CHECK(one(reasons[1], 1).bytes == "length");
    const auto events = all(second, 11);
    REQUIRE(events.size() == 1);
    CHECK(one(events[0], 1).number == 42);
    CHECK(one(events[0], 2).bytes == "retry");
    CHECK(one(attributesOf(events[0], 3)["attempt"], 3).number == 2);
    const Message status = parse(one(second, 15).bytes);
    CHECK(one(status, 2).bytes == "provider_failed: overloaded");
    CHECK(one(status, 3).number == 2);
}

TEST_CASE("OTLP/protobuf: nothing to send is a request with an empty scope", "[telemetry][otlp]") {
    const std::string body = encodeTracesProtobuf(Resource{}, InstrumentationScope{"reagent", ""}, {});
    const Message request = parse(body);
    const auto resourceSpans = all(request, 1);
    REQUIRE(resourceSpans.size() == 1);
    const auto scopeSpans = all(resourceSpans[0], 2);
    REQUIRE(scopeSpans.size() == 1);
    CHECK(scopeSpans[0].count(2) == 0);
}
