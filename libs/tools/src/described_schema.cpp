// The type-independent parts of described_schema.hpp: schemas of scalars, references between
// recursive structs, annotations, and the decoding errors.

#include "reagent/tools/described_schema.hpp"

#include <algorithm>
#include <array>

namespace reagent::tools {

using nlohmann::json;

std::string DecodeError::describe() const {
    return (path.empty() ? std::string("at the top") : "at " + path) + ": " + message;
}

std::string SchemaError::describe() const {
    std::string out;
    for (const auto& problem : problems) {
        out += (out.empty() ? "" : "; ") + problem;
    }
    return out;
}

namespace detail {

namespace {

// "a string", "an object", "null": what a JSON value is, for a message.
std::string kindOf(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::string:
            return "a string";
        case json::value_t::array:
            return "an array";
        case json::value_t::object:
            return "an object";
        case json::value_t::number_float:
            return "a number with a fraction";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
            return "an integer";
        default:
            return "a value of another kind";
    }
}

// The value as a message quotes it: short, whatever it is.
std::string quote(const json& value) {
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    constexpr std::size_t kLimit = 80;
    if (text.size() > kLimit) {
        text = text.substr(0, kLimit) + "...";
    }
    return text;
}

std::string join(const std::vector<std::string_view>& names) {
    std::string out;
    for (const auto name : names) {
        out += (out.empty() ? "" : ", ") + std::string(name);
    }
    return out;
}

// One JSON Pointer reference token, escaped as RFC 6901 says (~ as ~0, / as ~1), without its slash.
std::string escapeStep(std::string_view step) {
    return (json::json_pointer() / std::string(step)).to_string().substr(1);
}

// The keywords the mapping writes itself: an annotation that set them would contradict the C++ type.
constexpr std::array<std::string_view, 9> kOwnedKeywords = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "$ref", "$defs", "$schema"};

}  // namespace

json integerSchema(long long lowest, unsigned long long highest, bool bounded) {
    json schema = {{"type", "integer"}};
    if (bounded) {
        schema["minimum"] = lowest;
        schema["maximum"] = highest;
    } else if (lowest == 0) {
        schema["minimum"] = 0;
    }
    return schema;
}

json enumSchema(std::vector<std::string_view> names) {
    json values = json::array();
    for (const auto name : names) {
        values.push_back(std::string(name));
    }
    return {{"type", "string"}, {"enum", std::move(values)}};
}

json refTo(SchemaContext& context, std::type_index type, const std::string& title) {
    if (context.open.front() == type) {
        return {{"$ref", "#"}};
    }
    const auto known = std::find_if(context.recursive.begin(), context.recursive.end(),
                                    [&](const auto& entry) { return entry.first == type; });
    if (known != context.recursive.end()) {
        return {{"$ref", "#/$defs/" + escapeStep(known->second)}};
    }
    std::string name = title.empty() ? "Type" + std::to_string(context.recursive.size() + 1) : title;
    const auto taken = [&](const std::string& candidate) {
        return std::any_of(context.recursive.begin(), context.recursive.end(),
                           [&](const auto& entry) { return entry.second == candidate; });
    };
    for (int n = 2; taken(name); ++n) {
        name = (title.empty() ? "Type" : title) + "_" + std::to_string(n);
    }
    context.recursive.emplace_back(type, name);
    return {{"$ref", "#/$defs/" + escapeStep(name)}};
}

json closeStruct(SchemaContext& context, std::type_index type, json schema) {
    if (context.open.empty()) {
        return schema;  // the outermost struct: "#" refers to it
    }
    const auto known = std::find_if(context.recursive.begin(), context.recursive.end(),
                                    [&](const auto& entry) { return entry.first == type; });
    if (known == context.recursive.end()) {
        return schema;
    }
    context.defs[known->second] = std::move(schema);
    return {{"$ref", "#/$defs/" + escapeStep(known->second)}};
}

void annotateMember(json& schema, const std::string& member, const json& keywords,
                    std::vector<std::string>& problems) {
    if (!keywords.is_object()) {
        problems.push_back("the annotation of '" + member + "' must be a JSON object of keywords, not " +
                           kindOf(keywords));
        return;
    }
    if (schema.contains("$ref")) {
        // A sibling of $ref is ignored by validators: wrap the reference.
        schema = {{"allOf", json::array({schema})}};
    }
    for (const auto& [key, value] : keywords.items()) {
        if (std::find(kOwnedKeywords.begin(), kOwnedKeywords.end(), key) != kOwnedKeywords.end()) {
            problems.push_back("the annotation of '" + member + "' sets '" + key +
                               "', which the member's C++ type decides");
            continue;
        }
        schema[key] = value;
    }
}

DecodeError mismatch(std::string_view expected, const json& got) {
    return {{}, "expected " + std::string(expected) + ", got " + kindOf(got) + " (" + quote(got) + ")"};
}

DecodeError outOfRange(const json& got, long long lowest, unsigned long long highest) {
    return {{},
            quote(got) + " is out of range: the member takes " + std::to_string(lowest) + " to " +
                std::to_string(highest)};
}

DecodeError notEnumerator(const json& got, std::vector<std::string_view> names) {
    return {{}, "expected one of " + join(names) + ", got " + quote(got)};
}

DecodeError missingMember(std::string_view name) {
    return {{}, "the required member '" + std::string(name) + "' is missing"};
}

DecodeError unknownMember(const std::string& name) {
    return {{}, "'" + name + "' is not a member of this object"};
}

void within(DecodeError& error, std::string_view step) {
    error.path = "/" + escapeStep(step) + error.path;
}

void within(DecodeError& error, std::size_t index) {
    error.path = "/" + std::to_string(index) + error.path;
}

}  // namespace detail

}  // namespace reagent::tools
