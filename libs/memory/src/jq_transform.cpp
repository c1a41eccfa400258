#include "reagent/memory/jq_transform.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <jq.h>
#include <jv.h>
}

namespace reagent::memory {
namespace {

using Clock = std::chrono::steady_clock;

// The child reports one status byte followed by the payload (the result or a message).
constexpr char kOk = 'O';
constexpr char kBadExpression = 'E';
constexpr char kBadInput = 'I';
constexpr char kRuntime = 'R';
constexpr char kTooLarge = 'L';
constexpr char kInternal = 'X';

// Takes ownership of `value` and returns its compact JSON text.
std::string dumpJson(jv value) {
    jv text = jv_dump_string(value, 0);
    std::string out = jv_string_value(text);
    jv_free(text);
    return out;
}

// Takes ownership of a jq message (a string, or any value for `error({...})`) and returns it as text.
std::string messageText(jv message) {
    if (jv_get_kind(message) == JV_KIND_STRING) {
        std::string out = jv_string_value(message);
        jv_free(message);
        return out;
    }
    return dumpJson(message);
}

void collectError(void* data, jv message) {
    auto* out = static_cast<std::string*>(data);
    if (!out->empty()) {
        *out += '\n';
    }
    *out += messageText(message);
}

void ignoreMessage(void*, jv message) { jv_free(message); }

void writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

// Frame: status byte, payload length (8 bytes, host order), payload. The length lets the parent stop
// reading without waiting for end of file, which another thread's child may delay by inheriting the pipe.
constexpr std::size_t kHeaderBytes = 9;

[[noreturn]] void reply(int fd, char status, const std::string& payload) {
    const std::uint64_t length = payload.size();
    char header[kHeaderBytes];
    header[0] = status;
    std::memcpy(header + 1, &length, sizeof length);
    writeAll(fd, header, sizeof header);
    writeAll(fd, payload.data(), payload.size());
    ::_exit(0);
}

// Runs in the forked child: evaluates jq and reports through `fd`. Never returns.
[[noreturn]] void evaluateInChild(int fd, std::string_view expression, std::string_view input,
                                  const TransformLimits& limits) {
    // Die with the parent; keep the parent's secrets (environment) and terminal out of reach.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Drop every inherited descriptor (sockets, files, other calls' pipes) except the report pipe.
    if (fd > STDERR_FILENO + 1) {
        ::close_range(STDERR_FILENO + 1, static_cast<unsigned>(fd) - 1, 0);
    }
    ::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);
    // The parent's signal handlers (crash reporters, test frameworks) must not run in the child.
    for (int signal = 1; signal < NSIG; ++signal) {
        ::signal(signal, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (const int devNull = ::open("/dev/null", O_RDWR); devNull >= 0) {
        ::dup2(devNull, STDIN_FILENO);
        ::dup2(devNull, STDOUT_FILENO);
        ::dup2(devNull, STDERR_FILENO);
        ::close(devNull);
    }
    // An empty environment (not a null one: jq's `env` walks `environ`).
    static char* emptyEnvironment[] = {nullptr};
    environ = emptyEnvironment;
    // Backstop should the parent fail to kill us: CPU time a little past the deadline.
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(limits.timeout).count() + 2;
    const rlimit cpu{static_cast<rlim_t>(seconds), static_cast<rlim_t>(seconds + 1)};
    ::setrlimit(RLIMIT_CPU, &cpu);

    jq_state* jq = jq_init();
    if (jq == nullptr) {
        reply(fd, kInternal, "jq could not be initialised");
    }
    std::string errors;
    jq_set_error_cb(jq, collectError, &errors);
    jq_set_debug_cb(jq, ignoreMessage, nullptr);
    // No module search path: `import`/`include` cannot read files.
    jq_set_attr(jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
    const std::string program(expression);
    if (jq_compile(jq, program.c_str()) == 0) {
        reply(fd, kBadExpression, errors.empty() ? std::string("jq could not compile the expression") : errors);
    }
    jv parsed = jv_parse_sized(input.data(), static_cast<int>(input.size()));
    if (!jv_is_valid(parsed)) {
        std::string why = jv_invalid_has_msg(jv_copy(parsed)) ? messageText(jv_invalid_get_msg(parsed))
                                                               : (jv_free(parsed), std::string("no value"));
        reply(fd, kBadInput, "the input is not valid JSON: " + why);
    }
    jq_start(jq, parsed, 0);
    std::vector<std::string> outputs;
    std::size_t bytes = 0;
    for (jv result = jq_next(jq);; result = jq_next(jq)) {
        if (jv_is_valid(result)) {
            outputs.push_back(dumpJson(result));
            bytes += outputs.back().size() + 1;  // and a separating comma
            if (bytes > limits.maxOutputBytes + 2) {
                reply(fd, kTooLarge, {});
            }
            continue;
        }
        if (jq_halted(jq)) {
            jv_free(result);
            // `halt` stops quietly; `halt_error` reports its message like an error.
            jv code = jq_get_exit_code(jq);
            const bool failed = jv_is_valid(code) && !(jv_get_kind(code) == JV_KIND_NUMBER &&
                                                       jv_number_value(code) == 0);
            jv_free(code);
            if (failed) {
                reply(fd, kRuntime, "halt_error: " + messageText(jq_get_error_message(jq)));
            }
        } else if (jv_invalid_has_msg(jv_copy(result))) {
            reply(fd, kRuntime, messageText(jv_invalid_get_msg(result)));
        } else {
            jv_free(result);
        }
        break;
    }
    std::string joined;
    if (outputs.size() == 1) {
        joined = std::move(outputs.front());
    } else {
        joined = "[";
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            joined += (i == 0 ? "" : ",");
            joined += outputs[i];
        }
        joined += ']';
    }
    if (joined.size() > limits.maxOutputBytes) {
        reply(fd, kTooLarge, {});
    }
    reply(fd, kOk, joined);
}

TransformError failure(TransformErrc code, std::string message) { return {code, std::move(message)}; }

std::string sizeText(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

// Kills and reaps the child; safe to call on one that already exited.
void killAndReap(pid_t pid) {
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace

std::string_view toString(TransformErrc code) noexcept {
    switch (code) {
        case TransformErrc::invalid_expression:
            return "invalid_expression";
        case TransformErrc::invalid_input:
            return "invalid_input";
        case TransformErrc::runtime_error:
            return "runtime_error";
        case TransformErrc::timeout:
            return "timeout";
        case TransformErrc::output_too_large:
            return "output_too_large";
        case TransformErrc::internal:
            return "internal";
    }
    return "unknown";
}

std::string TransformError::describe() const {
    std::string text(toString(code));
    text += ": ";
    text += message;
    return text;
}

expected<std::string, TransformError> applyJq(std::string_view expression, std::string_view jsonInput,
                                              const TransformLimits& limits) {
    if (jsonInput.size() > limits.maxInputBytes) {
        return unexpected(failure(TransformErrc::invalid_input,
                                  "the input has " + sizeText(jsonInput.size()) + ", more than the limit of " +
                                      sizeText(limits.maxInputBytes)));
    }
    if (expression.find('\0') != std::string_view::npos) {
        return unexpected(failure(TransformErrc::invalid_expression, "the expression contains a NUL byte"));
    }
    const auto deadline = Clock::now() + limits.timeout;
    // jq has no way to interrupt an evaluation from outside (jq_halt is only for the `halt` builtin),
    // so it runs in a child process that is killed at the deadline.
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return unexpected(failure(TransformErrc::internal,
                                  std::string("could not create a pipe: ") + std::strerror(errno)));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        return unexpected(failure(TransformErrc::internal,
                                  std::string("could not fork the jq process: ") + std::strerror(error)));
    }
    if (pid == 0) {
        ::close(fds[0]);
        evaluateInChild(fds[1], expression, jsonInput, limits);
    }
    ::close(fds[1]);

    std::string received;
    // Room for the header and the largest allowed output.
    const std::size_t cap = limits.maxOutputBytes + kHeaderBytes;
    bool timedOut = false;
    bool tooLarge = false;
    char buffer[65536];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        pollfd pfd{fds[0], POLLIN, 0};
        const int ready = ::poll(&pfd, 1, static_cast<int>(left.count()) + 1);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready == 0) {
            continue;  // re-checks the deadline
        }
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;  // end of the child's report (or a broken pipe)
        }
        received.append(buffer, static_cast<std::size_t>(n));
        if (received.size() > cap) {
            tooLarge = true;
            break;
        }
        if (received.size() >= kHeaderBytes) {
            std::uint64_t length = 0;
            std::memcpy(&length, received.data() + 1, sizeof length);
            if (received.size() - kHeaderBytes >= length) {
                break;  // the whole report is in
            }
        }
    }
    ::close(fds[0]);
    killAndReap(pid);

    const std::string limitText = std::to_string(limits.timeout.count()) + " ms";
    if (timedOut) {
        return unexpected(failure(TransformErrc::timeout,
                                  "the jq expression did not finish within " + limitText +
                                      " and was stopped; simplify it or select less data"));
    }
    if (tooLarge || (!received.empty() && received.front() == kTooLarge)) {
        return unexpected(failure(TransformErrc::output_too_large,
                                  "the output exceeds " + sizeText(limits.maxOutputBytes) +
                                      "; select fewer items or fields (e.g. `.[0:10]`, `map({id, name})`)"));
    }
    if (received.size() < kHeaderBytes) {
        return unexpected(failure(TransformErrc::internal,
                                  "the jq process ended without a result (out of memory or CPU time?)"));
    }
    std::uint64_t length = 0;
    std::memcpy(&length, received.data() + 1, sizeof length);
    if (received.size() - kHeaderBytes != length) {
        return unexpected(failure(TransformErrc::internal, "the jq process ended in the middle of its result"));
    }
    std::string payload = received.substr(kHeaderBytes);
    switch (received.front()) {
        case kOk:
            return payload;
        case kBadExpression:
            return unexpected(failure(TransformErrc::invalid_expression, std::move(payload)));
        case kBadInput:
            return unexpected(failure(TransformErrc::invalid_input, std::move(payload)));
        case kRuntime:
            return unexpected(failure(TransformErrc::runtime_error, "jq error: " + payload));
        default:
            return unexpected(failure(TransformErrc::internal, std::move(payload)));
    }
}

}  // namespace reagent::memory
