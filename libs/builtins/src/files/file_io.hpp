#pragma once
// Reading and writing whole files through descriptors opened inside the workspace.

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/builtins/workspace_error.hpp"
#include "reagent/core/expected.hpp"
#include "workspace/unique_fd.hpp"
#include "workspace/workspace_root.hpp"

namespace reagent::builtins::detail {

/// An open regular file and what fstat says of it.
struct OpenFile {
    UniqueFd fd;
    struct stat info {};
};

/// Opens `path` (checked) for reading: its directory component by component, then the file itself with
/// O_NOFOLLOW and O_NONBLOCK (a FIFO must not block); refuses what is not a regular file (`not_a_file`).
[[nodiscard]] expected<OpenFile, WorkspaceError> openForReading(const WorkspaceRoot& root,
                                                                const ResolvedPath& path);

/// The whole content of `file`, which fstat said is at most `limit` bytes (a file growing meanwhile is
/// cut at `limit`).
[[nodiscard]] expected<std::string, WorkspaceError> readAll(const OpenFile& file, std::size_t limit,
                                                            std::string_view relative);

/// Writes `content` as file `name` of the directory `directory`: into a new temporary file beside it,
/// then renamed over it (atomic; a hard link to the old file is replaced, not written through). With
/// `mode` (the replaced file's), the new file gets it; without, 0666 less the umask.
[[nodiscard]] expected<void, WorkspaceError> replaceFile(int directory, const std::string& name,
                                                         std::string_view content, std::optional<mode_t> mode,
                                                         std::string_view relative);

}  // namespace reagent::builtins::detail
