#pragma once
// The CLI's telemetry: OpenTelemetry's standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, ...) and
// `--trace-file`, opened before a command's agent is built and flushed, within a bound, when it ends.

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/telemetry/telemetry.hpp"

namespace reagent::cli {

/// Telemetry as the environment and `traceFile` (empty: none) configure it; null when neither does. Warnings
/// about variables that cannot be used go to stderr.
[[nodiscard]] expected<std::shared_ptr<telemetry::Telemetry>, std::string> openTelemetry(
    boost::asio::io_context& io, const std::string& traceFile);

/// Runs `command` with `options.telemetry` opened by `openTelemetry` and closed by `closeTelemetry` after it;
/// returns its exit status. A telemetry that cannot be opened is a usage error: its message, then `hint`,
/// on stderr, and `command` does not run.
int runTraced(boost::asio::io_context& io, const std::string& traceFile, RunOptions& options,
              std::string_view hint, const std::function<int()>& command);

/// Starts exporting what is queued now, without waiting for the batch delay, on `io`: called when a command's
/// work ends, so that its `io.run()` returns as soon as the spans have gone rather than after the delay.
void hurryTelemetry(boost::asio::io_context& io, const std::shared_ptr<telemetry::Telemetry>& telemetry);

/// Exports what is still queued, for at most a few seconds, on `io` (whose command has returned from
/// `run`); what could not be exported is said on stderr. Never changes the command's outcome.
void closeTelemetry(boost::asio::io_context& io, const std::shared_ptr<telemetry::Telemetry>& telemetry);

}  // namespace reagent::cli
