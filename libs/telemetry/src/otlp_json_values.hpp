#pragma once
// OTLP/JSON's forms of the values that traces and metrics share: attributes, doubles (non-finite ones as
// strings), the resource and the instrumentation scope. Private to the telemetry library.

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/telemetry/span_data.hpp"

namespace reagent::telemetry::detail {

using json = nlohmann::json;

inline json doubleValue(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "Infinity" : "-Infinity";
    }
    return value;
}

inline json anyValue(const AttributeValue& value) {
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

inline json attributes(const std::vector<Attribute>& list) {
    json out = json::array();
    for (const Attribute& attribute : list) {
        out.push_back({{"key", attribute.key}, {"value", anyValue(attribute.value)}});
    }
    return out;
}

inline json resourceJson(const Resource& resource) {
    json out = json::object();
    if (!resource.attributes.empty()) {
        out["attributes"] = attributes(resource.attributes);
    }
    return out;
}

inline json scopeJson(const InstrumentationScope& scope) {
    json out = {{"name", scope.name}};
    if (!scope.version.empty()) {
        out["version"] = scope.version;
    }
    return out;
}

}  // namespace reagent::telemetry::detail
