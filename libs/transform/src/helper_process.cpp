#include "helper_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2/process.hpp>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/settle.hpp"

namespace reagent::transform::detail {
namespace {

namespace asio = boost::asio;
using Process = boost::process::v2::basic_process<Executor>;
using ErrorCode = boost::system::error_code;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;

/// Owns a file descriptor until it is released to an Asio object.
class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        reset(std::exchange(other.fd_, -1));
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    [[nodiscard]] int get() const { return fd_; }
    [[nodiscard]] int release() { return std::exchange(fd_, -1); }
    void reset(int fd = -1) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = fd;
    }

  private:
    int fd_ = -1;
};

/// The parent's ends of a started helper.
struct Spawned {
    pid_t pid = -1;
    UniqueFd input;
    UniqueFd output;
    UniqueFd diagnostics;
};

std::string systemError(std::string_view what, int error) {
    std::string text(what);
    text += ": ";
    text += std::strerror(error);
    return text;
}

/// Kills the helper's whole process group. Only called before the helper is reaped, so the group id
/// (the helper's pid) cannot have been reused.
void killGroup(pid_t pid) noexcept {
    if (pid > 0) {
        ::kill(-pid, SIGKILL);
    }
}

// RAII for the posix_spawn attribute objects.
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

/// Starts the helper with posix_spawn rather than Process v2's fork-based launchers: those call
/// io_context::notify_fork in the forked child, which takes mutexes and allocates — unsafe in a
/// multi-threaded parent (and a deadlock under ASan). glibc's posix_spawn runs only async-signal-safe
/// steps between clone(CLONE_VM | CLONE_VFORK) and exec, and reports exec failures synchronously.
expected<Spawned, std::string> spawnHelper(const HelperRequest& request) {
    // Every descriptor is close-on-exec, so no other child of this process inherits one; dup2 onto the
    // helper's 0/1/2 clears the flag there. Standard input is a socket: writing to it after the helper
    // exited fails with EPIPE instead of raising SIGPIPE in this process (Asio sends with MSG_NOSIGNAL).
    int in[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
        return fail(systemError("could not create the input socket", errno));
    }
    UniqueFd inParent(in[0]);
    UniqueFd inChild(in[1]);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        return fail(systemError("could not create the output pipe", errno));
    }
    UniqueFd outParent(out[0]);
    UniqueFd outChild(out[1]);
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) {
        return fail(systemError("could not create the diagnostics pipe", errno));
    }
    UniqueFd errParent(err[0]);
    UniqueFd errChild(err[1]);

    SpawnActions actions;
    ::posix_spawn_file_actions_adddup2(&actions.value, inChild.get(), STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions.value, outChild.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions.value, errChild.get(), STDERR_FILENO);
    // Belt and braces: descriptors opened without close-on-exec elsewhere in the process stay out too.
    ::posix_spawn_file_actions_addclosefrom_np(&actions.value, STDERR_FILENO + 1);

    SpawnAttributes attributes;
    // Own process group (setpgid(0, 0) in the child) so that a kill reaches everything it started;
    // default signal dispositions and an empty signal mask whatever this process has set.
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
    argv.push_back(const_cast<char*>(request.executable.c_str()));
    for (const std::string& argument : request.arguments) {
        argv.push_back(const_cast<char*>(argument.c_str()));
    }
    argv.push_back(nullptr);
    // An empty environment: the helper (and jq's `env`/`$ENV`) sees none of this process's variables.
    char* environment[] = {nullptr};

    Spawned spawned;
    const int error = ::posix_spawn(&spawned.pid, request.executable.c_str(), &actions.value,
                                    &attributes.value, argv.data(), environment);
    if (error != 0) {
        return fail(systemError("could not start '" + request.executable + "'", error));
    }
    spawned.input = std::move(inParent);
    spawned.output = std::move(outParent);
    spawned.diagnostics = std::move(errParent);
    return spawned;
}

/// The state shared by the coroutines of one run.
struct Session {
    explicit Session(const Executor& executor)
        : process(executor), input(executor), output(executor), diagnostics(executor) {}

    Process process;
    asio::local::stream_protocol::socket input;
    asio::readable_pipe output;
    asio::readable_pipe diagnostics;
    pid_t pid = -1;
    std::string inputData;
    std::string outputData;
    std::string diagnosticData;
    std::size_t maxOutputBytes = 0;
    std::size_t maxDiagnosticBytes = 0;
    bool outputTooLarge = false;
    std::optional<int> waitStatus;  // set once reaped
};

/// Hands the started helper to Asio; on failure it is killed and reaped here.
expected<std::shared_ptr<Session>, std::string> adopt(const Executor& executor, Spawned spawned) {
    auto session = std::make_shared<Session>(executor);
    session->pid = spawned.pid;
    ErrorCode ec;
    try {
        // Process v2 watches the helper through a pidfd (Linux >= 5.3): waiting is an ordinary read.
        session->process = Process(executor, spawned.pid);
    } catch (const std::exception& error) {
        ec = asio::error::bad_descriptor;
    }
    if (!ec) {
        session->input.assign(asio::local::stream_protocol(), spawned.input.get(), ec);
        if (!ec) {
            (void)spawned.input.release();
        }
    }
    if (!ec) {
        session->output.assign(spawned.output.get(), ec);
        if (!ec) {
            (void)spawned.output.release();
        }
    }
    if (!ec) {
        session->diagnostics.assign(spawned.diagnostics.get(), ec);
        if (!ec) {
            (void)spawned.diagnostics.release();
        }
    }
    if (ec) {
        killGroup(spawned.pid);
        int status = 0;
        while (::waitpid(spawned.pid, &status, 0) < 0 && errno == EINTR) {
        }
        (void)session->process.detach();
        return fail("could not watch the started helper: " + ec.message());
    }
    return session;
}

Task<void> writeInput(std::shared_ptr<Session> session) {
    if (!session->inputData.empty()) {
        // EPIPE/ECONNRESET when the helper exits without reading (e.g. a compile error): not an error.
        auto buffer = asio::buffer(session->inputData);
        auto [ec, written] = co_await asio::async_write(session->input, buffer, kTuple);
        (void)ec;
        (void)written;
    }
    std::string().swap(session->inputData);  // the input can be large; free it early
    ErrorCode ignored;
    session->input.shutdown(asio::socket_base::shutdown_send, ignored);
    session->input.close(ignored);
}

Task<void> readOutput(std::shared_ptr<Session> session) {
    std::string chunk(kReadChunk, '\0');
    for (;;) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await session->output.async_read_some(buffer, kTuple);
        session->outputData.append(chunk.data(), n);
        if (session->outputData.size() > session->maxOutputBytes) {
            // Stop reading and stop the helper: it would otherwise block on a full pipe until the deadline.
            session->outputTooLarge = true;
            killGroup(session->pid);
            break;
        }
        if (ec) {
            break;  // end of file (the helper exited), or cancelled
        }
    }
    ErrorCode ignored;
    session->output.close(ignored);
}

Task<void> readDiagnostics(std::shared_ptr<Session> session) {
    std::string chunk(kReadChunk, '\0');
    for (;;) {
        auto buffer = asio::buffer(chunk);
        auto [ec, n] = co_await session->diagnostics.async_read_some(buffer, kTuple);
        const std::size_t room = session->maxDiagnosticBytes -
                                 std::min(session->maxDiagnosticBytes, session->diagnosticData.size());
        session->diagnosticData.append(chunk.data(), std::min(n, room));
        if (ec) {
            break;
        }
    }
    ErrorCode ignored;
    session->diagnostics.close(ignored);
}

/// Feeds the input and drains both outputs concurrently (so that neither side blocks on a full pipe),
/// then reaps the helper. Cancelled by runHelper's race on timeout or cancellation.
Task<void> exchange(std::shared_ptr<Session> session) {
    auto executor = co_await asio::this_coro::executor;
    auto group = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, writeInput(session), asio::deferred),
        asio::co_spawn(executor, readOutput(session), asio::deferred),
        asio::co_spawn(executor, readDiagnostics(session), asio::deferred));
    co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return;
    }
    // Both outputs are at end of file: the helper has exited or is about to.
    auto [ec, status] = co_await session->process.handle().async_wait(kTuple);
    if (!ec) {
        session->waitStatus = status;
    }
}

/// Kills (unless already reaped) and reaps the helper. The wait is bound to no cancellation slot:
/// after SIGKILL it is short, and a zombie must not be left behind because the caller gave up.
Task<void> stopAndReap(std::shared_ptr<Session> session) {
    if (!session->waitStatus) {
        killGroup(session->pid);
        auto token = asio::bind_cancellation_slot(asio::cancellation_slot(), kTuple);
        auto [ec, status] = co_await session->process.handle().async_wait(token);
        if (ec) {
            // The pidfd wait failed (should not happen): fall back to a blocking wait on a killed process.
            while (::waitpid(session->pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
        session->waitStatus = status;
    }
    // Forget the pid so that Process's destructor never signals a reused one.
    (void)session->process.detach();
}

HelperRun finish(Session& session, HelperEnd end) {
    HelperRun run;
    run.end = end;
    if (end == HelperEnd::exited || end == HelperEnd::signalled) {
        const int status = session.waitStatus.value_or(0);
        if (WIFSIGNALED(status)) {
            run.end = HelperEnd::signalled;
            run.status = WTERMSIG(status);
        } else {
            run.end = HelperEnd::exited;
            run.status = WEXITSTATUS(status);
        }
    }
    run.output = std::move(session.outputData);
    run.diagnostics = std::move(session.diagnosticData);
    return run;
}

// The body of runHelper, run with checked cancellation: once the race is over the helper must be
// reaped, even when the caller was cancelled.
Task<HelperRun> runChecked(HelperRequest request) {
    HelperRun notStarted;
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        notStarted.end = HelperEnd::cancelled;
        co_return notStarted;
    }
    auto executor = co_await asio::this_coro::executor;
    auto spawned = spawnHelper(request);
    if (!spawned) {
        notStarted.failure = std::move(spawned.error());
        co_return notStarted;
    }
    auto adopted = adopt(executor, std::move(*spawned));
    if (!adopted) {
        notStarted.failure = std::move(adopted.error());
        co_return notStarted;
    }
    std::shared_ptr<Session> session = std::move(*adopted);
    session->inputData = std::move(request.input);
    session->maxOutputBytes = request.maxOutputBytes;
    session->maxDiagnosticBytes = request.maxDiagnosticBytes;

    asio::steady_timer timer(executor, request.deadline);
    auto race = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, exchange(session), asio::deferred), timer.async_wait(asio::deferred));
    auto outcome =
        co_await std::move(race).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    const bool timerFirst = std::get<0>(outcome)[0] == 1;
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    const bool finished = session->waitStatus.has_value();
    co_await stopAndReap(session);

    if (cancelled) {
        co_return finish(*session, HelperEnd::cancelled);
    }
    if (session->outputTooLarge) {
        co_return finish(*session, HelperEnd::output_too_large);
    }
    if (timerFirst && !finished) {
        co_return finish(*session, HelperEnd::timed_out);
    }
    co_return finish(*session, HelperEnd::exited);
}

}  // namespace

Task<HelperRun> runHelper(HelperRequest request) {
    return withCheckedCancellation(runChecked(std::move(request)));
}

}  // namespace reagent::transform::detail
