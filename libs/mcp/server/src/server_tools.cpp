#include "server_tools.hpp"

#include <string>
#include <utility>

namespace reagent::mcp::detail {

using nlohmann::json;

namespace {

constexpr std::string_view kCursorPrefix = "tools@";

std::string bounded(std::string text, std::size_t maxBytes) {
    if (text.size() <= maxBytes) {
        return text;
    }
    std::size_t cut = maxBytes;
    // Back off continuation bytes (10xxxxxx) so that no character is split.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
        --cut;
    }
    const std::size_t dropped = text.size() - cut;
    text.resize(cut);
    text += "\n[output cut: " + std::to_string(dropped) + " more bytes not shown]";
    return text;
}

json textResult(std::string text, bool isError) {
    json block = {{"type", "text"}};
    block["text"] = std::move(text);
    json result = {{"content", json::array({std::move(block)})}};
    if (isError) {
        result["isError"] = true;
    }
    return result;
}

}  // namespace

json listedTool(const tools::ToolDefinition& definition, bool sideEffect) {
    const bool readOnly = !sideEffect && definition.idempotent;
    json annotations = {{"readOnlyHint", readOnly}};
    if (!readOnly) {
        annotations["destructiveHint"] =
            definition.riskLevel != tools::RiskLevel::low || !definition.idempotent;
    }
    annotations["idempotentHint"] = readOnly;
    json listed = {{"name", definition.name},
                   {"description", definition.description},
                   {"inputSchema", definition.inputSchema},
                   {"annotations", std::move(annotations)}};
    if (!definition.outputSchema.is_null()) {
        listed["outputSchema"] = definition.outputSchema;
    }
    return listed;
}

expected<std::size_t, RpcError> pageStart(const json& params, std::string_view prefix, std::size_t count) {
    if (!params.is_object() || !params.contains("cursor") || params["cursor"].is_null()) {
        return std::size_t{0};
    }
    const json& cursor = params["cursor"];
    const std::string text = cursor.is_string() ? cursor.get<std::string>() : std::string();
    std::size_t start = 0;
    bool valid = text.size() > prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
    if (valid) {
        const std::string digits = text.substr(prefix.size());
        valid = digits.find_first_not_of("0123456789") == std::string::npos && digits.size() < 10;
        if (valid) {
            start = std::stoul(digits);
            valid = start <= count;
        }
    }
    if (!valid) {
        return fail(RpcError{
            kInvalidParams,
            "invalid cursor: " + cursor.dump() + " (pass the nextCursor of the previous page)", nullptr});
    }
    return start;
}

expected<json, RpcError> toolsPage(const tools::ToolRegistry& registry, const tools::ToolExecutor& executor,
                                   const json& params, std::size_t pageSize) {
    const auto all = registry.all();
    const auto first = pageStart(params, kCursorPrefix, all.size());
    if (!first) {
        return fail(first.error());
    }
    const std::size_t start = *first;
    json listed = json::array();
    const std::size_t end = std::min(all.size(), start + pageSize);
    for (std::size_t i = start; i < end; ++i) {
        const auto& definition = all[i]->tool.definition;
        listed.push_back(listedTool(definition, executor.isSideEffect(definition)));
    }
    json result = {{"tools", std::move(listed)}};
    if (end < all.size()) {
        result["nextCursor"] = std::string(kCursorPrefix) + std::to_string(end);
    }
    return result;
}

json callResult(const tools::ToolResult& outcome, std::size_t maxBytes) {
    if (outcome) {
        return textResult(bounded(*outcome, maxBytes), false);
    }
    return textResult(bounded(outcome.error().describe(), maxBytes), true);
}

json callResult(const tools::ToolCallRecord& record, std::size_t maxBytes) {
    json result = callResult(record.outcome, maxBytes);
    if (!record.outcome) {
        return result;
    }
    if (!record.content.empty()) {
        json& content = result["content"];
        if (content.size() == 1 && content[0]["text"].get_ref<const std::string&>().empty()) {
            content = json::array();
        }
        for (const auto& block : record.content) {
            content.push_back(block);
        }
    }
    if (!record.structured.is_null()) {
        result["structuredContent"] = record.structured;
    }
    return result;
}

}  // namespace reagent::mcp::detail
