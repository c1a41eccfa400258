// reagent-jq: evaluates one jq expression over one JSON document with libjq, under resource limits.
// Started by reagent::transform::applyJq (one process per call); the protocol is described in
// libs/transform/src/helper_protocol.hpp. The expression is untrusted: only libjq evaluates it.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
#include <jq.h>
#include <jv.h>
}

#include "helper_protocol.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define REAGENT_JQ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REAGENT_JQ_ASAN 1
#endif
#endif

namespace {

namespace protocol = reagent::transform::protocol;

struct Options {
    std::size_t maxInputBytes = std::size_t{16} << 20;
    std::size_t maxOutputBytes = std::size_t{1} << 20;
    std::size_t memoryBytes = std::size_t{512} << 20;
    std::size_t cpuSeconds = 5;
    const char* expression = nullptr;
};

// Thrown to leave main with an exit status after a diagnostic; unwinding frees jq's state.
struct Exit {
    int code;
};

void writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

[[noreturn]] void fail(int code, std::string_view message) {
    writeAll(STDERR_FILENO, message.substr(0, protocol::kMaxDiagnosticBytes));
    throw Exit{code};
}

// Called by libjq when an allocation fails (RLIMIT_AS); jq would print and abort otherwise.
void onNoMemory(void*) {
    constexpr std::string_view kMessage = "the evaluation ran out of memory";
    writeAll(STDERR_FILENO, kMessage);
    ::_exit(protocol::kOutOfMemory);
}

bool parseSize(const char* text, std::size_t& out) {
    const std::string_view view(text);
    const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), out);
    return error == std::errc() && end == view.data() + view.size();
}

Options parseOptions(int argc, char** argv) {
    Options options;
    int i = 1;
    while (i < argc) {
        const std::string_view arg(argv[i]);
        if (arg == "--") {
            ++i;
            break;
        }
        std::size_t* target = arg == protocol::kMaxInputOption    ? &options.maxInputBytes
                              : arg == protocol::kMaxOutputOption ? &options.maxOutputBytes
                              : arg == protocol::kMemoryOption    ? &options.memoryBytes
                              : arg == protocol::kCpuOption       ? &options.cpuSeconds
                                                                  : nullptr;
        if (target == nullptr || i + 1 >= argc || !parseSize(argv[i + 1], *target)) {
            fail(protocol::kUsage,
                 "usage: reagent-jq [--max-input-bytes N] [--max-output-bytes N] "
                 "[--memory-bytes N] [--cpu-seconds N] -- EXPRESSION");
        }
        i += 2;
    }
    if (i + 1 != argc) {
        fail(protocol::kUsage, "usage: reagent-jq [options] -- EXPRESSION (exactly one expression)");
    }
    options.expression = argv[i];
    return options;
}

void setLimit(int resource, rlim_t soft, rlim_t hard) {
    const rlimit limit{soft, hard};
    ::setrlimit(resource, &limit);
}

// Applied before jq sees the expression. The parent's timer is the real deadline; RLIMIT_CPU only
// stops a helper whose parent died.
void applyLimits(const Options& options) {
    setLimit(RLIMIT_CORE, 0, 0);
    setLimit(RLIMIT_FSIZE, 0, 0);
    setLimit(RLIMIT_NOFILE, 16, 16);
    setLimit(RLIMIT_CPU, options.cpuSeconds, options.cpuSeconds + 1);
#if !defined(REAGENT_JQ_ASAN)
    setLimit(RLIMIT_AS, options.memoryBytes, options.memoryBytes);
#endif
}

std::string readInput(std::size_t maxBytes) {
    std::string input;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fail(protocol::kInternal, std::string("could not read the input: ") + std::strerror(errno));
        }
        if (n == 0) {
            return input;
        }
        input.append(buffer, static_cast<std::size_t>(n));
        if (input.size() > maxBytes) {
            fail(protocol::kInvalidInput, "the input has more than " + std::to_string(maxBytes) + " bytes");
        }
    }
}

// jq's printer replaces anything nested deeper than this with a "<stripped: exceeds max depth>" string.
constexpr int kMaxPrintDepth = 256;

// Whether `value` (borrowed) nests deeper than jq can print. Recursion is bounded by the limit.
bool tooDeep(jv value, int depth) {
    if (depth > kMaxPrintDepth) {
        return true;
    }
    const jv_kind kind = jv_get_kind(value);
    if (kind == JV_KIND_ARRAY) {
        const int length = jv_array_length(jv_copy(value));
        for (int i = 0; i < length; ++i) {
            jv item = jv_array_get(jv_copy(value), i);
            const bool deep = tooDeep(item, depth + 1);
            jv_free(item);
            if (deep) {
                return true;
            }
        }
    } else if (kind == JV_KIND_OBJECT) {
        for (int it = jv_object_iter(value); jv_object_iter_valid(value, it);
             it = jv_object_iter_next(value, it)) {
            jv item = jv_object_iter_value(value, it);
            const bool deep = tooDeep(item, depth + 1);
            jv_free(item);
            if (deep) {
                return true;
            }
        }
    }
    return false;
}

// Takes ownership of `value` and returns its compact JSON text (strings stay UTF-8).
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

void ignoreMessage(void*, jv message) {
    jv_free(message);
}

// `input`/`inputs`: the one document is the program's input; there is nothing more to read (`inputs` is
// empty, `input` fails with jq 1.6's sentinel message "break").
jv noMoreInput(jq_state*, void*) {
    return jv_invalid();
}

struct JqDeleter {
    void operator()(jq_state* jq) const { jq_teardown(&jq); }
};
using JqPtr = std::unique_ptr<jq_state, JqDeleter>;

// Collects outputs and joins them: one as itself, several as an array, none as `[]`.
class Outputs {
  public:
    explicit Outputs(std::size_t maxBytes) : maxBytes_(maxBytes) {}

    void add(std::string json) {
        bytes_ += json.size();
        items_.push_back(std::move(json));
        // Several outputs cost a comma each and the two brackets.
        const std::size_t total = items_.size() == 1 ? bytes_ : bytes_ + items_.size() + 1;
        if (total > maxBytes_) {
            fail(protocol::kOutputTooLarge, "the output exceeds " + std::to_string(maxBytes_) + " bytes");
        }
    }

    [[nodiscard]] std::string joined() const {
        if (items_.size() == 1) {
            return items_.front();
        }
        std::string out = "[";
        for (std::size_t i = 0; i < items_.size(); ++i) {
            out += i == 0 ? "" : ",";
            out += items_[i];
        }
        out += ']';
        return out;
    }

  private:
    std::size_t maxBytes_;
    std::size_t bytes_ = 0;
    std::vector<std::string> items_;
};

// Handles the invalid value that ends jq_next: normal end, `halt`, `halt_error` or an error.
void checkEnd(jq_state* jq, jv result) {
    if (jq_halted(jq)) {
        jv_free(result);
        jv code = jq_get_exit_code(jq);
        const bool failed =
            jv_is_valid(code) && !(jv_get_kind(code) == JV_KIND_NUMBER && jv_number_value(code) == 0);
        jv_free(code);
        if (failed) {
            fail(protocol::kRuntimeError, "halt_error: " + messageText(jq_get_error_message(jq)));
        }
        // `halt` stops jq the way it ends a shell pipeline; a transform must produce a value, so a stop
        // is an error rather than an empty (or truncated) result.
        fail(protocol::kRuntimeError,
             "the expression called halt; a transform must produce its result, not stop");
    }
    if (jv_invalid_has_msg(jv_copy(result))) {
        fail(protocol::kRuntimeError, messageText(jv_invalid_get_msg(result)));
    }
    jv_free(result);
}

int run(int argc, char** argv) {
    const Options options = parseOptions(argc, argv);
    applyLimits(options);

    JqPtr jq(jq_init());
    if (!jq) {
        fail(protocol::kInternal, "jq could not be initialised");
    }
    jq_set_nomem_handler(jq.get(), onNoMemory, nullptr);
    std::string errors;
    jq_set_error_cb(jq.get(), collectError, &errors);
    jq_set_debug_cb(jq.get(), ignoreMessage, nullptr);
    jq_set_input_cb(jq.get(), noMoreInput, nullptr);
    // No module search path: `import` and `include` find nothing, so no file is ever read.
    jq_set_attr(jq.get(), jv_string("JQ_LIBRARY_PATH"), jv_array());
    if (jq_compile(jq.get(), options.expression) == 0) {
        fail(protocol::kInvalidExpression,
             errors.empty() ? std::string("jq could not compile the expression") : errors);
    }

    // Read only after compiling: a bad expression costs no input transfer (the parent sees EPIPE).
    // jq's parser takes an int length.
    const std::string input = readInput(std::min<std::size_t>(options.maxInputBytes, INT_MAX));
    jv parsed = jv_parse_sized(input.data(), static_cast<int>(input.size()));
    if (!jv_is_valid(parsed)) {
        const std::string why = jv_invalid_has_msg(jv_copy(parsed))
                                    ? messageText(jv_invalid_get_msg(parsed))
                                    : (jv_free(parsed), std::string("no JSON value"));
        fail(protocol::kInvalidInput, "the input is not valid JSON: " + why);
    }

    jq_start(jq.get(), parsed, 0);
    Outputs outputs(options.maxOutputBytes);
    for (jv result = jq_next(jq.get());; result = jq_next(jq.get())) {
        if (!jv_is_valid(result)) {
            checkEnd(jq.get(), result);
            break;
        }
        if (tooDeep(result, 1)) {
            jv_free(result);
            fail(protocol::kRuntimeError, "the output nests deeper than " + std::to_string(kMaxPrintDepth) +
                                              " levels, more than jq can print");
        }
        outputs.add(dumpJson(result));
    }
    writeAll(STDOUT_FILENO, outputs.joined());
    return protocol::kOk;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const Exit& exit) {
        return exit.code;
    } catch (const std::bad_alloc&) {
        writeAll(STDERR_FILENO, "the evaluation ran out of memory");
        return protocol::kOutOfMemory;
    } catch (const std::exception& error) {
        writeAll(STDERR_FILENO, error.what());
        return protocol::kInternal;
    }
}
