// The built-in tools by name: the defaults of withTools(), `include` selections, read-only mode.

#include "reagent/builtins/builtin_tools.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "reagent/builtins/code_execute.hpp"
#include "reagent/builtins/command_tools.hpp"
#include "reagent/builtins/file_tools.hpp"
#include "reagent/builtins/local_workspace.hpp"
#include "reagent/builtins/network_tools.hpp"

namespace reagent::builtins {

namespace {

using tools::ToolErrc;
using tools::ToolError;

ToolError selectionError(std::string message) {
    return ToolError{ToolErrc::invalid_definition, std::move(message)};
}

std::string knownNames() {
    std::string names;
    for (const BuiltinToolInfo& info : builtinToolCatalog()) {
        names += (names.empty() ? "" : ", ") + std::string(info.name);
    }
    return names;
}

// The tool named `name`, made on `workspace` (null for the tools that need none).
expected<tools::Tool, ToolError> makeTool(std::string_view name,
                                          const std::shared_ptr<LocalWorkspace>& workspace,
                                          const FileToolOptions& fileOptions) {
    if (name == "http-get") {
        return httpGetTool();
    }
    if (name == "web-search") {
        return webSearchTool();
    }
    if (name == "crypto-price") {
        return cryptoPriceTool();
    }
    if (name == "code-execute") {
        return codeExecuteTool();
    }
    if (name == kFileReadTool) {
        return fileReadTool(workspace, fileOptions);
    }
    if (name == kLsTool) {
        return lsTool(workspace, fileOptions);
    }
    if (name == kGlobTool) {
        return globTool(workspace, fileOptions);
    }
    if (name == kGrepTool) {
        return grepTool(workspace, fileOptions);
    }
    if (name == kFileWriteTool) {
        return fileWriteTool(workspace, fileOptions);
    }
    if (name == kFileEditTool) {
        return fileEditTool(workspace, fileOptions);
    }
    if (name == "shell-execute") {
        return shellExecuteTool(workspace);
    }
    if (name == "git-cli") {
        return gitCliTool(workspace);
    }
    if (name == "gh-cli") {
        return ghCliTool(workspace);
    }
    return gwsCliTool(workspace);
}

// The rollback behind `BuiltinTools::rollback`: a free coroutine holding the workspace.
Task<expected<std::string, ToolError>> rollbackTo(std::shared_ptr<LocalWorkspace> workspace, std::string id) {
    auto restore = workspace->rollback(std::move(id));
    auto restored = co_await std::move(restore);
    if (!restored) {
        co_return fail(ToolError{ToolErrc::failed, restored.error().message});
    }
    co_return "restored checkpoint " + restored->id + ": " + std::to_string(restored->restored.size()) +
        " file(s) put back, " + std::to_string(restored->removed.size()) + " removed, " +
        std::to_string(restored->recreated.size()) + " recreated; checkpoint " + restored->undoId +
        " undoes this";
}

}  // namespace

const std::vector<BuiltinToolInfo>& builtinToolCatalog() {
    static const std::vector<BuiltinToolInfo> catalog{
        {"http-get", false, false, true},     {"web-search", false, false, true},
        {"crypto-price", false, false, true}, {"code-execute", false, false, true},
        {kFileReadTool, true, false, true},   {kLsTool, true, false, true},
        {kGlobTool, true, false, true},       {kGrepTool, true, false, true},
        {kFileWriteTool, true, true, true},   {kFileEditTool, true, true, true},
        {"shell-execute", true, true, true},  {"git-cli", true, true, true},
        {"gh-cli", true, true, true},         {"gws-cli", true, true, true},
    };
    return catalog;
}

expected<BuiltinTools, ToolError> builtinTools(const BuiltinSelection& selection) {
    const auto& catalog = builtinToolCatalog();
    std::vector<const BuiltinToolInfo*> chosen;
    if (selection.include) {
        for (const std::string& name : *selection.include) {
            const auto found = std::find_if(catalog.begin(), catalog.end(),
                                            [&](const BuiltinToolInfo& info) { return info.name == name; });
            if (found == catalog.end()) {
                return fail(selectionError("'" + name + "' is not a built-in tool; the built-in tools are " +
                                           knownNames()));
            }
            if (found->needsWorkspace && selection.workspace.empty()) {
                return fail(selectionError("built-in tool '" + name +
                                           "' acts on a workspace: set the workspace directory "
                                           "(ToolsConfig::workspace)"));
            }
            if (found->mutating && selection.readOnly) {
                return fail(selectionError("built-in tool '" + name +
                                           "' changes the workspace, and read-only mode is on"));
            }
            if (std::find(chosen.begin(), chosen.end(), &*found) == chosen.end()) {
                chosen.push_back(&*found);
            }
        }
    } else {
        for (const BuiltinToolInfo& info : catalog) {
            if (info.byDefault && (!info.needsWorkspace || !selection.workspace.empty()) &&
                !(info.mutating && selection.readOnly)) {
                chosen.push_back(&info);
            }
        }
    }

    std::shared_ptr<LocalWorkspace> workspace;
    if (!selection.workspace.empty()) {
        LocalWorkspaceConfig config;
        config.root = selection.workspace;
        config.passEnvironment = selection.passEnvironment;
        auto opened = LocalWorkspace::create(std::move(config));
        if (!opened) {
            return fail(selectionError("the built-in tools' workspace: " + opened.error().message));
        }
        workspace = std::move(*opened);
    }
    FileToolOptions fileOptions;
    fileOptions.readOnly = selection.readOnly;

    BuiltinTools made;
    for (const BuiltinToolInfo* info : chosen) {
        auto tool = makeTool(info->name, workspace, fileOptions);
        if (!tool) {
            return fail(std::move(tool.error()));
        }
        made.tools.push_back(std::move(*tool));
    }
    if (workspace) {
        made.rollback = [workspace](std::string id) { return rollbackTo(workspace, std::move(id)); };
    }
    return made;
}

namespace {

// Makes the tools when the agent is built (so the workspace is opened then), and keeps their rollback.
class BuiltinSource final : public tools::ToolSource {
  public:
    explicit BuiltinSource(BuiltinSelection selection) : selection_(std::move(selection)) {}

    [[nodiscard]] std::string name() const override { return "builtins"; }

    [[nodiscard]] expected<std::vector<tools::Tool>, ToolError> tools() override {
        auto made = builtinTools(selection_);
        if (!made) {
            ToolError error = std::move(made.error());
            error.message = "built-in tools: " + error.message;
            return fail(std::move(error));
        }
        rollback_ = std::move(made->rollback);
        return std::move(made->tools);
    }

    [[nodiscard]] tools::CheckpointRollback rollback() const override { return rollback_; }

  private:
    BuiltinSelection selection_;
    tools::CheckpointRollback rollback_;
};

}  // namespace

std::shared_ptr<tools::ToolSource> toolSource(BuiltinSelection selection) {
    return std::make_shared<BuiltinSource>(std::move(selection));
}

}  // namespace reagent::builtins
