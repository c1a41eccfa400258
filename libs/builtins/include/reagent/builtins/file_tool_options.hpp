#pragma once
/// \file
/// \brief `FileToolOptions` and `GrepOptions`: how the built-in file tools behave, each with its default.

#include <chrono>
#include <cstddef>

namespace reagent::builtins {

/// \brief Limits of the `grep` tool. Every search is bounded by these, whatever the model asks for.
struct GrepOptions {
    /// Results returned when the model does not say (`max_results`): lines in `content` mode, files in
    /// the other modes. Default 100.
    std::size_t defaultResults = 100;
    /// The most results the model may ask for (the schema's maximum). Default 1000.
    std::size_t maxResults = 1000;
    /// Files larger than this are skipped (and counted in the summary), in bytes. Default 1 MiB.
    std::size_t maxFileBytes = 1024 * 1024;
    /// The most files one search reads; a larger tree is cut and the result says so. Default 20 000.
    std::size_t maxFiles = 20'000;
    /// A regular expression looks at this many bytes of each line at most (matching is linear in the
    /// line, RE2, but a minified file's one line can be megabytes); literal patterns see whole lines.
    /// Default 4096.
    std::size_t maxRegexLineBytes = 4096;
    /// A matching line is shown up to this many bytes, then cut with `…`. Default 400.
    std::size_t maxLineBytes = 400;
    /// The search stops after this long and returns what it found, saying so. Default 10 s.
    std::chrono::milliseconds timeBudget{10'000};
};

/// \brief How `fileTools` builds the file tools.
struct FileToolOptions {
    /// Leave out every mutating tool (`file-write`, `file-edit`). Default false.
    bool readOnly = false;
    /// Record a checkpoint before each write or edit; its id is in the result and in the call's
    /// artifacts (`checkpointId`), so the change can be rolled back. Needs `git` for the local workspace.
    /// Default true.
    bool checkpoint = true;
    /// `file-write` runs only when the approval handler says yes. Default true.
    bool writeRequiresApproval = true;
    /// `file-read`'s default `maxSize`, in bytes. Default 256 KiB.
    std::size_t defaultReadBytes = 256 * 1024;
    /// The largest `maxSize` the model may ask `file-read` for, in bytes. Default 1 MiB.
    std::size_t maxReadBytes = 1024 * 1024;
    /// `glob`'s default `maxResults`. Default 200; the model may ask for up to 1000.
    std::size_t defaultGlobResults = 200;
    /// Each tool call's limit (`ToolDefinition::timeout`). Default 30 s.
    std::chrono::milliseconds timeout{30'000};
    GrepOptions grep;
};

}  // namespace reagent::builtins
