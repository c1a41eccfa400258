#include <string>

#include "reagent/core/json_fields.hpp"
#include "reagent/mcp/protocol.hpp"

namespace reagent::mcp {
namespace {

using nlohmann::json;

// Decoded size of a base64 text, for a description of a binary block.
std::size_t base64Bytes(const std::string& data) {
    std::size_t padding = 0;
    for (auto it = data.rbegin(); it != data.rend() && *it == '='; ++it) {
        ++padding;
    }
    return data.size() / 4 * 3 - std::min<std::size_t>(padding, 2);
}

std::string sizeText(std::size_t bytes) {
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::string describeResource(const json& resource) {
    const std::string uri = stringOr(resource, "uri");
    const std::string mime = stringOr(resource, "mimeType");
    if (resource.is_object() && resource.contains("text") && resource.at("text").is_string()) {
        std::string text = "[resource " + uri + (mime.empty() ? "" : " (" + mime + ")") + "]\n";
        text += resource.at("text").get<std::string>();
        return text;
    }
    std::string text = "[binary resource " + uri;
    if (!mime.empty()) {
        text += ", " + mime;
    }
    const std::string blob = stringOr(resource, "blob");
    if (!blob.empty()) {
        text += ", " + sizeText(base64Bytes(blob));
    }
    return text + "]";
}

std::string describeBlock(const json& block) {
    const std::string type = stringOr(block, "type");
    if (type == "text") {
        return stringOr(block, "text");
    }
    if (type == "image" || type == "audio") {
        std::string text = "[" + type;
        const std::string mime = stringOr(block, "mimeType");
        if (!mime.empty()) {
            text += " " + mime;
        }
        text += ", " + sizeText(base64Bytes(stringOr(block, "data"))) + "]";
        return text;
    }
    if (type == "resource") {
        return describeResource(block.is_object() ? block.value("resource", json::object()) : json::object());
    }
    if (type == "resource_link") {
        std::string text = "[resource link " + stringOr(block, "uri");
        const std::string name = stringOr(block, "name");
        if (!name.empty()) {
            text += " \"" + name + "\"";
        }
        const std::string mime = stringOr(block, "mimeType");
        if (!mime.empty()) {
            text += ", " + mime;
        }
        const std::string description = stringOr(block, "description");
        if (!description.empty()) {
            text += ": " + description;
        }
        return text + "]";
    }
    return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

}  // namespace

std::string contentToText(const nlohmann::json& content) {
    if (!content.is_array()) {
        return {};
    }
    std::string text;
    bool first = true;
    for (const json& block : content) {
        if (!first) {
            text += "\n\n";
        }
        first = false;
        text += describeBlock(block);
    }
    return text;
}

nlohmann::json fillElicitationDefaults(const nlohmann::json& requestedSchema, nlohmann::json result) {
    if (!result.is_object() || result.value("action", "") != "accept" || !requestedSchema.is_object()) {
        return result;
    }
    auto properties = requestedSchema.find("properties");
    if (properties == requestedSchema.end() || !properties->is_object()) {
        return result;
    }
    if (!result.contains("content") || !result.at("content").is_object()) {
        result["content"] = json::object();
    }
    json& content = result.at("content");
    for (const auto& [name, schema] : properties->items()) {
        if (schema.is_object() && schema.contains("default") && !content.contains(name)) {
            content[name] = schema.at("default");
        }
    }
    return result;
}

}  // namespace reagent::mcp
