#pragma once
/// \file
/// \brief `FileEntry`, `ListRequest` and `DirectoryListing`: the entries of one directory.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace reagent::builtins {

/// \brief One entry of a directory, as seen without following symbolic links (a link to a directory
/// is a symbolic link, neither a directory nor a file).
struct FileEntry {
    std::string name;
    bool isDirectory = false;
    bool isFile = false;
    bool isSymbolicLink = false;
    /// With details: the size in bytes (of the link itself for a symbolic link).
    std::optional<std::uint64_t> size;
    /// With details: last modification and creation (birth) times, ISO 8601 in UTC
    /// (`2026-11-24T23:59:42Z`); `created` is empty where the file system does not record it.
    std::optional<std::string> modified;
    std::optional<std::string> created;
    /// With details: the permission bits as `ls -l` shows them (`rwxr-xr-x`).
    std::optional<std::string> permissions;
};

/// \brief Which directory to list.
struct ListRequest {
    /// The directory, relative to the workspace root (or absolute inside it). Default: the root.
    std::string path = ".";
    /// Include entries whose name starts with `.`.
    bool showHidden = false;
    /// Fill `size`, `modified`, `created` and `permissions`.
    bool details = true;
    /// The most entries returned (sorted by name); the rest are counted in `DirectoryListing::omitted`.
    std::size_t maxEntries = 1000;
};

/// \brief A directory's entries, sorted by name.
struct DirectoryListing {
    /// The directory relative to the workspace root (`.` for the root).
    std::string path;
    std::vector<FileEntry> entries;
    /// Entries left out beyond `maxEntries`.
    std::size_t omitted = 0;
};

}  // namespace reagent::builtins
