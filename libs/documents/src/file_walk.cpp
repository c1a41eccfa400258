#include "file_walk.hpp"

#include <algorithm>
#include <array>
#include <system_error>

#include "reagent/core/glob_pattern.hpp"

namespace reagent::documents::detail {

namespace {

namespace fs = std::filesystem;

// The extensions read from a folder when no include glob is given: text formats, and PDF.
bool knownExtension(const fs::path& path) {
    static constexpr std::array<std::string_view, 44> kKnown = {
        ".md",  ".markdown", ".mdx",  ".txt",   ".text",  ".rst",  ".adoc", ".asciidoc", ".html",
        ".htm", ".pdf",      ".json", ".yaml",  ".yml",   ".toml", ".csv",  ".tsv",      ".ini",
        ".cfg", ".c",        ".cc",   ".cpp",   ".cxx",   ".h",    ".hh",   ".hpp",      ".py",
        ".js",  ".mjs",      ".ts",   ".tsx",   ".jsx",   ".go",   ".rs",   ".java",     ".kt",
        ".rb",  ".php",      ".cs",   ".swift", ".scala", ".sh",   ".lua",  ".sql"};
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return std::find(kKnown.begin(), kKnown.end(), extension) != kKnown.end() ||
           path.filename() == "CMakeLists.txt";
}

bool hidden(const fs::path& relative) {
    return std::any_of(relative.begin(), relative.end(), [](const fs::path& part) {
        const std::string name = part.string();
        return (name.size() > 1 && name[0] == '.' && name != "..") || name == "node_modules";
    });
}

std::string sourceName(const fs::path& path, const fs::path& base) {
    return (base.empty() ? path : path.lexically_relative(base)).lexically_normal().generic_string();
}

void walkFolder(const fs::path& folder, const IngestOptions& options, const fs::path& base, Walked& walked) {
    std::vector<GlobPattern> include;
    for (const std::string& glob : options.include) {
        include.emplace_back(glob);
    }
    std::vector<GlobPattern> exclude;
    for (const std::string& glob : options.exclude) {
        exclude.emplace_back(glob);
    }
    std::string prefix = sourceName(folder, base);
    if (!prefix.empty() && prefix.back() != '/') {
        prefix += '/';
    }
    // The folder the sources are named from (".") has no prefix of its own: the index's other sources (texts,
    // other folders' files) would all look like its files, so nothing is removed for it.
    if (prefix != "./") {
        walked.folders.push_back(prefix);
    }
    std::vector<FileToRead> found;
    std::error_code error;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, error);
    if (error) {
        walked.skipped.push_back(
            {folder.string(),
             DocumentError{DocumentErrc::unreadable,
                           "cannot read the folder " + folder.string() + ": " + error.message()},
             true});
        return;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (error) {
            break;
        }
        const fs::path relative = it->path().lexically_relative(folder);
        const std::string relativeName = relative.generic_string();
        const bool excluded =
            hidden(relative) || std::any_of(exclude.begin(), exclude.end(), [&](const GlobPattern& glob) {
                return glob.matches(relativeName);
            });
        std::error_code kind;
        if (it->is_directory(kind)) {
            if (excluded) {
                it.disable_recursion_pending();
            }
            continue;
        }
        // Links are not followed out of the folder: a link's target is read only when it is a regular file
        // the walk would reach anyway.
        if (excluded || it->is_symlink(kind) || !it->is_regular_file(kind)) {
            continue;
        }
        const bool wanted = include.empty()
                                ? knownExtension(relative)
                                : std::any_of(include.begin(), include.end(), [&](const GlobPattern& glob) {
                                      return glob.matches(relativeName);
                                  });
        if (wanted) {
            found.push_back({it->path(), sourceName(folder / relative, base), false});
        }
    }
    if (error) {
        walked.skipped.push_back({folder.string(),
                                  DocumentError{DocumentErrc::unreadable, "the walk of " + folder.string() +
                                                                              " stopped: " + error.message()},
                                  true});
    }
    std::sort(found.begin(), found.end(),
              [](const FileToRead& a, const FileToRead& b) { return a.source < b.source; });
    walked.files.insert(walked.files.end(), found.begin(), found.end());
}

}  // namespace

Walked walkPaths(const std::vector<fs::path>& paths, const IngestOptions& options, const fs::path& base) {
    Walked walked;
    for (const fs::path& path : paths) {
        std::error_code error;
        const fs::file_status status = fs::status(path, error);
        if (error || !fs::exists(status)) {
            walked.skipped.push_back(
                {path.string(), DocumentError{DocumentErrc::not_found, path.string() + " does not exist"},
                 true});
        } else if (fs::is_directory(status)) {
            walkFolder(path, options, base, walked);
        } else if (fs::is_regular_file(status)) {
            walked.files.push_back({path, sourceName(path, base), true});
        } else {
            walked.skipped.push_back(
                {path.string(),
                 DocumentError{DocumentErrc::unreadable, path.string() + " is neither a file nor a folder"},
                 true});
        }
    }
    return walked;
}

}  // namespace reagent::documents::detail
