#pragma once
/// \file
/// \brief The errors of `reagent::telemetry`.

#include <boost/describe/enum.hpp>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::telemetry {

/// \brief Why telemetry input was refused.
enum class TelemetryErrc {
    /// A `traceparent` header that is not one the W3C Trace Context format allows.
    invalid_trace_context,
    /// A telemetry setting (an `OTEL_*` variable, or the same in code) that cannot be used.
    invalid_config,
    /// A batch could not be delivered to the endpoint (after the retries the specification allows).
    export_failed,
    /// The caller cancelled the operation.
    cancelled,
};
BOOST_DESCRIBE_ENUM(TelemetryErrc, invalid_trace_context, invalid_config, export_failed, cancelled)

/// \brief The name of a code, as used in messages and logs (`"invalid_trace_context"`).
[[nodiscard]] std::string_view toString(TelemetryErrc code) noexcept;

/// \brief A telemetry error: a code and a message a person can act on.
using TelemetryError = Error<TelemetryErrc>;

}  // namespace reagent::telemetry
