#pragma once
/// \file
/// \brief `applyJq`: reshapes a JSON tool result with a jq expression, bounded in time and size.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"

namespace reagent::memory {

/// \brief Bounds of one `applyJq` evaluation.
struct TransformLimits {
    /// Wall-clock time the evaluation may take, compile included. Default 1 s; must be positive.
    std::chrono::milliseconds timeout{1000};
    /// Largest serialised output, in bytes. Default 1 MiB.
    std::size_t maxOutputBytes = std::size_t{1} * 1024 * 1024;
    /// Largest JSON input accepted, in bytes. Default 16 MiB.
    std::size_t maxInputBytes = std::size_t{16} * 1024 * 1024;
};

/// \brief Why a transform produced no output.
enum class TransformErrc {
    /// The jq expression does not compile (syntax error, unknown function, module import); the message
    /// carries jq's own diagnostics.
    invalid_expression,
    /// The input is not one well-formed JSON value, or is larger than `maxInputBytes`.
    invalid_input,
    /// jq raised an error while evaluating (`.a.b` on a number, `error("...")`, `halt_error`).
    runtime_error,
    /// The evaluation did not finish within `TransformLimits::timeout`; it was killed.
    timeout,
    /// The serialised outputs exceed `TransformLimits::maxOutputBytes`.
    output_too_large,
    /// The evaluation process could not be started or died unexpectedly (resources exhausted).
    internal,
};

/// \brief The code's name as shown to the model and in logs (`"invalid_expression"`, ...).
[[nodiscard]] std::string_view toString(TransformErrc code) noexcept;

/// \brief A failed transform: a code and a message a person (or model) can act on.
struct TransformError {
    TransformErrc code = TransformErrc::internal;
    std::string message;

    /// \brief The text the model reads: `"<code>: <message>"`.
    [[nodiscard]] std::string describe() const;
};

/// \brief Applies the jq program `expression` to the JSON value `jsonInput` (libjq 1.6).
///
/// Returns the outputs serialised as compact JSON: a single output as that value, several outputs as a
/// JSON array of them, and no output (`empty`) as `[]`.
///
/// \par Isolation
/// Both arguments are untrusted (model-written expression, tool-produced input). Only jq is evaluated,
/// and in a forked child process: it has an empty environment (jq's `env` sees nothing), cannot load jq
/// modules, has its standard error discarded, and is killed with SIGKILL when the deadline passes, so a
/// non-terminating program (`def f: f; f`, `[range(1e12)]`) costs at most `timeout`.
///
/// \par Errors
/// See `TransformErrc`; every code's message names the cause.
///
/// \par Thread safety
/// Reentrant: calls from several threads run in separate processes. The call blocks its thread for up to
/// `timeout`, so call it off an event loop's thread (for example from a thread pool).
[[nodiscard]] expected<std::string, TransformError> applyJq(std::string_view expression,
                                                            std::string_view jsonInput,
                                                            const TransformLimits& limits = {});

}  // namespace reagent::memory
