#include "files/directory_reader.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "workspace/workspace_root.hpp"

namespace reagent::builtins::detail {

expected<std::vector<DirectoryEntry>, WorkspaceError> readDirectory(int directory,
                                                                    const std::string& relative) {
    // fdopendir takes the descriptor over: give it a fresh one of the same directory.
    const int own = ::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (own < 0) {
        return fail(systemError("cannot list", relative, errno));
    }
    DIR* stream = ::fdopendir(own);
    if (stream == nullptr) {
        const int error = errno;
        ::close(own);
        return fail(systemError("cannot list", relative, error));
    }
    std::vector<DirectoryEntry> entries;
    errno = 0;
    while (const dirent* entry = ::readdir(stream)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") {
            continue;
        }
        unsigned char type = entry->d_type;
        if (type == DT_UNKNOWN) {
            struct stat info {};
            if (::fstatat(directory, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
                type = S_ISDIR(info.st_mode)   ? DT_DIR
                       : S_ISREG(info.st_mode) ? DT_REG
                       : S_ISLNK(info.st_mode) ? DT_LNK
                                               : DT_UNKNOWN;
            }
        }
        DirectoryEntry out;
        out.name = name;
        out.kind = type == DT_DIR   ? EntryKind::directory
                   : type == DT_REG ? EntryKind::file
                   : type == DT_LNK ? EntryKind::symlink
                                    : EntryKind::other;
        entries.push_back(std::move(out));
    }
    ::closedir(stream);
    std::sort(entries.begin(), entries.end(),
              [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
    return entries;
}

UniqueFd openSubdirectory(int directory, const std::string& name) {
    return UniqueFd(::openat(directory, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

std::string joinRelative(const std::string& relative, const std::string& name) {
    return relative.empty() || relative == "." ? name : relative + "/" + name;
}

}  // namespace reagent::builtins::detail
