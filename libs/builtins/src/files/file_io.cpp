#include "files/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <random>

namespace reagent::builtins::detail {

expected<OpenFile, WorkspaceError> openForReading(const WorkspaceRoot& root, const ResolvedPath& path) {
    if (path.components.empty()) {
        return fail(WorkspaceError{WorkspaceErrc::not_a_file, "'.' is the workspace root, a directory"});
    }
    auto directory = root.openDirectory(path, path.components.size() - 1, false);
    if (!directory) {
        return fail(std::move(directory.error()));
    }
    OpenFile file;
    file.fd.reset(::openat(directory->get(), path.components.back().c_str(),
                           O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!file.fd.valid()) {
        if (errno == ELOOP) {
            return fail(swappedForLink(path.relative));
        }
        return fail(systemError("cannot open", path.relative, errno));
    }
    if (::fstat(file.fd.get(), &file.info) != 0) {
        return fail(systemError("cannot inspect", path.relative, errno));
    }
    if (S_ISDIR(file.info.st_mode)) {
        return fail(WorkspaceError{WorkspaceErrc::not_a_file,
                                   quotedPath(path.relative) + " is a directory, not a file"});
    }
    if (!S_ISREG(file.info.st_mode)) {
        return fail(WorkspaceError{WorkspaceErrc::not_a_file,
                                   quotedPath(path.relative) +
                                       " is a special file (device, socket or FIFO), not a "
                                       "regular file"});
    }
    return file;
}

expected<std::string, WorkspaceError> readAll(const OpenFile& file, std::size_t limit,
                                              std::string_view relative) {
    std::string content(std::min<std::size_t>(static_cast<std::size_t>(file.info.st_size), limit), '\0');
    std::size_t filled = 0;
    while (filled < content.size()) {
        const ssize_t n = ::read(file.fd.get(), content.data() + filled, content.size() - filled);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return fail(systemError("cannot read", relative, errno));
        }
        if (n == 0) {
            break;  // the file shrank meanwhile
        }
        filled += static_cast<std::size_t>(n);
    }
    content.resize(filled);
    return content;
}

namespace {

std::string temporaryName(const std::string& name) {
    static thread_local std::mt19937_64 random{std::random_device{}()};
    constexpr char kDigits[] = "0123456789abcdef";
    std::string suffix;
    std::uint64_t bits = random();
    for (int i = 0; i < 12; ++i, bits >>= 4) {
        suffix += kDigits[bits & 0xF];
    }
    return "." + name.substr(0, 64) + ".reagent-" + suffix;
}

}  // namespace

expected<void, WorkspaceError> replaceFile(int directory, const std::string& name, std::string_view content,
                                           std::optional<mode_t> mode, std::string_view relative) {
    std::string temporary;
    UniqueFd fd;
    for (int attempt = 0; attempt < 8 && !fd.valid(); ++attempt) {
        temporary = temporaryName(name);
        fd.reset(::openat(directory, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          0666));
        if (!fd.valid() && errno != EEXIST) {
            return fail(systemError("cannot create a file beside", relative, errno));
        }
    }
    if (!fd.valid()) {
        return fail(systemError("cannot create a file beside", relative, EEXIST));
    }
    auto discard = [&](int error) {
        ::unlinkat(directory, temporary.c_str(), 0);
        return fail(systemError("cannot write", relative, error));
    };
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return discard(errno);
        }
        written += static_cast<std::size_t>(n);
    }
    // A new file gets 0666 less the umask; a replaced file keeps its mode exactly.
    if (mode && ::fchmod(fd.get(), *mode) != 0) {
        return discard(errno);
    }
    fd.reset();
    if (::renameat(directory, temporary.c_str(), directory, name.c_str()) != 0) {
        return discard(errno);
    }
    return {};
}

}  // namespace reagent::builtins::detail
