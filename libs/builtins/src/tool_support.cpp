#include "tool_support.hpp"

#include <cstdint>
#include <stdexcept>

#include "reagent/core/detail/utf8.hpp"

namespace reagent::builtins::detail {

tools::ToolError toolError(const WorkspaceError& error) {
    const auto code = error.code == WorkspaceErrc::invalid_argument ? tools::ToolErrc::invalid_arguments
                                                                    : tools::ToolErrc::failed;
    tools::ToolError result{code, error.describe()};
    result.details = nlohmann::json{{kWorkspaceCodeKey, std::string(toString(error.code))}};
    return result;
}

expected<std::chrono::milliseconds, tools::ToolError> timeoutArg(const nlohmann::json& args,
                                                                 std::chrono::milliseconds fallback,
                                                                 std::chrono::milliseconds max) {
    const auto timeout = std::chrono::milliseconds(args.value("timeoutMs", fallback.count()));
    if (timeout.count() <= 0 || timeout > max) {
        return fail(tools::ToolError{tools::ToolErrc::invalid_arguments,
                                     "timeoutMs must be from 1 to " + std::to_string(max.count())});
    }
    return timeout;
}

nlohmann::json commandResultJson(const CommandResult& result) {
    return {{"exit_code", result.exitCode},
            {"stdout", result.stdoutText},
            {"stderr", result.stderrText},
            {"signal", result.signal ? nlohmann::json(*result.signal) : nlohmann::json(nullptr)},
            {"timed_out", result.timedOut}};
}

std::string dumpToolJson(const nlohmann::json& json) {
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::size_t sizeArg(const nlohmann::json& args, const char* name, std::size_t fallback) {
    // The schema's minimum already refused negative values; they stay harmless here.
    const std::int64_t value = integerOr(args, name, -1);
    return value < 0 ? fallback : static_cast<std::size_t>(value);
}

tools::Tool built(const tools::ToolBuilder& builder) {
    auto tool = builder.build();
    if (!tool) {
        throw std::logic_error("built-in tool definition: " + tool.error().describe());
    }
    return std::move(*tool);
}

tools::ToolBuilder fileToolBuilder(std::string_view name, std::string description, nlohmann::json properties,
                                   nlohmann::json required, std::chrono::milliseconds timeout) {
    auto builder = tools::ToolBuilder::create(std::string(name));
    builder.description(std::move(description))
        .schema(nlohmann::json{{"type", "object"},
                               {"properties", std::move(properties)},
                               {"required", std::move(required)},
                               {"additionalProperties", false}})
        .category("file")
        .timeout(timeout);
    return builder;
}

nlohmann::json stringProperty(std::string description, const char* defaultValue) {
    nlohmann::json property{{"type", "string"}, {"minLength", 1}, {"description", std::move(description)}};
    if (defaultValue != nullptr) {
        property["default"] = defaultValue;
    }
    return property;
}

nlohmann::json booleanProperty(bool defaultValue, std::string description) {
    return nlohmann::json{
        {"type", "boolean"}, {"default", defaultValue}, {"description", std::move(description)}};
}

nlohmann::json integerProperty(std::size_t minimum, std::string description,
                               std::optional<std::size_t> defaultValue) {
    nlohmann::json property{
        {"type", "integer"}, {"minimum", minimum}, {"description", std::move(description)}};
    if (defaultValue) {
        property["default"] = *defaultValue;
    }
    return property;
}

std::string counted(std::size_t count, std::string_view singular, std::string_view plural) {
    return std::to_string(count) + " " + std::string(count == 1 ? singular : plural);
}

std::string shortened(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes) {
        return std::string(text);
    }
    std::string cut(reagent::detail::utf8Prefix(text, maxBytes));
    cut += "\xE2\x80\xA6";
    return cut;
}

void recordCheckpoint(const tools::ToolContext& context, const std::optional<std::string>& id) {
    if (id && context.artifacts != nullptr) {
        (*context.artifacts)[tools::kCheckpointArtifact] = *id;
    }
}

}  // namespace reagent::builtins::detail
