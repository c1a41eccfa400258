// reagent-reaper: runs a program and, when it ends or when told to, kills every process it started, also
// those that left its process group or session (setsid, a double fork).
//
//   reagent-reaper PATH ARG0 [ARGS...]        file descriptor 3: the read end of the control pipe
//
// It is a child subreaper (PR_SET_CHILD_SUBREAPER): an orphaned descendant is reparented to it rather than
// to init, so it can find every one. It runs PATH with ARG0 and ARGS in its own process group (the group
// Subprocess signals) with every signal at its default and unblocked, and blocks every signal itself, so
// a signal to the group reaches the program and never ends the reaper early. When the program ends, the
// reaper kills what is left and exits with the program's status (dying of the same signal if the program
// was killed). When the control pipe reaches end of file — its owner closed it to kill everything, or
// exited, however it died — it kills everything and dies of SIGKILL. Exit status 125 with a message on
// stderr when it cannot start; 127/126 when PATH cannot be run.
//
// A pipe rather than PR_SET_PDEATHSIG: the death signal fires when the *thread* that spawned us exits,
// which in a multi-threaded parent is not the parent's death; a pipe closes when the process does.

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kControl = 3;
constexpr int kCannotStart = 125;

int fail(const char* what) {
    std::fprintf(stderr, "reagent-reaper: %s: %s\n", what, std::strerror(errno));
    return kCannotStart;
}

// Sends SIGKILL to each child of this process; false when it has none. Reads
// /proc/self/task/<pid>/children (one thread here), else scans /proc for processes whose parent we are.
bool killChildren() {
    bool any = false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/children", static_cast<int>(::getpid()));
    if (FILE* list = std::fopen(path, "re")) {
        int child = 0;
        while (std::fscanf(list, "%d", &child) == 1) {
            ::kill(child, SIGKILL);
            any = true;
        }
        std::fclose(list);
        return any;
    }
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) {
        return false;
    }
    const pid_t self = ::getpid();
    while (const dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') {
            continue;
        }
        char statPath[64];
        std::snprintf(statPath, sizeof statPath, "/proc/%ld/stat", pid);
        FILE* stat = std::fopen(statPath, "re");
        if (stat == nullptr) {
            continue;
        }
        char line[512];
        const bool read = std::fgets(line, sizeof line, stat) != nullptr;
        std::fclose(stat);
        const char* close = read ? std::strrchr(line, ')') : nullptr;
        int parent = 0;
        if (close != nullptr && std::sscanf(close + 1, " %*c %d", &parent) == 1 && parent == self) {
            ::kill(static_cast<pid_t>(pid), SIGKILL);
            any = true;
        }
    }
    ::closedir(proc);
    return any;
}

// Kills every descendant: killing a child makes its own children ours (we are their subreaper), so kill,
// reap one, and look again until no child is left.
void killAll() {
    for (;;) {
        killChildren();
        int status = 0;
        if (::waitpid(-1, &status, 0) < 0 && errno != EINTR) {
            return;  // ECHILD: nothing is left
        }
    }
}

[[noreturn]] void dieLike(int status) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const rlimit noCore{0, 0};
        ::setrlimit(RLIMIT_CORE, &noCore);
        struct sigaction byDefault {};
        byDefault.sa_handler = SIG_DFL;
        ::sigaction(signal, &byDefault, nullptr);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, signal);
        ::kill(::getpid(), signal);
        ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    }
    std::_Exit(WIFEXITED(status) ? WEXITSTATUS(status) : kCannotStart);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: reagent-reaper PATH ARG0 [ARGS...] (control pipe on fd 3)\n");
        return kCannotStart;
    }
    if (::fcntl(kControl, F_SETFD, FD_CLOEXEC) != 0) {
        return fail("no control pipe on descriptor 3");
    }
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        return fail("cannot become a subreaper");
    }
    sigset_t all;
    sigfillset(&all);
    sigset_t original;
    ::sigprocmask(SIG_BLOCK, &all, &original);
    sigset_t childSignal;
    sigemptyset(&childSignal);
    sigaddset(&childSignal, SIGCHLD);
    const int children = ::signalfd(-1, &childSignal, SFD_CLOEXEC | SFD_NONBLOCK);
    if (children < 0) {
        return fail("cannot watch the program (signalfd)");
    }
    const pid_t program = ::fork();
    if (program < 0) {
        return fail("cannot start the program (fork)");
    }
    if (program == 0) {
        ::sigprocmask(SIG_SETMASK, &original, nullptr);
        ::execv(argv[1], argv + 2);
        const int error = errno;
        std::fprintf(stderr, "reagent-reaper: cannot run '%s': %s\n", argv[1], std::strerror(error));
        std::_Exit(error == ENOENT ? 127 : 126);
    }
    for (;;) {
        pollfd watched[2] = {{kControl, POLLIN, 0}, {children, POLLIN, 0}};
        if (::poll(watched, 2, -1) < 0) {
            continue;  // EINTR cannot happen with every signal blocked; be safe anyway
        }
        if (watched[0].revents != 0) {
            char byte = 0;
            if (::read(kControl, &byte, 1) <= 0) {  // end of file (or an error): kill everything
                killAll();
                dieLike(SIGKILL);  // a wait status of "killed by SIGKILL"
            }
        }
        if (watched[1].revents != 0) {
            signalfd_siginfo info{};
            while (::read(children, &info, sizeof info) > 0) {
            }
            int status = 0;
            for (pid_t ended; (ended = ::waitpid(-1, &status, WNOHANG)) > 0;) {
                if (ended == program) {
                    killAll();
                    dieLike(status);
                }
            }
        }
    }
}
