#include "reagent/core/subprocess.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/pipe_write.hpp"
#include "reagent/core/enum_name.hpp"
#include "reagent/core/helper_program.hpp"
#include "reagent/core/settle.hpp"

extern char** environ;  // NOLINT: POSIX

namespace reagent {
namespace {

namespace asio = boost::asio;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) {
            if (fd_ >= 0) {
                ::close(fd_);
            }
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    [[nodiscard]] int get() const { return fd_; }
    [[nodiscard]] int release() { return std::exchange(fd_, -1); }

  private:
    int fd_ = -1;
};

struct SpawnActions {
    posix_spawn_file_actions_t value;
    SpawnActions() { ::posix_spawn_file_actions_init(&value); }
    ~SpawnActions() { ::posix_spawn_file_actions_destroy(&value); }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
};

struct SpawnAttributes {
    posix_spawnattr_t value;
    SpawnAttributes() { ::posix_spawnattr_init(&value); }
    ~SpawnAttributes() { ::posix_spawnattr_destroy(&value); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
};

SpawnError systemError(std::string what, int error) {
    return {SpawnErrc::spawn_failed, std::move(what) + ": " + std::strerror(error)};
}

bool executable(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string variable(const std::vector<std::string>& environment, std::string_view name) {
    for (const std::string& entry : environment) {
        if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
            entry[name.size()] == '=') {
            return entry.substr(name.size() + 1);
        }
    }
    return {};
}

// posix_spawnp would search this process's PATH; the child's own PATH is the one that counts.
expected<std::string, SpawnError> resolveProgram(const std::string& program,
                                                 const std::vector<std::string>& environment) {
    if (program.empty()) {
        return unexpected(SpawnError{SpawnErrc::not_found, "no program given"});
    }
    if (program.find('/') != std::string::npos) {
        return program;  // posix_spawn says why it cannot run it, if it cannot
    }
    std::string path = variable(environment, "PATH");
    if (path.empty()) {
        path = "/usr/local/bin:/usr/bin:/bin";
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find(':', start);
        if (end == std::string::npos) {
            end = path.size();
        }
        std::string directory = path.substr(start, end - start);
        std::string candidate = (directory.empty() ? std::string(".") : directory) + "/" + program;
        if (executable(candidate)) {
            return candidate;
        }
        start = end + 1;
    }
    return unexpected(
        SpawnError{SpawnErrc::not_found, "'" + program + "' was not found on PATH (" + path + ")"});
}

// The descriptor on which reagent-reaper reads its control pipe.
constexpr int kReaperControl = 3;

// The reaper helper, once the program it will run is known to be executable: posix_spawn would report a
// program it cannot run, and the helper's own exec failure comes only as an exit status.
expected<std::string, SpawnError> reaperHelper(const std::string& program, const std::string& directory) {
    const std::string checked =
        program.front() == '/' || directory.empty() ? program : directory + "/" + program;
    if (::access(checked.c_str(), X_OK) != 0) {
        const int error = errno;
        SpawnError failure = systemError("could not start '" + program + "'", error);
        if (error == ENOENT) {
            failure.code = SpawnErrc::not_found;
        }
        return unexpected(std::move(failure));
    }
    std::string helper = helperProgramPath("reagent-reaper", "REAGENT_REAPER_HELPER",
                                           REAGENT_REAPER_HELPER_INSTALLED, REAGENT_REAPER_HELPER_BUILD);
    if (::access(helper.c_str(), X_OK) != 0) {
        return unexpected(
            SpawnError{SpawnErrc::spawn_failed, "the reagent-reaper helper is missing (looked at '" + helper +
                                                    "'; set REAGENT_REAPER_HELPER to its path)"});
    }
    return helper;
}

std::vector<std::string> currentEnvironment() {
    std::vector<std::string> out;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        out.emplace_back(*entry);
    }
    return out;
}

}  // namespace

namespace detail {

namespace {

// write(2) to a pipe whose reader is gone raises SIGPIPE, which ends the process by default. A library may
// not change the process's disposition (the application owns it) nor other threads' masks, so the signal is
// blocked in this thread for this write alone; when the write raised it (EPIPE), it is pending on this
// thread and taken back before the mask is restored. Safe with any disposition and any number of threads:
// the signal a write raises is directed at the writing thread, and sigtimedwait takes a thread's own
// pending signals before the process's. If this thread already blocked SIGPIPE, one that was pending
// before the write (the application's) is left alone: standard signals do not queue, so it stands for both.
ssize_t writeWithoutSigpipe(int fd, const void* data, std::size_t size) {
    sigset_t pipeOnly;
    sigemptyset(&pipeOnly);
    sigaddset(&pipeOnly, SIGPIPE);
    sigset_t previous;
    ::pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous);
    const bool wasBlocked = sigismember(&previous, SIGPIPE) == 1;
    bool wasPending = false;
    if (wasBlocked) {
        sigset_t pending;
        wasPending = ::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    }
    const ssize_t written = ::write(fd, data, size);
    const int error = errno;
    if (written < 0 && error == EPIPE && !wasPending) {
        const timespec now{0, 0};
        while (::sigtimedwait(&pipeOnly, nullptr, &now) < 0 && errno == EINTR) {
        }
    }
    if (!wasBlocked) {
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    }
    errno = error;
    return written;
}

}  // namespace

Task<std::tuple<boost::system::error_code, std::size_t>> writeToPipe(asio::posix::stream_descriptor* pipe,
                                                                     std::string data) {
    std::size_t done = 0;
    while (done < data.size()) {
        if (!pipe->is_open()) {
            co_return std::tuple(boost::system::error_code(asio::error::bad_descriptor), done);
        }
        const ssize_t written =
            writeWithoutSigpipe(pipe->native_handle(), data.data() + done, data.size() - done);
        if (written >= 0) {
            done += static_cast<std::size_t>(written);
            continue;
        }
        const int error = errno;
        if (error == EINTR) {
            continue;
        }
        if (error != EAGAIN && error != EWOULDBLOCK) {
            co_return std::tuple(boost::system::error_code(error, boost::system::system_category()), done);
        }
        // The pipe is full: wait for room (the cancellable step).
        auto [ec] = co_await pipe->async_wait(asio::posix::stream_descriptor::wait_write, kTuple);
        if (ec) {
            co_return std::tuple(ec, done);
        }
    }
    co_return std::tuple(boost::system::error_code(), done);
}

}  // namespace detail

std::string_view toString(SpawnErrc code) noexcept {
    return enumName(code);
}

std::vector<std::string> mergedEnvironment(const std::vector<std::string>& overrides) {
    std::vector<std::string> environment = currentEnvironment();
    for (const std::string& entry : overrides) {
        const std::size_t equals = entry.find('=');
        const std::string_view name = std::string_view(entry).substr(0, equals);
        bool replaced = false;
        for (std::string& existing : environment) {
            if (existing.size() > name.size() && existing.compare(0, name.size(), name) == 0 &&
                existing[name.size()] == '=') {
                existing = entry;
                replaced = true;
                break;
            }
        }
        if (!replaced) {
            environment.push_back(entry);
        }
    }
    return environment;
}

Subprocess::Subprocess(const Executor& executor, pid_t pid, int pidfd, int control)
    : pid_(pid),
      pidfd_(executor, pidfd),
      input_(executor),
      output_(executor),
      errors_(executor),
      control_(control) {}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pidfd_(std::move(other.pidfd_)),
      input_(std::move(other.input_)),
      output_(std::move(other.output_)),
      errors_(std::move(other.errors_)),
      status_(other.status_),
      control_(std::exchange(other.control_, -1)) {}

Subprocess::~Subprocess() {
    if (pid_ > 0 && !status_) {
        signalGroup(SIGKILL);
        reapNow();
    }
    if (control_ >= 0) {
        ::close(control_);
    }
}

expected<Subprocess, SpawnError> Subprocess::spawn(const Executor& executor,
                                                   const SubprocessOptions& options) {
    std::vector<std::string> environment = options.environment ? *options.environment : currentEnvironment();
    auto program = resolveProgram(options.program, environment);
    if (!program) {
        return unexpected(program.error());
    }
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        return unexpected(systemError("could not create the input pipe", errno));
    }
    UniqueFd inChild(in[0]);
    UniqueFd inParent(in[1]);
    // Only this side is non-blocking (writeInput waits for room itself); the child's end stays blocking.
    if (::fcntl(inParent.get(), F_SETFL, ::fcntl(inParent.get(), F_GETFL) | O_NONBLOCK) != 0) {
        return unexpected(systemError("could not set up the input pipe", errno));
    }
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        return unexpected(systemError("could not create the output pipe", errno));
    }
    UniqueFd outParent(out[0]);
    UniqueFd outChild(out[1]);
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) {
        return unexpected(systemError("could not create the error pipe", errno));
    }
    UniqueFd errParent(err[0]);
    UniqueFd errChild(err[1]);

    // With containDescendants, the reaper helper runs the program and reads its control pipe on fd 3.
    UniqueFd controlChild;
    UniqueFd controlParent;
    std::string launched = *program;
    if (options.containDescendants) {
        auto reaper = reaperHelper(*program, options.workingDirectory);
        if (!reaper) {
            return unexpected(std::move(reaper.error()));
        }
        launched = std::move(*reaper);
        int control[2];
        if (::pipe2(control, O_CLOEXEC) != 0) {
            return unexpected(systemError("could not create the reaper's control pipe", errno));
        }
        UniqueFd read(control[0]);
        controlParent = UniqueFd(control[1]);
        // Above 3, so that the dup2 onto 3 below always takes place (and clears close-on-exec).
        controlChild = UniqueFd(::fcntl(read.get(), F_DUPFD_CLOEXEC, kReaperControl + 1));
        if (controlChild.get() < 0) {
            return unexpected(systemError("could not create the reaper's control pipe", errno));
        }
    }

    SpawnActions actions;
    ::posix_spawn_file_actions_adddup2(&actions.value, inChild.get(), STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions.value, outChild.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions.value, errChild.get(), STDERR_FILENO);
    int firstClosed = STDERR_FILENO + 1;
    if (controlChild.get() >= 0) {
        ::posix_spawn_file_actions_adddup2(&actions.value, controlChild.get(), kReaperControl);
        firstClosed = kReaperControl + 1;
    }
    ::posix_spawn_file_actions_addclosefrom_np(&actions.value, firstClosed);
    if (!options.workingDirectory.empty()) {
        ::posix_spawn_file_actions_addchdir_np(&actions.value, options.workingDirectory.c_str());
    }

    // posix_spawn rather than fork: glibc runs only async-signal-safe steps between clone(CLONE_VFORK)
    // and exec, safe in a multi-threaded parent, and reports exec failures synchronously.
    SpawnAttributes attributes;
    ::posix_spawnattr_setflags(&attributes.value,
                               POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    ::posix_spawnattr_setpgroup(&attributes.value, 0);
    sigset_t signals;
    sigemptyset(&signals);
    ::posix_spawnattr_setsigmask(&attributes.value, &signals);
    sigfillset(&signals);
    sigdelset(&signals, SIGKILL);
    sigdelset(&signals, SIGSTOP);
    ::posix_spawnattr_setsigdefault(&attributes.value, &signals);

    std::vector<char*> argv;
    if (options.containDescendants) {  // reagent-reaper PATH ARG0 ARGS...
        argv.push_back(launched.data());
        argv.push_back(program->data());
    }
    argv.push_back(const_cast<char*>(options.program.c_str()));
    for (const std::string& argument : options.args) {
        argv.push_back(const_cast<char*>(argument.c_str()));
    }
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& entry : environment) {
        envp.push_back(entry.data());
    }
    envp.push_back(nullptr);

    pid_t pid = -1;
    const int error =
        ::posix_spawn(&pid, launched.c_str(), &actions.value, &attributes.value, argv.data(), envp.data());
    if (error != 0) {
        std::string what = "could not start '" + launched + "'";
        if (!options.workingDirectory.empty()) {
            what += " in '" + options.workingDirectory + "'";
        }
        SpawnError failure = systemError(std::move(what), error);
        if (error == ENOENT && ::access(launched.c_str(), F_OK) != 0) {
            failure.code = SpawnErrc::not_found;  // the program, not the working directory, is missing
        }
        return unexpected(std::move(failure));
    }
    // glibc 2.36 declares pidfd_open without C linkage for C++; the system call is the same.
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
        const int openError = errno;
        ::kill(-pid, SIGKILL);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return unexpected(systemError("could not watch the started process (pidfd_open)", openError));
    }
    Subprocess child(executor, pid, pidfd, controlParent.release());
    boost::system::error_code ec;
    child.input_.assign(inParent.get(), ec);
    if (!ec) {
        (void)inParent.release();
        child.output_.assign(outParent.get(), ec);
    }
    if (!ec) {
        (void)outParent.release();
        child.errors_.assign(errParent.get(), ec);
    }
    if (!ec) {
        (void)errParent.release();
    }
    if (ec) {
        return unexpected(
            SpawnError{SpawnErrc::spawn_failed, "could not watch the started process: " + ec.message()});
    }
    return child;
}

void Subprocess::signalGroup(int signal) noexcept {
    // Only before the reap: until then the zombie keeps the group id from being reused.
    if (pid_ <= 0 || status_) {
        return;
    }
    if (signal == SIGKILL && control_ >= 0) {
        // The reaper, killed with its group, would leave the processes outside the group alive: it kills
        // them all itself when its control pipe closes, then dies of SIGKILL.
        ::close(std::exchange(control_, -1));
        return;
    }
    ::kill(-pid_, signal);
}

Task<std::tuple<boost::system::error_code, std::size_t>> Subprocess::writeInput(std::string data) {
    if (!input_.is_open()) {
        co_return std::tuple(boost::system::error_code(asio::error::bad_descriptor), std::size_t{0});
    }
    co_return co_await detail::writeToPipe(&input_, std::move(data));
}

void Subprocess::closeInput() noexcept {
    boost::system::error_code ignored;
    input_.close(ignored);
}

bool Subprocess::exitedNow() const noexcept {
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno != EINTR) {
            return true;  // not our child any more (reaped elsewhere): nothing is left to wait for
        }
    }
    return info.si_pid != 0;
}

// A pidfd is readable once the process has exited, but readiness alone is not believed: Asio's epoll
// reactor queues a descriptor's state when epoll reports it, and a descriptor closed before that state runs
// gives it back for reuse, stale events included. A pidfd registered at once (a pipe at end of file closed,
// the next command spawned) then sees its wait complete though the process runs on; a wait performs no I/O
// that would notice. So each readiness is confirmed by waitid, which does not reap; waiting again re-arms
// the descriptor, which reports a real exit even if it came in between.
Task<bool> Subprocess::awaitExit(bool cancellable) {
    for (;;) {
        if (exitedNow()) {
            co_return true;
        }
        boost::system::error_code ec;
        if (cancellable) {
            auto [waitError] = co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, kTuple);
            ec = waitError;
        } else {
            auto token = asio::bind_cancellation_slot(asio::cancellation_slot(), kTuple);
            auto [waitError] = co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, token);
            ec = waitError;
        }
        if (ec) {
            co_return false;
        }
    }
}

Task<bool> Subprocess::waitExit() {
    if (status_) {
        co_return true;
    }
    co_return co_await awaitExit(true);
}

void Subprocess::reapNow() noexcept {
    if (status_) {
        return;
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 0;
            break;
        }
    }
    status_ = status;
    boost::system::error_code ignored;
    pidfd_.close(ignored);
}

Task<int> Subprocess::reap() {
    if (!status_) {
        signalGroup(SIGKILL);
        // On failure the blocking wait below still ends: the process was killed.
        (void)co_await awaitExit(false);
        reapNow();
    }
    co_return *status_;
}

Task<int> Subprocess::stop(std::chrono::milliseconds grace) {
    // Checked: a cancelled caller ends the waits early, and the reap still runs to the end.
    co_return co_await withCheckedCancellation(stopSteps(grace));
}

Task<int> Subprocess::stopSteps(std::chrono::milliseconds grace) {
    if (status_) {
        co_return *status_;
    }
    closeInput();
    auto executor = co_await asio::this_coro::executor;
    for (int signal : {0, SIGTERM}) {
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            break;
        }
        if (signal != 0) {
            signalGroup(signal);
        }
        asio::steady_timer deadline(executor, grace);
        using namespace asio::experimental::awaitable_operators;
        auto exited = co_await (waitExit() || deadline.async_wait(kTuple));
        if (exited.index() == 0 && std::get<0>(exited)) {
            break;
        }
    }
    co_return co_await reap();
}

std::string describeWaitStatus(int status) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* name = ::strsignal(signal);
        return "was killed by signal " + std::to_string(signal) +
               (name != nullptr ? std::string(" (") + name + ")" : "");
    }
    if (WIFEXITED(status)) {
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "ended (wait status " + std::to_string(status) + ")";
}

}  // namespace reagent
