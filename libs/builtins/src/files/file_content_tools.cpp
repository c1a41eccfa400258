// The file tools that read and change one file: file-read, file-write, file-edit.

#include <optional>
#include <string>
#include <utility>

#include "reagent/builtins/file_tools.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "tool_support.hpp"

namespace reagent::builtins {
namespace {

using detail::quotedPath;
using detail::recordCheckpoint;
using detail::sizeArg;
using nlohmann::json;
using tools::ToolResult;

std::string checkpointNote(const std::optional<std::string>& id) {
    return id ? "; checkpoint " + *id + " holds the state before it" : std::string();
}

// An image or PDF read whole: its bytes go beside the text as a content block (an `image`, or a `resource`
// with its blob), which an agent shows the model as an attachment and an MCP server returns as content.
std::string attachMedia(FileContent read, tools::ToolContext& context) {
    const std::string what = quotedPath(read.path) + " (" + read.mediaType + ", " +
                             detail::counted(read.sizeBytes, "byte", "bytes") + ")";
    if (context.content == nullptr) {
        return what + " is not a text file; this caller cannot take images or documents";
    }
    std::string data = base64Encode(read.content);
    if (read.mediaType == "application/pdf") {
        context.content->push_back(json{
            {"type", "resource"},
            {"resource",
             {{"uri", "workspace:" + read.path}, {"mimeType", read.mediaType}, {"blob", std::move(data)}}}});
    } else {
        context.content->push_back(
            json{{"type", "image"}, {"data", std::move(data)}, {"mimeType", read.mediaType}});
    }
    return what + " is attached";
}

Task<ToolResult> runRead(std::shared_ptr<ExecutionAdapter> workspace, json args, tools::ToolContext context) {
    ReadFileRequest request;
    request.path = stringOr(args, "path");
    request.lineOffset = sizeArg(args, "lineOffset", 0);
    if (args.contains("lineCount")) {
        request.lineCount = sizeArg(args, "lineCount", 0);
    }
    request.maxBytes = sizeArg(args, "maxSize", request.maxBytes);
    request.numberLines = boolOr(args, "numberLines", false);
    request.media = true;
    auto task = workspace->readFile(std::move(request));
    auto read = co_await std::move(task);
    if (!read) {
        co_return fail(detail::toolError(read.error()));
    }
    if (!read->mediaType.empty()) {
        co_return attachMedia(std::move(*read), context);
    }
    std::string text = std::move(read->content);
    if (read->totalLines == 0) {
        co_return quotedPath(read->path) + " is empty (0 bytes)";
    }
    const std::size_t last = read->firstLine + read->lineCount - 1;
    if (read->firstLine > 1 || last < read->totalLines) {
        if (!text.empty() && text.back() != '\n') {
            text += '\n';
        }
        text += "[file-read: lines " + std::to_string(read->firstLine) + "-" + std::to_string(last) + " of " +
                std::to_string(read->totalLines) + " in " + quotedPath(read->path);
        text += last < read->totalLines ? "; read on with lineOffset " + std::to_string(last) + "]"
                                        : "; end of file]";
    }
    co_return text;
}

Task<ToolResult> runWrite(std::shared_ptr<ExecutionAdapter> workspace, bool checkpoint, json args,
                          tools::ToolContext context) {
    WriteFileRequest request;
    request.path = stringOr(args, "path");
    request.content = stringOr(args, "content");
    request.overwrite = boolOr(args, "overwrite", true);
    request.createDirectories = boolOr(args, "createDir", true);
    request.checkpoint = checkpoint;
    auto task = workspace->writeFile(std::move(request));
    auto written = co_await std::move(task);
    if (!written) {
        co_return fail(detail::toolError(written.error()));
    }
    recordCheckpoint(context, written->checkpointId);
    co_return "wrote " + detail::counted(written->bytesWritten, "byte", "bytes") + " to " +
        quotedPath(written->path) + (written->created ? " (a new file)" : " (replaced)") +
        checkpointNote(written->checkpointId);
}

Task<ToolResult> runEdit(std::shared_ptr<ExecutionAdapter> workspace, bool checkpoint, json args,
                         tools::ToolContext context) {
    EditFileRequest request;
    request.path = stringOr(args, "path");
    request.search = stringOr(args, "searchCode");
    request.replace = stringOr(args, "replaceCode");
    request.replaceAll = boolOr(args, "replaceAll", false);
    request.checkpoint = checkpoint;
    auto task = workspace->editFile(std::move(request));
    auto edited = co_await std::move(task);
    if (!edited) {
        co_return fail(detail::toolError(edited.error()));
    }
    recordCheckpoint(context, edited->checkpointId);
    co_return "replaced " + detail::counted(edited->replacements, "occurrence", "occurrences") + " in " +
        quotedPath(edited->path) + " (" + std::to_string(edited->originalContent.size()) + " -> " +
        std::to_string(edited->newContent.size()) + " bytes)" + checkpointNote(edited->checkpointId);
}

}  // namespace

tools::Tool fileReadTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options) {
    json maxSize = detail::integerProperty(
        1,
        "The most bytes returned; a larger selection fails with too_large and the file's line count, so "
        "read a range instead.",
        options.defaultReadBytes);
    maxSize["maximum"] = options.maxReadBytes;
    json properties = {
        {"path", detail::stringProperty("The file, relative to the workspace root.")},
        {"lineOffset",
         detail::integerProperty(0, "Lines to skip from the start (0: from the first line).", 0)},
        {"lineCount",
         detail::integerProperty(1, "The most lines to return (default: every line from lineOffset on).")},
        {"maxSize", std::move(maxSize)},
        {"numberLines",
         detail::booleanProperty(false, "Prefix each line with its number and a tab (as cat -n).")},
    };
    auto builder = detail::fileToolBuilder(
        kFileReadTool,
        "Read a text file of the workspace, whole or a range of lines (lineOffset, lineCount). Long files: "
        "read a range; the result says which lines it holds and how to read on. An image (PNG, JPEG, GIF, "
        "WebP) or a PDF comes back attached, for you to see; other binary files and paths outside the "
        "workspace are refused.",
        std::move(properties), {"path"}, options.timeout);
    builder.action([](const json& args) { return "Reading " + stringOr(args, "path"); })
        .handler([workspace = std::move(workspace)](json args, tools::ToolContext context) {
            return runRead(workspace, std::move(args), std::move(context));
        });
    return detail::built(builder);
}

tools::Tool fileWriteTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options) {
    json properties = {
        {"path", detail::stringProperty("The file, relative to the workspace root.")},
        {"content", {{"type", "string"}, {"description", "The whole new content of the file."}}},
        {"overwrite", detail::booleanProperty(
                          true, "Replace the file if it exists; false fails with already_exists instead.")},
        {"createDir",
         detail::booleanProperty(true, "Create missing parent directories (inside the workspace).")},
    };
    auto builder = detail::fileToolBuilder(
        kFileWriteTool,
        "Write a whole text file in the workspace, creating it (and its directories) or replacing it. To "
        "change part of an existing file prefer file-edit. The state before the write is checkpointed when "
        "checkpoints are on.",
        std::move(properties), {"path", "content"}, options.timeout);
    builder.riskLevel(tools::RiskLevel::medium)
        .sideEffect()
        .requiresApproval(options.writeRequiresApproval)
        .action([](const json& args) { return "Writing " + stringOr(args, "path"); })
        .handler([workspace = std::move(workspace), checkpoint = options.checkpoint](
                     json args, tools::ToolContext context) {
            return runWrite(workspace, checkpoint, std::move(args), std::move(context));
        });
    return detail::built(builder);
}

tools::Tool fileEditTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options) {
    json properties = {
        {"path", detail::stringProperty("The file, relative to the workspace root.")},
        {"searchCode", detail::stringProperty(
                           "The exact text to replace, whitespace and line breaks included; it must occur "
                           "exactly once in the file (include surrounding lines to make it unique).")},
        {"replaceCode",
         {{"type", "string"}, {"description", "The text put in its place (empty: delete it)."}}},
        {"replaceAll",
         detail::booleanProperty(false, "Replace every occurrence instead of requiring exactly one.")},
    };
    auto builder = detail::fileToolBuilder(
        kFileEditTool,
        "Edit a text file of the workspace: replace searchCode, which must match exactly once, by "
        "replaceCode. Read the file first and copy the text exactly. A search text found 0 or several "
        "times fails with match_count saying how many times it matched.",
        std::move(properties), {"path", "searchCode", "replaceCode"}, options.timeout);
    builder.riskLevel(tools::RiskLevel::medium)
        .sideEffect()
        .action([](const json& args) { return "Editing " + stringOr(args, "path"); })
        .handler([workspace = std::move(workspace), checkpoint = options.checkpoint](
                     json args, tools::ToolContext context) {
            return runEdit(workspace, checkpoint, std::move(args), std::move(context));
        });
    return detail::built(builder);
}

}  // namespace reagent::builtins
