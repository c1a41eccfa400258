#include "reagent/core/trace_context.hpp"

#include <algorithm>
#include <cstddef>

namespace reagent {

namespace {

constexpr char kLowerHexDigits[] = "0123456789abcdef";

template <std::size_t N>
std::string toHex(const std::array<std::uint8_t, N>& bytes) {
    std::string out(2 * N, '0');
    for (std::size_t i = 0; i < N; ++i) {
        out[2 * i] = kLowerHexDigits[bytes[i] >> 4];
        out[2 * i + 1] = kLowerHexDigits[bytes[i] & 0x0f];
    }
    return out;
}

template <std::size_t N>
bool anyNonZero(const std::array<std::uint8_t, N>& bytes) noexcept {
    return std::any_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b != 0; });
}

}  // namespace

bool TraceId::valid() const noexcept {
    return anyNonZero(bytes);
}

std::string TraceId::hex() const {
    return toHex(bytes);
}

bool SpanId::valid() const noexcept {
    return anyNonZero(bytes);
}

std::string SpanId::hex() const {
    return toHex(bytes);
}

std::string formatTraceparent(const SpanContext& context) {
    std::string out;
    out.reserve(55);
    out += "00-";
    out += context.traceId.hex();
    out += '-';
    out += context.spanId.hex();
    out += '-';
    out += kLowerHexDigits[context.flags >> 4];
    out += kLowerHexDigits[context.flags & 0x0f];
    return out;
}

}  // namespace reagent
