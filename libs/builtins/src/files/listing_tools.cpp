// The file tools that find files: ls and glob.

#include <string>
#include <utility>

#include "reagent/builtins/file_tools.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "tool_support.hpp"

namespace reagent::builtins {
namespace {

using detail::quotedPath;
using detail::sizeArg;
using nlohmann::json;
using tools::ToolResult;

// The most glob matches the model may ask for.
constexpr std::size_t kMaxGlobResults = 1000;

// `name/` for a directory, `name@` for a symbolic link (as `ls -F`); with details, permissions, size and
// modification time before it.
std::string entryLine(const FileEntry& entry) {
    std::string line;
    if (entry.permissions) {
        line += *entry.permissions + "  ";
    }
    if (entry.size) {
        const std::string size = std::to_string(*entry.size);
        line += std::string(size.size() < 10 ? 10 - size.size() : 0, ' ') + size + "  ";
    }
    if (entry.modified) {
        line += *entry.modified + "  ";
    }
    line += entry.name;
    if (entry.isDirectory) {
        line += '/';
    } else if (entry.isSymbolicLink) {
        line += '@';
    }
    return line;
}

Task<ToolResult> runLs(std::shared_ptr<ExecutionAdapter> workspace, json args) {
    ListRequest request;
    request.path = stringOr(args, "path", ".");
    request.showHidden = boolOr(args, "showHidden", false);
    request.details = boolOr(args, "details", false);
    auto task = workspace->list(std::move(request));
    auto listing = co_await std::move(task);
    if (!listing) {
        co_return fail(detail::toolError(listing.error()));
    }
    std::string text = quotedPath(listing->path) + ": " +
                       detail::counted(listing->entries.size() + listing->omitted, "entry", "entries");
    for (const auto& entry : listing->entries) {
        text += "\n" + entryLine(entry);
    }
    if (listing->omitted > 0) {
        text += "\n[ls: " + std::to_string(listing->omitted) +
                " more entries not shown; use glob or grep to narrow down]";
    }
    co_return text;
}

Task<ToolResult> runGlob(std::shared_ptr<ExecutionAdapter> workspace, json args) {
    GlobRequest request;
    request.pattern = stringOr(args, "pattern");
    request.base = stringOr(args, "path", ".");
    request.includeHidden = boolOr(args, "includeHidden", false);
    request.maxResults = sizeArg(args, "maxResults", request.maxResults);
    const std::string pattern = request.pattern;
    const std::string base = request.base;
    auto task = workspace->glob(std::move(request));
    auto found = co_await std::move(task);
    if (!found) {
        co_return fail(detail::toolError(found.error()));
    }
    if (found->paths.empty()) {
        std::string text = "no files match " + quotedPath(pattern) + " under " + quotedPath(base);
        if (pattern.find('/') == std::string::npos && pattern.rfind("**", 0) != 0) {
            text += " (a pattern without '/' matches only directly in it; use **/" + pattern +
                    " to search every depth)";
        }
        co_return text;
    }
    std::string text;
    for (const auto& path : found->paths) {
        text += (text.empty() ? "" : "\n") + path;
    }
    if (found->omitted > 0) {
        text += "\n[glob: " + std::to_string(found->omitted) +
                " more matches not shown; narrow the pattern or raise maxResults]";
    }
    if (found->incomplete) {
        text += "\n[glob: the walk stopped at the workspace's entry limit; some matches may be missing]";
    }
    co_return text;
}

}  // namespace

tools::Tool lsTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options) {
    json properties = {
        {"path",
         detail::stringProperty("The directory, relative to the workspace root (default: the root).", ".")},
        {"showHidden", detail::booleanProperty(false, "Include entries starting with '.'.")},
        {"details",
         detail::booleanProperty(false, "Show permissions, size in bytes and modification time (UTC).")},
    };
    auto builder =
        detail::fileToolBuilder(kLsTool,
                                "List one directory of the workspace, sorted by name: directories end "
                                "with '/', symbolic links with '@'. For files at any depth use glob.",
                                std::move(properties), json::array(), options.timeout);
    builder.action([](const json& args) { return "Listing " + stringOr(args, "path", "."); })
        .handler([workspace = std::move(workspace)](json args, tools::ToolContext) {
            return runLs(workspace, std::move(args));
        });
    return detail::built(builder);
}

tools::Tool globTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options) {
    json maxResults = detail::integerProperty(1, "The most paths returned.", options.defaultGlobResults);
    maxResults["maximum"] = kMaxGlobResults;
    json properties = {
        {"pattern",
         detail::stringProperty("A glob relative to path: * and ? within a name, [a-z], {a,b}, ** for "
                                "any number of directories (src/**/*.cpp). A pattern without '/' "
                                "matches only directly in path.")},
        {"path", detail::stringProperty(
                     "The directory searched, relative to the workspace root (default: the root).", ".")},
        {"includeHidden",
         detail::booleanProperty(false, "Also search names starting with '.' (.git included).")},
        {"maxResults", std::move(maxResults)},
    };
    auto builder = detail::fileToolBuilder(
        kGlobTool,
        "Find files of the workspace by a glob pattern (e.g. **/*.py, src/**/test_*.{c,h}); returns matching "
        "paths relative to the root, sorted, one per line.",
        std::move(properties), {"pattern"}, options.timeout);
    builder.action([](const json& args) { return "Finding " + stringOr(args, "pattern"); })
        .handler([workspace = std::move(workspace)](json args, tools::ToolContext) {
            return runGlob(workspace, std::move(args));
        });
    return detail::built(builder);
}

}  // namespace reagent::builtins
