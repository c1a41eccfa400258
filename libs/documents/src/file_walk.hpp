#pragma once
// Private to libs/documents: the files an ingestion reads, from the paths it was given.

#include <filesystem>
#include <string>
#include <vector>

#include "reagent/documents/documents.hpp"

namespace reagent::documents::detail {

/// One file to read, and the source name its passages cite.
struct FileToRead {
    std::filesystem::path path;
    std::string source;
    bool named = false;
};

/// The files of `paths`: a file as given; a folder's files that `options` include, in name order. Also the
/// folders walked (their sources' prefixes, "docs/", whose vanished files the ingestion removes; not the
/// folder sources are named from), and the paths that do not exist or cannot be walked.
struct Walked {
    std::vector<FileToRead> files;
    std::vector<std::string> folders;
    std::vector<SkippedFile> skipped;
};

/// Sources are named relative to `base` when it is not empty.
[[nodiscard]] Walked walkPaths(const std::vector<std::filesystem::path>& paths, const IngestOptions& options,
                               const std::filesystem::path& base = {});

}  // namespace reagent::documents::detail
