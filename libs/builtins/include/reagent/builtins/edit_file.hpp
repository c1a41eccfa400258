#pragma once
/// \file
/// \brief `EditFileRequest` and `EditResult`: replacing an exact piece of text in a file.

#include <cstddef>
#include <optional>
#include <string>

namespace reagent::builtins {

/// \brief Replace `search` by `replace` in a text file. The search text must occur exactly once (so an
/// edit cannot land in the wrong place), unless `replaceAll` is set.
struct EditFileRequest {
    /// The file, relative to the workspace root (or absolute inside it).
    std::string path;
    /// The exact text to find (bytes, whitespace included); must not be empty.
    std::string search;
    /// The text put in its place (may be empty: a deletion).
    std::string replace;
    /// Replace every (non-overlapping) occurrence instead of requiring exactly one.
    bool replaceAll = false;
    /// Record a checkpoint before writing; its id is in the result.
    bool checkpoint = false;
};

/// \brief The file before and after the edit.
struct EditResult {
    /// The path relative to the workspace root.
    std::string path;
    std::string originalContent;
    std::string newContent;
    /// How many occurrences were replaced (1 unless `replaceAll`).
    std::size_t replacements = 0;
    /// The checkpoint recorded before the edit, when one was asked for.
    std::optional<std::string> checkpointId;
};

}  // namespace reagent::builtins
