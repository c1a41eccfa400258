// LocalWorkspace: reading, editing and writing files.

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "files/file_io.hpp"
#include "files/text_lines.hpp"
#include "reagent/llm/attachment.hpp"
#include "workspace/local_workspace_state.hpp"

namespace reagent::builtins {
namespace {

using detail::quotedPath;

WorkspaceError tooLargeFile(const std::string& relative, std::size_t size, std::size_t limit) {
    return {WorkspaceErrc::too_large, quotedPath(relative) + " is " + std::to_string(size) +
                                          " bytes, more than the workspace's limit of " +
                                          std::to_string(limit) + " bytes per file"};
}

WorkspaceError binaryFile(const std::string& relative) {
    return {WorkspaceErrc::binary_file, quotedPath(relative) +
                                            " looks like a binary file (it has a NUL byte in its "
                                            "first 8 KiB); only text files can be read or edited"};
}

/// The text of a regular file inside the workspace, within the size limit, refused when binary.
struct TextFile {
    detail::OpenFile file;
    std::string text;
    /// With `media`: the type of an image or PDF, whose bytes `text` then holds.
    std::string mediaType{};
};

expected<TextFile, WorkspaceError> readText(const detail::WorkspaceRoot& root,
                                            const detail::ResolvedPath& path, std::size_t limit,
                                            bool media = false) {
    auto file = detail::openForReading(root, path);
    if (!file) {
        return fail(std::move(file.error()));
    }
    const auto size = static_cast<std::size_t>(file->info.st_size);
    if (size > limit) {
        return fail(tooLargeFile(path.relative, size, limit));
    }
    auto text = detail::readAll(*file, limit, path.relative);
    if (!text) {
        return fail(std::move(text.error()));
    }
    if (media) {
        if (const auto type = llm::sniffMediaType(*text)) {
            return TextFile{std::move(*file), std::move(*text), std::string(*type)};
        }
    }
    if (detail::looksBinary(*text)) {
        return fail(binaryFile(path.relative));
    }
    return TextFile{std::move(*file), std::move(*text)};
}

}  // namespace

Task<expected<FileContent, WorkspaceError>> LocalWorkspace::readFile(ReadFileRequest request) {
    auto path = state_->root.resolve(request.path);
    if (!path) {
        co_return fail(std::move(path.error()));
    }
    auto read = readText(state_->root, *path, state_->config.maxFileBytes, request.media);
    if (!read) {
        co_return fail(std::move(read.error()));
    }
    FileContent content;
    content.path = path->relative;
    if (!read->mediaType.empty()) {
        content.sizeBytes = read->text.size();
        content.mediaType = std::move(read->mediaType);
        content.content = std::move(read->text);
        co_return content;
    }
    const std::string& text = read->text;
    content.sizeBytes = text.size();
    content.totalLines = detail::countLines(text);
    content.firstLine = request.lineOffset + 1;
    if (request.lineOffset > content.totalLines) {
        co_return fail(WorkspaceError{WorkspaceErrc::invalid_argument,
                                      "lineOffset " + std::to_string(request.lineOffset) +
                                          " is past the end of " + quotedPath(path->relative) +
                                          ", which has " + std::to_string(content.totalLines) + " lines"});
    }
    auto range = detail::selectLines(text, request.lineOffset, request.lineCount, request.numberLines);
    if (range.content.size() > request.maxBytes) {
        co_return fail(WorkspaceError{WorkspaceErrc::too_large,
                                      "the lines asked for from " + quotedPath(path->relative) + " take " +
                                          std::to_string(range.content.size()) +
                                          " bytes, more than maxBytes (" + std::to_string(request.maxBytes) +
                                          "); the file has " + std::to_string(content.totalLines) +
                                          " lines (" + std::to_string(text.size()) +
                                          " bytes): read a part with lineOffset and lineCount"});
    }
    content.content = std::move(range.content);
    content.lineCount = range.lineCount;
    co_return content;
}

Task<expected<EditResult, WorkspaceError>> LocalWorkspace::editFile(EditFileRequest request) {
    if (request.search.empty()) {
        co_return fail(WorkspaceError{WorkspaceErrc::invalid_argument, "the search text is empty"});
    }
    auto path = state_->root.resolve(request.path);
    if (!path) {
        co_return fail(std::move(path.error()));
    }
    if (auto allowed = detail::refuseGitDirectory(*path); !allowed) {
        co_return fail(std::move(allowed.error()));
    }
    const std::size_t limit = state_->config.maxFileBytes;
    auto read = readText(state_->root, *path, limit);
    if (!read) {
        co_return fail(std::move(read.error()));
    }
    const std::size_t matches = detail::countOccurrences(read->text, request.search);
    if (matches == 0) {
        co_return fail(WorkspaceError{WorkspaceErrc::match_count,
                                      "the search text was not found in " + quotedPath(path->relative) +
                                          " (0 matches); it must match exactly once, whitespace and line "
                                          "endings included: read the file and copy the text exactly"});
    }
    if (matches > 1 && !request.replaceAll) {
        co_return fail(WorkspaceError{
            WorkspaceErrc::match_count,
            "the search text matches " + std::to_string(matches) + " times in " + quotedPath(path->relative) +
                "; it must match exactly once: include more surrounding lines to make "
                "it unique, or set replaceAll to replace every occurrence"});
    }
    const std::size_t replacements = request.replaceAll ? matches : 1;
    // The edited size is known before the text is built: a short pattern replaced by a long text many
    // times is refused without building gigabytes first.
    const std::size_t kept = read->text.size() - replacements * request.search.size();
    const std::size_t added = request.replace.size();
    if (added != 0 && replacements > (limit - std::min(kept, limit)) / added) {
        const bool overflows = replacements > (SIZE_MAX - kept) / added;
        co_return fail(
            tooLargeFile(path->relative, overflows ? SIZE_MAX : kept + replacements * added, limit));
    }
    EditResult result;
    result.path = path->relative;
    result.newContent = detail::replaceOccurrences(read->text, request.search, request.replace, replacements);
    result.replacements = replacements;
    if (request.checkpoint) {
        auto recording = checkpoint("before edit: " + path->relative);
        auto recorded = co_await std::move(recording);
        if (!recorded) {
            co_return fail(std::move(recorded.error()));
        }
        result.checkpointId = recorded->id;
    }
    auto directory = state_->root.openDirectory(*path, path->components.size() - 1, false);
    if (!directory) {
        co_return fail(std::move(directory.error()));
    }
    const mode_t mode = read->file.info.st_mode & 07777;
    auto written = detail::replaceFile(directory->get(), path->components.back(), result.newContent, mode,
                                       path->relative);
    if (!written) {
        co_return fail(std::move(written.error()));
    }
    result.originalContent = std::move(read->text);
    co_return result;
}

Task<expected<WriteResult, WorkspaceError>> LocalWorkspace::writeFile(WriteFileRequest request) {
    auto path = state_->root.resolve(request.path);
    if (!path) {
        co_return fail(std::move(path.error()));
    }
    if (path->components.empty()) {
        co_return fail(WorkspaceError{WorkspaceErrc::not_a_file, "'.' is the workspace root, a directory"});
    }
    if (auto allowed = detail::refuseGitDirectory(*path); !allowed) {
        co_return fail(std::move(allowed.error()));
    }
    if (request.content.size() > state_->config.maxFileBytes) {
        co_return fail(tooLargeFile(path->relative, request.content.size(), state_->config.maxFileBytes));
    }
    WriteResult result;
    result.path = path->relative;
    if (request.checkpoint) {
        auto recording = checkpoint("before write: " + path->relative);
        auto recorded = co_await std::move(recording);
        if (!recorded) {
            co_return fail(std::move(recorded.error()));
        }
        result.checkpointId = recorded->id;
    }
    auto directory =
        state_->root.openDirectory(*path, path->components.size() - 1, request.createDirectories);
    if (!directory) {
        if (directory.error().code == WorkspaceErrc::not_found) {
            directory.error().message += " (the parent directory is missing and createDirectories is off)";
        }
        co_return fail(std::move(directory.error()));
    }
    const std::string& name = path->components.back();
    std::optional<mode_t> mode;
    struct stat info {};
    if (::fstatat(directory->get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(info.st_mode)) {
            co_return fail(detail::swappedForLink(path->relative));
        }
        if (S_ISDIR(info.st_mode)) {
            co_return fail(WorkspaceError{WorkspaceErrc::not_a_file,
                                          quotedPath(path->relative) + " is a directory, not a file"});
        }
        if (!S_ISREG(info.st_mode)) {
            co_return fail(
                WorkspaceError{WorkspaceErrc::not_a_file,
                               quotedPath(path->relative) + " is a special file, not a regular file"});
        }
        if (!request.overwrite) {
            co_return fail(WorkspaceError{WorkspaceErrc::already_exists,
                                          quotedPath(path->relative) + " exists and overwrite is off"});
        }
        mode = info.st_mode & 07777;
    } else if (errno == ENOENT) {
        result.created = true;
    } else {
        co_return fail(detail::systemError("cannot inspect", path->relative, errno));
    }
    auto written = detail::replaceFile(directory->get(), name, request.content, mode, path->relative);
    if (!written) {
        co_return fail(std::move(written.error()));
    }
    result.bytesWritten = request.content.size();
    co_return result;
}

}  // namespace reagent::builtins
