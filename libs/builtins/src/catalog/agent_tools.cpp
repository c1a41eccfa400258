#include "reagent/builtins/agent_tools.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <optional>
#include <utility>

#include "reagent/builtins/file_tools.hpp"
#include "reagent/builtins/local_workspace.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "tool_support.hpp"

namespace reagent::builtins {
namespace {

using nlohmann::json;
using tools::ToolErrc;

// Room kept at the end of a cut output for the line saying how much was cut.
constexpr std::size_t kCutNoticeBytes = 160;
constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;
constexpr std::chrono::milliseconds kMaxToolTimeout{3'600'000};

StartupError outOfRange(const std::string& field, const std::string& value, const std::string& range) {
    return {StartupErrc::out_of_range, field + " is " + value + "; it must lie in " + range};
}

expected<void, StartupError> checkLimits(const AgentToolsConfig& config) {
    if (config.maxOutputBytes < kMinOutputBytes || config.maxOutputBytes > kMaxOutputBytes) {
        return fail(outOfRange(
            "maxOutputBytes", std::to_string(config.maxOutputBytes),
            "[" + std::to_string(kMinOutputBytes) + ", " + std::to_string(kMaxOutputBytes) + "] bytes"));
    }
    if (config.maxFileBytes < 1 || config.maxFileBytes > kMaxFileBytes) {
        return fail(outOfRange("maxFileBytes", std::to_string(config.maxFileBytes),
                               "[1, " + std::to_string(kMaxFileBytes) + "] bytes"));
    }
    if (config.toolTimeout.count() < 1 || config.toolTimeout > kMaxToolTimeout) {
        return fail(outOfRange("toolTimeout", std::to_string(config.toolTimeout.count()) + " ms",
                               "[1, " + std::to_string(kMaxToolTimeout.count()) + "] ms"));
    }
    return {};
}

StartupError fromWorkspace(const WorkspaceError& error) {
    switch (error.code) {
        case WorkspaceErrc::not_found:
            return {StartupErrc::missing_workspace, "workspaceRoot: " + error.message};
        case WorkspaceErrc::not_a_directory:
            return {StartupErrc::not_a_directory, "workspaceRoot: " + error.message};
        case WorkspaceErrc::invalid_argument:
            return {StartupErrc::invalid_setting, error.message};
        default:
            return {StartupErrc::unavailable, "the workspace could not be opened: " + error.describe()};
    }
}

// Without a handler of the caller's, a call that needs approval is approved: the caller of `callTool`
// decided to make it, and `readOnly` is the switch that refuses writes.
Task<bool> approveAll(tools::ToolCallRequest, tools::ToolDefinition) {
    co_return true;
}

// The envelope's code: the tool layer's, or the workspace's for a refused path or file.
std::string envelopeCode(const tools::ToolError& error) {
    switch (error.code) {
        case ToolErrc::unknown_tool:
            return "not_found";
        case ToolErrc::approval_denied:
        case ToolErrc::approval_unavailable:
            return "approval_denied";
        case ToolErrc::exception:
            return "internal_error";
        case ToolErrc::failed: {
            if (error.details.is_object() && error.details.contains(detail::kWorkspaceCodeKey)) {
                const auto code = error.details[detail::kWorkspaceCodeKey].get<std::string>();
                // `not_found` is kept for tools; a missing file or directory says so.
                return code == "not_found" ? "path_not_found" : code;
            }
            return "tool_error";
        }
        default:
            return std::string(toString(error.code));
    }
}

bool isBlank(const std::string& text) {
    return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace

expected<std::shared_ptr<AgentTools>, StartupError> createAgentTools(AgentToolsConfig config) {
    if (config.workspaceRoot.empty()) {
        return fail(StartupError{StartupErrc::missing_workspace,
                                 "workspaceRoot is required: the directory the tools are confined to"});
    }
    if (auto limits = checkLimits(config); !limits) {
        return fail(std::move(limits.error()));
    }
    LocalWorkspaceConfig local;
    local.root = config.workspaceRoot;
    local.maxFileBytes = config.maxFileBytes;
    local.checkpointDirectory = config.checkpointDirectory;
    auto workspace = LocalWorkspace::create(std::move(local));
    if (!workspace) {
        return fail(fromWorkspace(workspace.error()));
    }
    config.workspaceRoot = (*workspace)->root();
    std::shared_ptr<AgentTools> result(new AgentTools(std::move(config), std::move(*workspace)));

    FileToolOptions options;
    options.checkpoint = result->config_.checkpoints;
    options.timeout = result->config_.toolTimeout;
    for (auto& tool : fileTools(result->workspace_, options)) {
        if (result->config_.readOnly && tool.definition.sideEffect) {
            result->hidden_.push_back(tool.definition.name);
            continue;
        }
        const std::string name = tool.definition.name;
        if (auto added = result->registry_.add(std::move(tool)); !added) {
            return fail(StartupError{StartupErrc::unavailable, "tool " + name + " could not be registered: " +
                                                                   added.error().describe()});
        }
    }
    return result;
}

AgentTools::AgentTools(AgentToolsConfig config, std::shared_ptr<ExecutionAdapter> workspace)
    : config_(std::move(config)), workspace_(std::move(workspace)), executor_(registry_) {
    if (config_.approval) {
        executor_.setApprovalHandler(config_.approval);
    } else {
        executor_.setApprovalHandler(&approveAll);
    }
}

AgentTools::~AgentTools() = default;

std::vector<ToolInfo> AgentTools::listTools() const {
    std::vector<ToolInfo> result;
    for (const auto& entry : registry_.all()) {
        const auto& definition = entry->tool.definition;
        result.push_back(ToolInfo{definition.name, definition.description, definition.inputSchema});
    }
    return result;
}

DispatchResult AgentTools::bounded(std::string text) const {
    const std::size_t limit = config_.maxOutputBytes;
    if (text.size() <= limit) {
        return DispatchResult{false, std::move(text)};
    }
    const std::string_view kept = reagent::detail::utf8Prefix(text, limit - kCutNoticeBytes);
    std::string result(kept);
    result += "\n[output truncated: " + std::to_string(text.size() - kept.size()) + " of " +
              std::to_string(text.size()) + " bytes not shown (maxOutputBytes " + std::to_string(limit) +
              "); ask for less: a line range, a narrower path or pattern]";
    return DispatchResult{false, std::move(result)};
}

DispatchResult AgentTools::failure(const std::string& tool, const tools::ToolError& error) const {
    json body = {{"code", envelopeCode(error)},
                 {"message", detail::shortened(error.message, config_.maxOutputBytes / 2)},
                 {"tool", tool}};
    if (!error.details.is_null() &&
        !(error.details.is_object() && error.details.contains(detail::kWorkspaceCodeKey))) {
        const std::string details = error.details.dump();
        if (details.size() < config_.maxOutputBytes / 4) {
            body["details"] = error.details;
        }
    }
    return DispatchResult{
        true, json{{"error", std::move(body)}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

Task<DispatchResult> AgentTools::dispatch(std::string name, std::string argsJson) {
    if (!registry_.find(name)) {
        std::string message;
        if (std::find(hidden_.begin(), hidden_.end(), name) != hidden_.end()) {
            message = "tool " + name + " is not available: the tools are read-only (it changes files)";
        } else {
            message = "unknown tool '" + name + "'; available tools:";
            for (const auto& entry : registry_.all()) {
                message += " " + entry->tool.definition.name;
            }
        }
        co_return failure(name, tools::ToolError{ToolErrc::unknown_tool, std::move(message)});
    }
    auto parsed =
        isBlank(argsJson) ? expected<json, JsonError>(json::object()) : parseUntrustedJson(argsJson);
    if (!parsed) {
        co_return failure(name,
                          tools::ToolError{ToolErrc::invalid_arguments,
                                           "the arguments are not valid JSON: " + parsed.error().message});
    }
    json args = parsed->is_null() ? json::object() : std::move(*parsed);
    if (!args.is_object()) {
        co_return failure(
            name, tools::ToolError{ToolErrc::invalid_arguments, "the arguments must be a JSON object"});
    }
    tools::ToolCallRequest request;
    request.id = "call_" + std::to_string(++calls_);
    request.name = name;
    request.arguments = std::move(args);
    auto task = executor_.executeOne(std::move(request), 0);
    auto record = co_await std::move(task);
    if (!record.outcome) {
        co_return failure(name, record.outcome.error());
    }
    DispatchResult result = bounded(std::move(*record.outcome));
    result.content = std::move(record.content);
    co_return result;
}

Task<DispatchResult> AgentTools::callTool(std::string name, std::string argsJson) {
    const std::string tool = name;
    auto task = settle(dispatch(std::move(name), std::move(argsJson)));
    auto settled = co_await std::move(task);
    if (settled) {
        co_return std::move(*settled);
    }
    const auto code =
        settled.error().code == EffectErrc::cancelled ? ToolErrc::cancelled : ToolErrc::exception;
    co_return failure(tool, tools::ToolError{code, settled.error().message});
}

DispatchResult AgentTools::callToolBlocking(std::string name, std::string argsJson) {
    boost::asio::io_context io;
    std::optional<DispatchResult> result;
    boost::asio::co_spawn(
        io, callTool(std::move(name), std::move(argsJson)),
        [&result](const std::exception_ptr&, DispatchResult value) { result = std::move(value); });
    io.run();
    if (!result) {
        return failure("", tools::ToolError{ToolErrc::exception, "the call did not complete"});
    }
    return std::move(*result);
}

}  // namespace reagent::builtins
