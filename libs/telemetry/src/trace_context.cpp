#include "reagent/telemetry/trace_context.hpp"

#include <algorithm>
#include <cstddef>
#include <set>

#include "reagent/http/http_headers.hpp"

namespace reagent::telemetry {

namespace {

using http::trimWhitespace;

// "00-" 32 hex "-" 16 hex "-" 2 hex.
constexpr std::size_t kVersion00Length = 55;

// A lowercase hex digit's value, or -1 (uppercase is not allowed in traceparent).
int hexValue(char c) noexcept {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

template <std::size_t N>
bool fromHex(std::string_view text, std::array<std::uint8_t, N>& bytes) {
    if (text.size() != 2 * N) {
        return false;
    }
    for (std::size_t i = 0; i < N; ++i) {
        const int high = hexValue(text[2 * i]);
        const int low = hexValue(text[2 * i + 1]);
        if (high < 0 || low < 0) {
            return false;
        }
        bytes[i] = static_cast<std::uint8_t>(high * 16 + low);
    }
    return true;
}

TelemetryError invalid(std::string why) {
    return TelemetryError{TelemetryErrc::invalid_trace_context, "traceparent is invalid: " + std::move(why)};
}

bool isLcAlpha(char c) noexcept {
    return c >= 'a' && c <= 'z';
}

bool isDigit(char c) noexcept {
    return c >= '0' && c <= '9';
}

bool isKeyChar(char c) noexcept {
    return isLcAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '*' || c == '/';
}

// simple-key = lcalpha 0*255(keychar); multi-tenant-key = (lcalpha / DIGIT) 0*240(keychar) "@"
// lcalpha 0*13(keychar).
bool validKey(std::string_view key) {
    const auto at = key.find('@');
    if (at == std::string_view::npos) {
        return !key.empty() && key.size() <= 256 && isLcAlpha(key[0]) &&
               std::all_of(key.begin() + 1, key.end(), isKeyChar);
    }
    const std::string_view tenant = key.substr(0, at);
    const std::string_view system = key.substr(at + 1);
    return !tenant.empty() && tenant.size() <= 241 && (isLcAlpha(tenant[0]) || isDigit(tenant[0])) &&
           std::all_of(tenant.begin() + 1, tenant.end(), isKeyChar) && !system.empty() &&
           system.size() <= 14 && isLcAlpha(system[0]) &&
           std::all_of(system.begin() + 1, system.end(), isKeyChar);
}

// value = 0*255(chr) nblk-chr; chr = %x20 / nblk-chr; nblk-chr = %x21-2B / %x2D-3C / %x3E-7E.
bool validValue(std::string_view value) {
    const auto nonBlank = [](char c) { return c >= 0x21 && c <= 0x7e && c != ',' && c != '='; };
    return !value.empty() && value.size() <= 256 && nonBlank(value.back()) &&
           std::all_of(value.begin(), value.end(), [&](char c) { return c == ' ' || nonBlank(c); });
}

}  // namespace

expected<SpanContext, TelemetryError> parseTraceparent(std::string_view traceparent,
                                                       std::string_view tracestate) {
    const std::string_view header = trimWhitespace(traceparent);
    if (header.size() < kVersion00Length) {
        return fail(invalid("it has " + std::to_string(header.size()) + " characters, fewer than the " +
                            std::to_string(kVersion00Length) + " of version 00"));
    }
    std::array<std::uint8_t, 1> version{};
    if (!fromHex(header.substr(0, 2), version)) {
        return fail(invalid("the version is not two lowercase hex digits"));
    }
    if (version[0] == 0xff) {
        return fail(invalid("version ff is not a version"));
    }
    if (version[0] == 0x00 && header.size() != kVersion00Length) {
        return fail(invalid("version 00 has exactly " + std::to_string(kVersion00Length) +
                            " characters, not " + std::to_string(header.size())));
    }
    // A later version starts as version 00 does; what it adds comes after a '-'.
    if (header.size() > kVersion00Length && header[kVersion00Length] != '-') {
        return fail(invalid("a later version's fields must follow the flags after a '-'"));
    }
    if (header[2] != '-' || header[35] != '-' || header[52] != '-') {
        return fail(invalid("its fields are not separated by '-' where version 00 puts them"));
    }
    SpanContext context;
    if (!fromHex(header.substr(3, 32), context.traceId.bytes)) {
        return fail(invalid("the trace id is not 32 lowercase hex digits"));
    }
    if (!context.traceId.valid()) {
        return fail(invalid("the trace id is all zeros"));
    }
    if (!fromHex(header.substr(36, 16), context.spanId.bytes)) {
        return fail(invalid("the parent id is not 16 lowercase hex digits"));
    }
    if (!context.spanId.valid()) {
        return fail(invalid("the parent id is all zeros"));
    }
    std::array<std::uint8_t, 1> flags{};
    if (!fromHex(header.substr(53, 2), flags)) {
        return fail(invalid("the flags are not two lowercase hex digits"));
    }
    context.flags = flags[0];
    context.remote = true;
    if (validTraceState(tracestate)) {
        context.traceState = std::string(trimWhitespace(tracestate));
    }
    return context;
}

bool validTraceState(std::string_view tracestate) {
    std::set<std::string_view> keys;
    std::size_t members = 0;
    std::string_view rest = tracestate;
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view member = trimWhitespace(rest.substr(0, comma));
        if (!member.empty()) {
            const auto equals = member.find('=');
            if (equals == std::string_view::npos || !validKey(member.substr(0, equals)) ||
                !validValue(member.substr(equals + 1)) || !keys.insert(member.substr(0, equals)).second ||
                ++members > 32) {
                return false;
            }
        }
        if (comma == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(comma + 1);
    }
    return members > 0;
}

}  // namespace reagent::telemetry
