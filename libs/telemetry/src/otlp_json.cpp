#include "reagent/telemetry/otlp_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace reagent::telemetry {

namespace {

using nlohmann::json;

json doubleValue(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "Infinity" : "-Infinity";
    }
    return value;
}

json anyValue(const AttributeValue& value) {
    return std::visit(
        [](const auto& v) -> json {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return {{"stringValue", v}};
            } else if constexpr (std::is_same_v<T, bool>) {
                return {{"boolValue", v}};
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                return {{"intValue", std::to_string(v)}};
            } else if constexpr (std::is_same_v<T, double>) {
                return {{"doubleValue", doubleValue(v)}};
            } else {
                json values = json::array();
                for (const std::string& item : v) {
                    values.push_back({{"stringValue", item}});
                }
                return {{"arrayValue", {{"values", std::move(values)}}}};
            }
        },
        value);
}

json attributes(const std::vector<Attribute>& list) {
    json out = json::array();
    for (const Attribute& attribute : list) {
        out.push_back({{"key", attribute.key}, {"value", anyValue(attribute.value)}});
    }
    return out;
}

json span(const SpanData& data) {
    json out = {{"traceId", data.context.traceId.hex()},
                {"spanId", data.context.spanId.hex()},
                {"name", data.name},
                {"kind", static_cast<int>(data.kind)},
                {"startTimeUnixNano", std::to_string(data.startTimeUnixNano)},
                {"endTimeUnixNano", std::to_string(data.endTimeUnixNano)}};
    if (data.parentSpanId.valid()) {
        out["parentSpanId"] = data.parentSpanId.hex();
    }
    if (!data.context.traceState.empty()) {
        out["traceState"] = data.context.traceState;
    }
    if (data.context.flags != 0) {
        out["flags"] = data.context.flags;  // the W3C trace flags, in the low byte
    }
    if (!data.attributes.empty()) {
        out["attributes"] = attributes(data.attributes);
    }
    if (!data.events.empty()) {
        json events = json::array();
        for (const SpanEvent& event : data.events) {
            json item = {{"name", event.name}, {"timeUnixNano", std::to_string(event.timeUnixNano)}};
            if (!event.attributes.empty()) {
                item["attributes"] = attributes(event.attributes);
            }
            events.push_back(std::move(item));
        }
        out["events"] = std::move(events);
    }
    if (data.status != StatusCode::unset) {
        json status = {{"code", static_cast<int>(data.status)}};
        if (data.status == StatusCode::error && !data.statusMessage.empty()) {
            status["message"] = data.statusMessage;
        }
        out["status"] = std::move(status);
    }
    return out;
}

}  // namespace

std::string encodeTracesJson(const Resource& resource, const InstrumentationScope& scope,
                             std::span<const SpanData> spans) {
    json scopeJson = {{"name", scope.name}};
    if (!scope.version.empty()) {
        scopeJson["version"] = scope.version;
    }
    json spanList = json::array();
    for (const SpanData& data : spans) {
        spanList.push_back(span(data));
    }
    json resourceJson = json::object();
    if (!resource.attributes.empty()) {
        resourceJson["attributes"] = attributes(resource.attributes);
    }
    const json request = {
        {"resourceSpans", json::array({{{"resource", std::move(resourceJson)},
                                        {"scopeSpans", json::array({{{"scope", std::move(scopeJson)},
                                                                     {"spans", std::move(spanList)}}})}}})}};
    // Invalid UTF-8 in a name or attribute becomes U+FFFD rather than failing the export.
    return request.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace reagent::telemetry
