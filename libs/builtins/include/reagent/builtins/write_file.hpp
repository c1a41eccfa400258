#pragma once
/// \file
/// \brief `WriteFileRequest` and `WriteResult`: writing a whole file.

#include <cstddef>
#include <optional>
#include <string>

namespace reagent::builtins {

/// \brief Write `content` as the whole file. The file is replaced atomically (written beside it, then
/// renamed over it), so a reader never sees half of it and a hard link to the old file is not written
/// through.
struct WriteFileRequest {
    /// The file, relative to the workspace root (or absolute inside it).
    std::string path;
    std::string content;
    /// Replace an existing file; when false an existing file fails with `already_exists`.
    bool overwrite = true;
    /// Create missing parent directories (inside the workspace); when false they fail with `not_found`.
    bool createDirectories = true;
    /// Record a checkpoint before writing; its id is in the result.
    bool checkpoint = false;
};

/// \brief What was written.
struct WriteResult {
    /// The path relative to the workspace root.
    std::string path;
    std::size_t bytesWritten = 0;
    /// True when the file did not exist before.
    bool created = false;
    /// The checkpoint recorded before the write, when one was asked for.
    std::optional<std::string> checkpointId;
};

}  // namespace reagent::builtins
