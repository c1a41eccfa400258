#pragma once
/// \file
/// \brief `applyJq`: evaluate a jq expression over a JSON document in a killable helper process.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent::transform {

/// \brief Bounds of one jq evaluation. Every field has a default; all sizes are in bytes.
struct JqLimits {
    /// Wall-clock limit, process start included; must be > 0. The helper is killed when it elapses.
    std::chrono::milliseconds timeout{2000};
    /// Largest serialised output (compact JSON); the helper is killed as soon as more arrives.
    std::size_t maxOutputBytes = std::size_t{1} << 20;
    /// Largest JSON input; a larger one is refused before any process starts.
    std::size_t maxInputBytes = std::size_t{16} << 20;
    /// Longest expression; a longer one is refused before any process starts.
    std::size_t maxExpressionBytes = 4096;
    /// Address-space limit (RLIMIT_AS) of the helper. Not applied when the helper is built with
    /// AddressSanitizer, whose shadow memory needs terabytes of address space; the timeout still holds.
    std::size_t memoryBytes = std::size_t{512} << 20;
};

/// \brief Why a transform produced no result.
enum class TransformErrc {
    /// The expression is empty, too long, contains a NUL byte, or jq cannot compile it (syntax error,
    /// unknown function, `import`/`include` of a module: there is no module search path).
    invalid_expression,
    /// The input is larger than `JqLimits::maxInputBytes`, or is not exactly one JSON value.
    invalid_input,
    /// jq stopped with an error while evaluating (`error(...)`, `halt_error`, indexing a number with a
    /// string, ...), or the evaluation needed more memory than `JqLimits::memoryBytes`.
    runtime_error,
    /// The evaluation did not finish within `JqLimits::timeout`; the helper was killed.
    timeout,
    /// The output grew past `JqLimits::maxOutputBytes`; the helper was killed.
    output_too_large,
    /// The awaiting coroutine was cancelled; the helper was killed.
    cancelled,
    /// The helper could not be started (missing or not executable: see `jqHelperPath`), ended in an
    /// unexpected way (crash, unknown exit status), or the limits are invalid (timeout <= 0).
    internal,
};
BOOST_DESCRIBE_ENUM(TransformErrc, invalid_expression, invalid_input, runtime_error, timeout,
                    output_too_large, cancelled, internal)

/// \brief The code's name as shown to the model and in logs (`"invalid_expression"`, ...).
[[nodiscard]] std::string_view toString(TransformErrc code) noexcept;

/// \brief A failed transform: a code and a message a person (or model) can act on.
using TransformError = reagent::Error<TransformErrc>;

/// \brief Applies the jq `expression` to `jsonInput` and returns the outputs as compact JSON.
///
/// One output gives that value, several give a JSON array of them, none (`empty`) gives `[]`.
/// Strings are UTF-8 as jq produces them.
///
/// The expression is untrusted (it usually comes from the model): it is evaluated only by libjq, in the
/// helper executable `reagent-jq` (see `jqHelperPath`), started for this call in its own process group
/// with an empty environment, no module search path and resource limits (`JqLimits`). The expression,
/// input size and limits are checked first; those errors start no process.
///
/// \par Errors
/// See `TransformErrc`; jq's own diagnostics are carried in the message, trimmed and bounded.
///
/// \par Cancellation
/// Cancelling the awaiting coroutine (Asio per-operation cancellation: `reagent::withTimeout`, a
/// parallel group, a cancellation slot bound at `co_spawn`) kills the helper's process group and yields
/// `cancelled`. On every path the helper is killed if still running, reaped, and its pipes closed.
///
/// \par Threads
/// Safe to call concurrently on any executor (each call has its own process); runs fully
/// asynchronously on the awaiting coroutine's executor. Never throws.
[[nodiscard]] Task<expected<std::string, TransformError>> applyJq(std::string expression,
                                                                  std::string jsonInput,
                                                                  JqLimits limits = {});

/// \brief Path of the helper executable used by `applyJq`.
///
/// The environment variable `REAGENT_JQ_HELPER` when set and not empty; otherwise
/// `../libexec/reagent/reagent-jq` relative to the running program's directory if it exists (a program
/// installed in `<prefix>/bin`); otherwise the installed helper (`<prefix>/libexec/reagent/reagent-jq`,
/// the prefix configured at build time) if it exists; otherwise the helper in the build tree.
[[nodiscard]] std::string jqHelperPath();

}  // namespace reagent::transform
