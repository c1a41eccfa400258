#pragma once
/// \file
/// \brief The built-in file tools (`file-read`, `file-write`, `file-edit`, `ls`, `glob`, `grep`) on an
/// `ExecutionAdapter`.

#include <memory>
#include <string_view>
#include <vector>

#include "reagent/builtins/execution_adapter.hpp"
#include "reagent/builtins/file_tool_options.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::builtins {

inline constexpr std::string_view kFileReadTool = "file-read";
inline constexpr std::string_view kFileWriteTool = "file-write";
inline constexpr std::string_view kFileEditTool = "file-edit";
inline constexpr std::string_view kLsTool = "ls";
inline constexpr std::string_view kGlobTool = "glob";
inline constexpr std::string_view kGrepTool = "grep";

/// \brief The file tools on `workspace`, in the order above; without `file-write` and `file-edit` when
/// `options.readOnly` is set.
///
/// Each is an ordinary `tools::Tool` (category `file`) with a JSON Schema that the executor validates
/// before the handler runs. Mutating tools are marked `sideEffect` (they run alone), `file-write` also
/// `requiresApproval` (unless `options.writeRequiresApproval` is off). A `WorkspaceError` becomes a
/// `ToolError` whose message is the workspace's (`outside_workspace: '../x' climbs out of ...`) and
/// whose details hold `{"workspaceCode": "<code>"}`; `invalid_argument` becomes `invalid_arguments`.
///
/// \par Lifetime
/// Each tool holds `workspace` (shared) for as long as the tool lives.
[[nodiscard]] std::vector<tools::Tool> fileTools(std::shared_ptr<ExecutionAdapter> workspace,
                                                 FileToolOptions options = {});

/// \brief The single tools, as `fileTools` builds them.
[[nodiscard]] tools::Tool fileReadTool(std::shared_ptr<ExecutionAdapter> workspace,
                                       const FileToolOptions& options);
[[nodiscard]] tools::Tool fileWriteTool(std::shared_ptr<ExecutionAdapter> workspace,
                                        const FileToolOptions& options);
[[nodiscard]] tools::Tool fileEditTool(std::shared_ptr<ExecutionAdapter> workspace,
                                       const FileToolOptions& options);
[[nodiscard]] tools::Tool lsTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options);
[[nodiscard]] tools::Tool globTool(std::shared_ptr<ExecutionAdapter> workspace,
                                   const FileToolOptions& options);
[[nodiscard]] tools::Tool grepTool(std::shared_ptr<ExecutionAdapter> workspace,
                                   const FileToolOptions& options);

}  // namespace reagent::builtins
