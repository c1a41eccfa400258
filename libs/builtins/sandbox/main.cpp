// reagent-sandbox: runs a program confined by Linux Landlock to the directories it is given.
//
//   reagent-sandbox [--read DIR]... [--write DIR]... [--device FILE]... [--no-network] -- PROGRAM [ARGS...]
//
// `--read` directories may be read and executed from, `--write` ones fully used, `--device` files (such
// as /dev/null) read and written; nothing else on the file system can be opened. Where the kernel's
// Landlock ABI is 6 or later, the program also cannot signal a process outside the sandbox nor connect
// to an abstract Unix socket made outside it. `--no-network` puts the program in a network namespace of
// its own (no interface but a loopback that is down): directly as root, else inside a user namespace
// that maps this user to itself. The rules apply to the program and everything it starts, and cannot be
// lifted (no_new_privs is set first). Exit status 125 with a message on stderr when the confinement
// cannot be applied (a kernel without Landlock, a path that cannot be opened, no namespace allowed);
// otherwise the program replaces this process.
//
// A separate program because posix_spawn cannot run code in the child between fork and exec, and the
// rules must be in place before the untrusted program starts.

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kCannotConfine = 125;

// Rights of newer ABIs, absent from older kernel headers.
constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;  // ABI 5
// Scopes of ABI 6 (Linux 6.12, include/uapi/linux/landlock.h), absent from Debian 12's headers.
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // LANDLOCK_SCOPE_SIGNAL

// struct landlock_ruleset_attr as of ABI 6; older kernels are given only the fields they know (its
// size), since they refuse a larger structure unless the extra bytes are zero.
struct RulesetAttributes {
    std::uint64_t handledAccessFs = 0;
    std::uint64_t handledAccessNet = 0;  // ABI 4
    std::uint64_t scoped = 0;            // ABI 6
};

constexpr std::uint64_t kReadRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr std::uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                      LANDLOCK_ACCESS_FS_READ_FILE | kTruncate | kIoctlDev;

int fail(const std::string& what) {
    std::fprintf(stderr, "reagent-sandbox: %s\n", what.c_str());
    return kCannotConfine;
}

std::uint64_t handledRights(int abi) {
    std::uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1U) - 1U;  // the 13 rights of ABI 1
    if (abi >= 2) {
        rights |= kRefer;
    }
    if (abi >= 3) {
        rights |= kTruncate;
    }
    if (abi >= 5) {
        rights |= kIoctlDev;
    }
    return rights;
}

bool addRule(int ruleset, const std::string& path, std::uint64_t rights, std::string& error) {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return true;  // a system directory this machine lacks (/lib64, ...): nothing to allow
        }
        error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    landlock_path_beneath_attr rule{};
    rule.allowed_access = rights;
    rule.parent_fd = fd;
    const long added = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    const int saved = errno;
    ::close(fd);
    if (added != 0) {
        error = "cannot allow '" + path + "': " + std::strerror(saved);
        return false;
    }
    return true;
}

bool writeFile(const char* path, const std::string& text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return written;
}

// A network namespace of its own: as root (CAP_SYS_ADMIN) directly; otherwise, or when that is refused,
// with a user namespace that maps this user and group to themselves, so files keep their owners.
bool leaveNetwork(std::string& error) {
    if (::geteuid() == 0 && ::unshare(CLONE_NEWNET) == 0) {
        return true;
    }
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        error = std::string("cannot make a network namespace (unshare: ") + std::strerror(errno) +
                "): this kernel or container forbids namespaces";
        return false;
    }
    if (!writeFile("/proc/self/setgroups", "deny") ||
        !writeFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
        !writeFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1")) {
        error = std::string("cannot map the user into its namespace: ") + std::strerror(errno);
        return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::pair<std::string, int>> paths;  // 0 read, 1 write, 2 device
    bool network = true;
    int at = 1;
    for (; at < argc; ++at) {
        const std::string option = argv[at];
        if (option == "--") {
            ++at;
            break;
        }
        if (option == "--no-network") {
            network = false;
            continue;
        }
        if ((option == "--read" || option == "--write" || option == "--device") && at + 1 < argc) {
            paths.emplace_back(argv[++at], option == "--read" ? 0 : option == "--write" ? 1 : 2);
            continue;
        }
        return fail(
            "usage: reagent-sandbox [--read DIR]... [--write DIR]... [--device FILE]... [--no-network] -- "
            "PROGRAM [ARGS...]");
    }
    if (at >= argc) {
        return fail("no program to run");
    }
    const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        return fail(std::string("Landlock is not available (") + std::strerror(errno) + ")");
    }
    if (!network) {
        std::string error;
        if (!leaveNetwork(error)) {
            return fail(error);
        }
    }
    const std::uint64_t handled = handledRights(static_cast<int>(abi));
    RulesetAttributes attributes;
    attributes.handledAccessFs = handled;
    std::size_t size = sizeof attributes.handledAccessFs;
    if (abi >= 6) {
        // Signals and abstract Unix sockets stay inside the sandbox (the program's own processes).
        attributes.scoped = kScopeAbstractUnixSocket | kScopeSignal;
        size = sizeof attributes;
    }
    const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attributes, size, 0));
    if (ruleset < 0) {
        return fail(std::string("cannot create a Landlock ruleset: ") + std::strerror(errno));
    }
    for (const auto& [path, kind] : paths) {
        const std::uint64_t rights = kind == 0 ? kReadRights : kind == 1 ? handled : (kFileRights & handled);
        std::string error;
        if (!addRule(ruleset, path, rights, error)) {
            return fail(error);
        }
    }
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        return fail(std::string("cannot set no_new_privs: ") + std::strerror(errno));
    }
    if (::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        return fail(std::string("cannot apply the Landlock ruleset: ") + std::strerror(errno));
    }
    ::close(ruleset);
    ::execvp(argv[at], argv + at);
    std::fprintf(stderr, "reagent-sandbox: cannot run '%s': %s\n", argv[at], std::strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
