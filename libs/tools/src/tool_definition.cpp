#include "reagent/tools/tool_definition.hpp"

#include <string>
#include <vector>

#include "reagent/core/enum_name.hpp"

namespace reagent::tools {

namespace {

constexpr std::size_t kMaxNameLength = 128;

bool isNameStart(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isNameChar(char c) noexcept {
    return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':' || c == '/';
}

bool describesObject(const nlohmann::json& schema) {
    if (!schema.is_object()) {
        return false;
    }
    const auto type = schema.find("type");
    return type != schema.end() && type->is_string() && type->get_ref<const std::string&>() == "object";
}

}  // namespace

std::string_view toString(RiskLevel level) noexcept {
    return enumName(level);
}

std::string_view toString(ToolMode mode) noexcept {
    return enumName(mode);
}

bool isValidToolName(std::string_view name) noexcept {
    if (name.empty() || name.size() > kMaxNameLength || !isNameStart(name.front())) {
        return false;
    }
    for (const char c : name.substr(1)) {
        if (!isNameChar(c)) {
            return false;
        }
    }
    return true;
}

expected<void, ToolError> validateDefinition(const ToolDefinition& definition) {
    std::vector<std::string> problems;
    if (!isValidToolName(definition.name)) {
        problems.push_back("name '" + definition.name + "' must match ^[a-zA-Z_][a-zA-Z0-9_.:/-]{0,127}$");
    }
    if (definition.description.find_first_not_of(" \t\r\n") == std::string::npos) {
        problems.emplace_back("description is required (the model reads it to choose the tool)");
    }
    if (definition.timeout.count() <= 0) {
        problems.push_back("timeout must be positive, got " + std::to_string(definition.timeout.count()) +
                           " ms");
    }
    if (!describesObject(definition.inputSchema)) {
        problems.emplace_back(R"(inputSchema must be a JSON Schema of an object ({"type": "object", ...}))");
    }
    if (problems.empty()) {
        return {};
    }
    std::string message = "invalid tool definition '" + definition.name + "': ";
    for (std::size_t i = 0; i < problems.size(); ++i) {
        message += (i == 0 ? "" : "; ") + problems[i];
    }
    return fail(ToolError{ToolErrc::invalid_definition, std::move(message), nlohmann::json(problems)});
}

}  // namespace reagent::tools
