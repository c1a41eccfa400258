#include "codec_common.hpp"

namespace reagent::providers::detail {

std::string systemPrompt(const llm::ModelRequest& request) {
    std::string prompt;
    for (const llm::Message& message : request.messages) {
        if (message.role != llm::Role::system || message.text.empty()) {
            continue;
        }
        if (!prompt.empty()) {
            prompt += "\n\n";
        }
        prompt += message.text;
    }
    return prompt;
}

nlohmann::json toolSchema(const llm::ToolSpec& tool) {
    if (tool.inputSchema.is_object() && !tool.inputSchema.empty()) {
        return tool.inputSchema;
    }
    return {{"type", "object"}, {"properties", nlohmann::json::object()}};
}

nlohmann::json functionTools(const llm::ModelRequest& request, const ToolNameMap& names) {
    nlohmann::json tools = nlohmann::json::array();
    for (const llm::ToolSpec& tool : request.tools) {
        nlohmann::json function = {{"name", names.toWire(tool.name)}, {"parameters", toolSchema(tool)}};
        if (!tool.description.empty()) {
            function["description"] = tool.description;
        }
        tools.push_back({{"type", "function"}, {"function", std::move(function)}});
    }
    return tools;
}

nlohmann::json argumentsObject(const nlohmann::json& arguments) {
    if (arguments.is_object()) {
        return arguments;
    }
    if (arguments.is_null()) {
        return nlohmann::json::object();
    }
    return {{"value", arguments}};
}

}  // namespace reagent::providers::detail
