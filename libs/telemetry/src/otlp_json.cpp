#include "reagent/telemetry/otlp_json.hpp"

#include "otlp_json_values.hpp"

namespace reagent::telemetry {

namespace {

using detail::attributes;
using nlohmann::json;

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
    json spanList = json::array();
    for (const SpanData& data : spans) {
        spanList.push_back(span(data));
    }
    const json request = {
        {"resourceSpans", json::array({{{"resource", detail::resourceJson(resource)},
                                        {"scopeSpans", json::array({{{"scope", detail::scopeJson(scope)},
                                                                     {"spans", std::move(spanList)}}})}}})}};
    // Invalid UTF-8 in a name or attribute becomes U+FFFD rather than failing the export.
    return request.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace reagent::telemetry
