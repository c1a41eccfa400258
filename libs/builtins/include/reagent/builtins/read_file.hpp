#pragma once
/// \file
/// \brief `ReadFileRequest` and `FileContent`: reading lines of a text file.

#include <cstddef>
#include <optional>
#include <string>

namespace reagent::builtins {

/// \brief Which part of a file to read, and how to present it.
struct ReadFileRequest {
    /// The file, relative to the workspace root (or absolute inside it).
    std::string path;
    /// Lines to skip from the start (0: from the first line).
    std::size_t lineOffset = 0;
    /// The most lines to return; empty: every line from `lineOffset` on.
    std::optional<std::size_t> lineCount;
    /// The most bytes of content returned (line numbers included); a larger selection fails with
    /// `too_large` naming the file's size and line count, so the caller can ask for a range. Default 256 KiB.
    std::size_t maxBytes = 256 * 1024;
    /// Prefix each line with its 1-based number and a tab, as `cat -n` does.
    bool numberLines = false;
    /// Return a PNG, JPEG, GIF or WebP image or a PDF document whole, as bytes (`FileContent::mediaType`
    /// set), instead of refusing it as binary or reading it as lines; its type is read from its first bytes.
    /// The lines, `maxBytes` and `numberLines` do not apply to it; the workspace's size limit per file
    /// does. An adapter that cannot refuses it as binary, as without this.
    bool media = false;
};

/// \brief The lines read. The text is the file's bytes as they are (UTF-8 is not checked): untrusted.
struct FileContent {
    /// The path relative to the workspace root.
    std::string path;
    /// The selected lines, each with its line ending.
    std::string content;
    /// The 1-based number of the first line returned (`lineOffset + 1`).
    std::size_t firstLine = 1;
    /// How many lines were returned, and how many the file has.
    std::size_t lineCount = 0;
    std::size_t totalLines = 0;
    /// The file's size in bytes.
    std::size_t sizeBytes = 0;
    /// For a media file read with `ReadFileRequest::media`: its type ("image/png", "application/pdf"), and
    /// `content` holds its bytes (no lines). Empty for text.
    std::string mediaType{};
};

}  // namespace reagent::builtins
