// LocalWorkspace: listing a directory, glob, and the directory map. Every walk goes through descriptors
// opened without following symbolic links, so it never leaves the root.

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "files/directory_reader.hpp"
#include "reagent/builtins/glob_pattern.hpp"
#include "workspace/local_workspace_state.hpp"

namespace reagent::builtins {
namespace {

using detail::DirectoryEntry;
using detail::EntryKind;

bool hidden(const std::string& name) {
    return !name.empty() && name.front() == '.';
}

std::string isoTime(std::int64_t seconds) {
    const auto value = static_cast<time_t>(seconds);
    struct tm parts {};
    ::gmtime_r(&value, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

std::string permissionText(unsigned mode) {
    std::string text = "rwxrwxrwx";
    for (int bit = 0; bit < 9; ++bit) {
        if ((mode & (1u << (8 - bit))) == 0) {
            text[static_cast<std::size_t>(bit)] = '-';
        }
    }
    return text;
}

void addDetails(int directory, FileEntry& entry) {
    struct statx info {};
    if (::statx(directory, entry.name.c_str(), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &info) !=
        0) {
        return;  // gone meanwhile: the entry stays without details
    }
    entry.size = info.stx_size;
    entry.modified = isoTime(info.stx_mtime.tv_sec);
    if ((info.stx_mask & STATX_BTIME) != 0) {
        entry.created = isoTime(info.stx_btime.tv_sec);
    }
    entry.permissions = permissionText(info.stx_mode & 0777);
}

std::string symlinkTarget(int directory, const std::string& name) {
    char buffer[4096];
    const ssize_t n = ::readlinkat(directory, name.c_str(), buffer, sizeof buffer);
    return n < 0 ? std::string("?") : std::string(buffer, static_cast<std::size_t>(n));
}

struct GlobWalk {
    const GlobPattern& pattern;
    const GlobRequest& request;
    std::size_t maxEntries = 0;
    std::string baseRelative;  // the base relative to the root
    std::size_t seen = 0;
    GlobResult result;
};

void globDirectory(GlobWalk& walk, int directory, const std::string& relative) {
    auto entries = detail::readDirectory(directory, relative);
    if (!entries) {
        return;  // unreadable: skipped, as find does
    }
    for (const DirectoryEntry& entry : *entries) {
        if (walk.result.incomplete) {
            return;
        }
        if (!walk.request.includeHidden && hidden(entry.name)) {
            continue;
        }
        if (++walk.seen > walk.maxEntries) {
            walk.result.incomplete = true;
            return;
        }
        const std::string path = detail::joinRelative(relative, entry.name);
        const bool isDirectory = entry.kind == EntryKind::directory;
        if ((!isDirectory || walk.request.includeDirectories) && walk.pattern.matches(path)) {
            if (walk.result.paths.size() < walk.request.maxResults) {
                walk.result.paths.push_back(detail::joinRelative(walk.baseRelative, path));
            } else {
                ++walk.result.omitted;
            }
        }
        if (isDirectory && walk.pattern.mayMatchUnder(path)) {
            const detail::UniqueFd child = detail::openSubdirectory(directory, entry.name);
            if (child.valid()) {
                globDirectory(walk, child.get(), path);
            }
        }
    }
}

struct MapWalk {
    const DirectoryMapRequest& request;
    std::size_t maxEntries = 0;
    std::size_t shown = 0;
    bool full = false;
    std::string text;
};

void mapDirectory(MapWalk& walk, int directory, const std::string& relative, std::size_t depth) {
    auto entries = detail::readDirectory(directory, relative);
    if (!entries) {
        return;
    }
    // Directories first, then the rest; each group stays sorted by name.
    std::stable_partition(entries->begin(), entries->end(),
                          [](const DirectoryEntry& entry) { return entry.kind == EntryKind::directory; });
    const std::string indent(2 * depth, ' ');
    for (const DirectoryEntry& entry : *entries) {
        if (!walk.request.showHidden && hidden(entry.name)) {
            continue;
        }
        if (walk.shown >= walk.maxEntries) {
            walk.full = true;
            return;
        }
        ++walk.shown;
        if (entry.kind == EntryKind::directory) {
            if (depth >= walk.request.maxDepth) {
                walk.text += indent + entry.name + "/ …\n";
                continue;
            }
            walk.text += indent + entry.name + "/\n";
            const detail::UniqueFd child = detail::openSubdirectory(directory, entry.name);
            if (child.valid()) {
                mapDirectory(walk, child.get(), detail::joinRelative(relative, entry.name), depth + 1);
            }
            if (walk.full) {
                return;
            }
        } else if (entry.kind == EntryKind::symlink) {
            walk.text += indent + entry.name + " -> " + symlinkTarget(directory, entry.name) + "\n";
        } else {
            walk.text += indent + entry.name + "\n";
        }
    }
}

}  // namespace

Task<expected<DirectoryListing, WorkspaceError>> LocalWorkspace::list(ListRequest request) {
    auto opened = state_->root.openResolvedDirectory(request.path);
    if (!opened) {
        co_return fail(std::move(opened.error()));
    }
    const detail::ResolvedPath& path = opened->path;
    const detail::UniqueFd& directory = opened->fd;
    auto entries = detail::readDirectory(directory.get(), path.relative);
    if (!entries) {
        co_return fail(std::move(entries.error()));
    }
    DirectoryListing listing;
    listing.path = path.relative;
    for (const DirectoryEntry& found : *entries) {
        if (!request.showHidden && hidden(found.name)) {
            continue;
        }
        if (listing.entries.size() >= request.maxEntries) {
            ++listing.omitted;
            continue;
        }
        FileEntry entry;
        entry.name = found.name;
        entry.isDirectory = found.kind == EntryKind::directory;
        entry.isFile = found.kind == EntryKind::file;
        entry.isSymbolicLink = found.kind == EntryKind::symlink;
        if (request.details) {
            addDetails(directory.get(), entry);
        }
        listing.entries.push_back(std::move(entry));
    }
    co_return listing;
}

Task<expected<GlobResult, WorkspaceError>> LocalWorkspace::glob(GlobRequest request) {
    if (request.pattern.empty()) {
        co_return fail(WorkspaceError{WorkspaceErrc::invalid_argument, "the glob pattern is empty"});
    }
    if (request.pattern.front() == '/') {
        co_return fail(
            WorkspaceError{WorkspaceErrc::outside_workspace,
                           "the glob pattern '" + request.pattern +
                               "' is absolute; patterns are relative to the workspace (set base for a "
                               "subdirectory)"});
    }
    const std::string wrapped = "/" + request.pattern + "/";
    if (wrapped.find("/../") != std::string::npos) {
        co_return fail(WorkspaceError{WorkspaceErrc::outside_workspace,
                                      "the glob pattern '" + request.pattern +
                                          "' climbs with '..'; patterns match only inside the workspace"});
    }
    auto opened = state_->root.openResolvedDirectory(request.base);
    if (!opened) {
        co_return fail(std::move(opened.error()));
    }
    const detail::ResolvedPath& base = opened->path;
    const detail::UniqueFd& directory = opened->fd;
    const GlobPattern pattern(request.pattern);
    GlobWalk walk{pattern, request, state_->config.maxWalkEntries, base.relative, 0, {}};
    globDirectory(walk, directory.get(), "");
    std::sort(walk.result.paths.begin(), walk.result.paths.end());
    co_return std::move(walk.result);
}

Task<expected<std::string, WorkspaceError>> LocalWorkspace::directoryMap(DirectoryMapRequest request) {
    auto opened = state_->root.openResolvedDirectory(request.path);
    if (!opened) {
        co_return fail(std::move(opened.error()));
    }
    const detail::ResolvedPath& path = opened->path;
    const detail::UniqueFd& directory = opened->fd;
    MapWalk walk{request, std::min(request.maxEntries, state_->config.maxWalkEntries), 0, false, {}};
    walk.text = path.relative == "." ? "./\n" : path.relative + "/\n";
    if (request.maxDepth > 0) {
        mapDirectory(walk, directory.get(), path.relative, 1);
    }
    if (walk.full) {
        walk.text +=
            "… more entries not shown (the map stops at " + std::to_string(walk.maxEntries) + " entries)\n";
    }
    co_return std::move(walk.text);
}

}  // namespace reagent::builtins
