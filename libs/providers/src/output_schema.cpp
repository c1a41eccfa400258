#include "output_schema.hpp"

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "reagent/providers/tool_name_map.hpp"

namespace reagent::providers::detail {

namespace {

using nlohmann::json;

// Keywords whose value is one schema, a list of schemas, or a map of names to schemas.
constexpr std::array<std::string_view, 11> kSchemaKeywords = {"additionalItems",
                                                              "additionalProperties",
                                                              "contains",
                                                              "contentSchema",
                                                              "else",
                                                              "if",
                                                              "not",
                                                              "propertyNames",
                                                              "then",
                                                              "unevaluatedItems",
                                                              "unevaluatedProperties"};
constexpr std::array<std::string_view, 5> kSchemaListKeywords = {"allOf", "anyOf", "items", "oneOf",
                                                                 "prefixItems"};
constexpr std::array<std::string_view, 6> kSchemaMapKeywords = {
    "$defs", "definitions", "dependentSchemas", "dependencies", "patternProperties", "properties"};

// What OpenAI's strict mode refuses (its SDK's own list of unsupported keywords).
const std::set<std::string_view>& strictRefuses() {
    static const std::set<std::string_view> keywords = {"$anchor",
                                                        "$dynamicAnchor",
                                                        "$dynamicRef",
                                                        "$recursiveAnchor",
                                                        "$recursiveRef",
                                                        "allOf",
                                                        "contains",
                                                        "contentEncoding",
                                                        "contentMediaType",
                                                        "contentSchema",
                                                        "dependentRequired",
                                                        "dependentSchemas",
                                                        "dependencies",
                                                        "else",
                                                        "if",
                                                        "maxContains",
                                                        "maxProperties",
                                                        "minContains",
                                                        "minProperties",
                                                        "not",
                                                        "oneOf",
                                                        "patternProperties",
                                                        "prefixItems",
                                                        "propertyNames",
                                                        "then",
                                                        "unevaluatedItems",
                                                        "unevaluatedProperties",
                                                        "uniqueItems"};
    return keywords;
}

bool isObjectType(const json& node) {
    const auto type = node.find("type");
    return type != node.end() && type->is_string() && type->get_ref<const std::string&>() == "object";
}

// Every schema directly inside `node`, mutable, with the keyword that holds it.
void forEachChild(json& node, const std::function<void(json&)>& visit) {
    for (const std::string_view keyword : kSchemaKeywords) {
        if (const auto it = node.find(keyword); it != node.end() && it->is_object()) {
            visit(*it);
        }
    }
    for (const std::string_view keyword : kSchemaListKeywords) {
        if (const auto it = node.find(keyword); it != node.end()) {
            if (it->is_array()) {
                for (json& child : *it) {
                    visit(child);
                }
            } else if (it->is_object()) {
                visit(*it);
            }
        }
    }
    for (const std::string_view keyword : kSchemaMapKeywords) {
        if (const auto it = node.find(keyword); it != node.end() && it->is_object()) {
            for (auto& child : it->items()) {
                if (child.value().is_object()) {
                    visit(child.value());
                }
            }
        }
    }
}

// OpenAI strict: closes `node`'s objects in place; false when a rule is broken.
bool makeStrict(json& node) {
    if (!node.is_object()) {
        return node.is_boolean() && node.get<bool>();  // `true` is any value; `false` nothing
    }
    for (const auto& member : node.items()) {
        if (strictRefuses().count(member.key()) != 0) {
            return false;
        }
    }
    if (isObjectType(node)) {
        const auto additional = node.find("additionalProperties");
        if (additional != node.end() && *additional != json(false)) {
            return false;
        }
        node["additionalProperties"] = false;
        const auto properties = node.find("properties");
        const auto required = node.find("required");
        if (properties != node.end() && properties->is_object() && !properties->empty()) {
            if (required == node.end() || !required->is_array()) {
                return false;
            }
            for (const auto& property : properties->items()) {
                if (std::find(required->begin(), required->end(), json(property.key())) == required->end()) {
                    return false;
                }
            }
        }
    }
    bool strict = true;
    forEachChild(node, [&](json& child) { strict = strict && makeStrict(child); });
    return strict;
}

// The string formats Anthropic's structured outputs enforce.
bool anthropicFormat(const json& format) {
    static const std::set<std::string, std::less<>> formats = {
        "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"};
    return format.is_string() && formats.count(format.get_ref<const std::string&>()) != 0;
}

bool isScalarValue(const json& value) {
    return !value.is_object() && !value.is_array();
}

// Anthropic: `node` rebuilt from what the API enforces; the rest becomes a note in its description.
std::optional<json> anthropicNode(json node) {
    if (!node.is_object()) {
        return node;  // `true` / `false` schemas
    }
    json out = json::object();
    auto take = [&](std::string_view key) -> std::optional<json> {
        const auto it = node.find(key);
        if (it == node.end()) {
            return std::nullopt;
        }
        json value = std::move(*it);
        node.erase(it);
        return value;
    };
    if (auto defs = take("$defs")) {
        json converted = json::object();
        for (auto& def : defs->items()) {
            auto schema = anthropicNode(std::move(def.value()));
            if (!schema) {
                return std::nullopt;
            }
            converted[def.key()] = std::move(*schema);
        }
        out["$defs"] = std::move(converted);
    }
    if (auto ref = take("$ref")) {
        out["$ref"] = std::move(*ref);
        return out;  // what sits beside a $ref is ignored by the API
    }
    bool literal = false;
    if (auto values = take("enum")) {
        if (values->is_array() && !values->empty() &&
            std::all_of(values->begin(), values->end(), isScalarValue)) {
            out["enum"] = std::move(*values);
            literal = true;
        } else {
            node["enum"] = std::move(*values);
        }
    }
    if (auto constant = take("const")) {
        if (isScalarValue(*constant)) {
            out["const"] = std::move(*constant);
            literal = true;
        } else {
            node["const"] = std::move(*constant);
        }
    }
    std::optional<json> type = take("type");
    take("$schema");
    take("$id");
    std::optional<json> variants = take("anyOf");
    if (auto oneOf = take("oneOf"); oneOf && !variants) {
        variants = std::move(oneOf);
    } else if (oneOf) {
        node["oneOf"] = std::move(*oneOf);
    }
    const char* composition = "anyOf";
    if (!variants) {
        variants = take("allOf");
        composition = "allOf";
    }
    if (variants && variants->is_array()) {
        json converted = json::array();
        for (json& variant : *variants) {
            auto schema = anthropicNode(std::move(variant));
            if (!schema) {
                return std::nullopt;
            }
            converted.push_back(std::move(*schema));
        }
        out[composition] = std::move(converted);
    } else if (!literal) {
        if (!type) {
            return std::nullopt;  // the API needs a type where nothing else says what the value is
        }
        out["type"] = *type;
    }
    if (auto description = take("description")) {
        out["description"] = std::move(*description);
    }
    if (auto title = take("title")) {
        out["title"] = std::move(*title);
    }
    const std::string kind = type && type->is_string() && !literal ? type->get<std::string>() : "";
    if (kind == "object") {
        json properties = json::object();
        if (auto given = take("properties"); given && given->is_object()) {
            for (auto& property : given->items()) {
                auto schema = anthropicNode(std::move(property.value()));
                if (!schema) {
                    return std::nullopt;
                }
                properties[property.key()] = std::move(*schema);
            }
        }
        out["properties"] = std::move(properties);
        take("additionalProperties");
        out["additionalProperties"] = false;
        if (auto required = take("required")) {
            out["required"] = std::move(*required);
        }
    } else if (kind == "string") {
        if (auto format = take("format")) {
            json& keeper = anthropicFormat(*format) ? out : node;  // decided before the value moves
            keeper["format"] = std::move(*format);
        }
    } else if (kind == "array") {
        if (auto items = take("items")) {
            auto schema = anthropicNode(std::move(*items));
            if (!schema) {
                return std::nullopt;
            }
            out["items"] = std::move(*schema);
        }
        if (auto minItems = take("minItems")) {
            json& keeper = *minItems == json(0) || *minItems == json(1) ? out : node;
            keeper["minItems"] = std::move(*minItems);
        }
    }
    if (!node.empty()) {
        // "{minimum: 1, maxLength: 40}": the model reads what the decoder will not enforce.
        std::string note = "{";
        for (const auto& member : node.items()) {
            if (note.size() > 1) {
                note += ", ";
            }
            note += member.key() + ": " + member.value().dump(-1, ' ', false, json::error_handler_t::replace);
        }
        note += "}";
        const auto description = out.find("description");
        if (description != out.end() && description->is_string()) {
            *description = description->get<std::string>() + "\n\n" + note;
        } else {
            out["description"] = std::move(note);
        }
    }
    return out;
}

// The local `$ref`s in `node` ("#", "#/$defs/Name", "#/definitions/Name").
void collectRefs(const json& node, std::set<std::string>& refs) {
    if (node.is_object()) {
        if (const auto ref = node.find("$ref"); ref != node.end() && ref->is_string()) {
            refs.insert(ref->get<std::string>());
        }
        for (const auto& member : node.items()) {
            collectRefs(member.value(), refs);
        }
    } else if (node.is_array()) {
        for (const json& item : node) {
            collectRefs(item, refs);
        }
    }
}

// True when a definition reaches itself through `$ref`s, or anything refers to the root.
bool hasRecursiveRef(const json& schema) {
    std::set<std::string> rootRefs;
    collectRefs(schema, rootRefs);
    if (rootRefs.count("#") != 0) {
        return true;
    }
    std::map<std::string, std::set<std::string>> edges;
    for (const char* container : {"$defs", "definitions"}) {
        const auto defs = schema.find(container);
        if (defs == schema.end() || !defs->is_object()) {
            continue;
        }
        for (const auto& def : defs->items()) {
            collectRefs(def.value(), edges[std::string("#/") + container + "/" + def.key()]);
        }
    }
    // Depth-first search for a cycle: 0 unseen, 1 on the path, 2 done.
    std::map<std::string, int> mark;
    std::function<bool(const std::string&)> cycle = [&](const std::string& ref) {
        int& state = mark[ref];
        if (state != 0) {
            return state == 1;
        }
        state = 1;
        if (const auto next = edges.find(ref); next != edges.end()) {
            for (const std::string& target : next->second) {
                if (cycle(target)) {
                    return true;
                }
            }
        }
        mark[ref] = 2;
        return false;
    };
    for (const auto& edge : edges) {
        if (cycle(edge.first)) {
            return true;
        }
    }
    return false;
}

}  // namespace

json withoutRootMetadata(const json& schema) {
    if (!schema.is_object() || (!schema.contains("$schema") && !schema.contains("$id"))) {
        return schema;
    }
    json copy = schema;
    copy.erase("$schema");
    copy.erase("$id");
    return copy;
}

std::optional<json> openAiStrictSchema(const json& schema) {
    if (!schema.is_object() || !isObjectType(schema)) {
        return std::nullopt;
    }
    json strict = withoutRootMetadata(schema);
    if (!makeStrict(strict)) {
        return std::nullopt;
    }
    return strict;
}

std::optional<json> anthropicSchema(const json& schema) {
    if (!schema.is_object() || hasRecursiveRef(schema)) {
        return std::nullopt;
    }
    return anthropicNode(schema);
}

bool sendsOutput(const llm::ModelRequest& request, const CodecOptions& options) noexcept {
    return request.output != nullptr && options.nativeOutput != NativeOutput::never;
}

std::string outputName(const llm::OutputFormat& format) {
    return ToolNameMap::isValid(format.name, ToolNameRules::standard) ? format.name : "output";
}

}  // namespace reagent::providers::detail
