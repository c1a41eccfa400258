// The grep tool: a pattern searched line by line in the workspace's text files, through the adapter only
// (glob to find the files, readFile to read them), so it works on any workspace.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "files/line_matcher.hpp"
#include "reagent/builtins/file_tools.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "tool_support.hpp"

namespace reagent::builtins {
namespace {

using detail::counted;
using detail::quotedPath;
using detail::sizeArg;
using nlohmann::json;
using tools::ToolResult;
using SteadyClock = std::chrono::steady_clock;

enum class OutputMode { content, files, counts };

OutputMode outputMode(const std::string& name) {
    if (name == "content") {
        return OutputMode::content;
    }
    return name == "counts" ? OutputMode::counts : OutputMode::files;
}

// What one search found and what it left out, for the summary lines.
struct Search {
    OutputMode mode = OutputMode::files;
    std::size_t maxResults = 0;
    std::string text;
    std::size_t results = 0;
    std::size_t filesSearched = 0;
    std::size_t binary = 0;
    std::size_t large = 0;
    std::size_t unreadable = 0;
    bool stoppedAtMax = false;
    bool outOfTime = false;

    void add(const std::string& line) {
        text += (text.empty() ? "" : "\n") + line;
        ++results;
    }
};

// The files to search: `path` itself when it is a file, else the files under it that match the filter.
struct FileSet {
    std::vector<std::string> paths;
    bool cut = false;
};

Task<expected<FileSet, WorkspaceError>> filesToSearch(std::shared_ptr<ExecutionAdapter> workspace,
                                                      std::string path, std::string filter,
                                                      std::size_t maxFiles) {
    ListRequest probe;
    probe.path = path;
    probe.details = false;
    probe.maxEntries = 1;
    auto listTask = workspace->list(std::move(probe));
    auto listed = co_await std::move(listTask);
    FileSet files;
    if (!listed && listed.error().code == WorkspaceErrc::not_a_directory) {
        files.paths.push_back(path);
        co_return files;
    }
    if (!listed) {
        co_return fail(std::move(listed.error()));
    }
    GlobRequest request;
    // As ripgrep's --glob: a filter without '/' matches a file name at any depth.
    request.pattern = filter.empty()                          ? "**/*"
                      : filter.find('/') == std::string::npos ? "**/" + filter
                                                              : filter;
    request.base = std::move(path);
    request.maxResults = maxFiles;
    auto globTask = workspace->glob(std::move(request));
    auto found = co_await std::move(globTask);
    if (!found) {
        co_return fail(std::move(found.error()));
    }
    files.paths = std::move(found->paths);
    files.cut = found->omitted > 0 || found->incomplete;
    co_return files;
}

// Scans one file's lines; false when the search must stop (max results reached, time budget spent).
bool scan(Search& search, const detail::LineMatcher& matcher, const std::string& path,
          const std::string& content, const GrepOptions& limits, SteadyClock::time_point deadline) {
    std::size_t lineNumber = 0;
    std::size_t matches = 0;
    std::size_t pos = 0;
    while (pos < content.size()) {
        std::size_t end = content.find('\n', pos);
        if (end == std::string::npos) {
            end = content.size();
        }
        std::string_view line(content.data() + pos, end - pos);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        pos = end + 1;
        ++lineNumber;
        if (lineNumber % 512 == 0 && SteadyClock::now() > deadline) {
            search.outOfTime = true;
            break;
        }
        if (!matcher.matches(line)) {
            continue;
        }
        ++matches;
        if (search.mode == OutputMode::files) {
            break;
        }
        if (search.mode == OutputMode::content) {
            if (search.results == search.maxResults) {
                search.stoppedAtMax = true;
                return false;
            }
            search.add(path + ":" + std::to_string(lineNumber) + ":" +
                       detail::shortened(line, limits.maxLineBytes));
        }
    }
    if (matches > 0 && search.mode != OutputMode::content) {
        if (search.results == search.maxResults) {
            search.stoppedAtMax = true;
            return false;
        }
        search.add(search.mode == OutputMode::files ? path : path + ":" + std::to_string(matches));
    }
    return !search.outOfTime;
}

void countSkipped(Search& search, const WorkspaceError& error) {
    if (error.code == WorkspaceErrc::binary_file) {
        ++search.binary;
    } else if (error.code == WorkspaceErrc::too_large) {
        ++search.large;
    } else {
        ++search.unreadable;
    }
}

std::string summary(const Search& search, const FileSet& files, const GrepOptions& limits) {
    std::string notes;
    auto note = [&notes](const std::string& text) { notes += "\n[grep: " + text + "]"; };
    if (search.stoppedAtMax) {
        note("stopped at max_results (" + std::to_string(search.maxResults) +
             "); narrow the pattern, path or glob, or raise max_results");
    }
    if (search.outOfTime) {
        note("stopped after the time budget of " + std::to_string(limits.timeBudget.count()) +
             " ms, having searched " + std::to_string(search.filesSearched) + " of " +
             counted(files.paths.size(), "file", "files") + "; narrow the path or glob");
    }
    if (files.cut) {
        note("searched the first " + counted(files.paths.size(), "file", "files") +
             " only; narrow the path or glob");
    }
    std::string skipped;
    auto skip = [&skipped](std::size_t count, const std::string& what) {
        if (count > 0) {
            skipped += (skipped.empty() ? "" : ", ") + std::to_string(count) + " " + what;
        }
    };
    skip(search.binary, "binary");
    skip(search.large, "over " + std::to_string(limits.maxFileBytes) + " bytes");
    skip(search.unreadable, "unreadable (links pointing out of the workspace, special files, ...)");
    if (!skipped.empty()) {
        note("files skipped: " + skipped);
    }
    return notes;
}

Task<ToolResult> runGrep(std::shared_ptr<ExecutionAdapter> workspace, GrepOptions limits, json args) {
    const std::string pattern = stringOr(args, "pattern");
    const std::string path = stringOr(args, "path", ".");
    auto matcher =
        detail::LineMatcher::compile(pattern, boolOr(args, "ignore_case", false),
                                     boolOr(args, "fixed_strings", false), limits.maxRegexLineBytes);
    if (!matcher) {
        co_return fail(tools::ToolError{tools::ToolErrc::invalid_arguments,
                                        "the pattern is not a valid regular expression in " +
                                            std::string(tools::kLinearRegexSyntax) + " (" + matcher.error() +
                                            "); escape special characters or set fixed_strings"});
    }
    auto filesTask = filesToSearch(workspace, path, stringOr(args, "glob"), limits.maxFiles);
    auto files = co_await std::move(filesTask);
    if (!files) {
        co_return fail(detail::toolError(files.error()));
    }

    Search search;
    search.mode = outputMode(stringOr(args, "output_mode", "files"));
    search.maxResults = sizeArg(args, "max_results", limits.defaultResults);
    const auto deadline = SteadyClock::now() + limits.timeBudget;
    for (const auto& file : files->paths) {
        if (SteadyClock::now() > deadline) {
            search.outOfTime = true;
            break;
        }
        ReadFileRequest request;
        request.path = file;
        request.maxBytes = limits.maxFileBytes;
        auto readTask = workspace->readFile(std::move(request));
        auto read = co_await std::move(readTask);
        if (!read) {
            countSkipped(search, read.error());
            continue;
        }
        ++search.filesSearched;
        const bool more = scan(search, *matcher, read->path, read->content, limits, deadline);
        if (!more) {
            break;
        }
    }
    const std::string notes = summary(search, *files, limits);
    if (search.results == 0) {
        co_return "no matches for " + quotedPath(pattern) + " in " +
            counted(search.filesSearched, "file", "files") + " under " + quotedPath(path) + notes;
    }
    co_return search.text + notes;
}

}  // namespace

tools::Tool grepTool(std::shared_ptr<ExecutionAdapter> workspace, const FileToolOptions& options) {
    json maxResults = detail::integerProperty(1, "The most results: lines in content mode, files otherwise.",
                                              options.grep.defaultResults);
    maxResults["maximum"] = options.grep.maxResults;
    json properties = {
        {"pattern", detail::stringProperty("A regular expression searched in each line, in " +
                                           std::string(tools::kLinearRegexSyntax) +
                                           "; plain text without special characters is searched literally.")},
        {"path", detail::stringProperty(
                     "A directory (searched recursively) or a file, relative to the workspace root.", ".")},
        {"glob",
         detail::stringProperty(
             "Only files matching this glob, e.g. *.py or src/**/*.{c,h} (without '/': at any depth).")},
        {"output_mode",
         {{"type", "string"},
          {"enum", {"content", "files", "counts"}},
          {"default", "files"},
          {"description",
           "content: matching lines as path:line:text; files: paths of matching files; counts: path:number "
           "of matching lines."}}},
        {"ignore_case", detail::booleanProperty(false, "Ignore letter case.")},
        {"fixed_strings", detail::booleanProperty(false, "Search the pattern as plain text.")},
        {"max_results", std::move(maxResults)},
    };
    auto builder = detail::fileToolBuilder(
        kGrepTool,
        "Search the workspace's text files for a regular expression, line by line. output_mode files "
        "(default) lists matching files, content shows matching lines with their numbers, counts gives "
        "matches per file. Binary and very large files are skipped; results are bounded and the output "
        "says what was left out.",
        std::move(properties), {"pattern"}, options.timeout);
    builder.action([](const json& args) { return "Searching for " + stringOr(args, "pattern"); })
        .handler([workspace = std::move(workspace), limits = options.grep](json args, tools::ToolContext) {
            return runGrep(workspace, limits, std::move(args));
        });
    return detail::built(builder);
}

}  // namespace reagent::builtins
