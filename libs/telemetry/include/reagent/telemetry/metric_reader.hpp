#pragma once
/// \file
/// \brief `PeriodicMetricReader`: exports a meter's histograms every interval, from a strand of its own,
/// while something is being recorded.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/telemetry/meter.hpp"
#include "reagent/telemetry/metric_data.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

/// \brief Exports one collection: `OtlpExporter::exportMetrics`, `TraceFileExporter::exportMetrics`, or a
/// test's. May be called again before an earlier call ended (a flush beside a periodic export). Its errors
/// are counted, never passed to a run.
using MetricExporter = std::function<Task<expected<void, TelemetryError>>(std::vector<MetricData>)>;

/// \brief What the reader did so far.
struct MetricStats {
    /// Collections exported.
    std::uint64_t exported = 0;
    /// Collections whose export failed.
    std::uint64_t failed = 0;
    /// The last export error (`TelemetryError::describe()`), empty when none failed.
    std::string lastError;
};

/// \brief Owns a `Meter` and exports what it holds every `interval`.
///
/// The first recording after an export starts the wait for the next one; when an interval passes with
/// nothing recorded, the reader stops waiting, so an `io_context` whose work is done returns from `run()`
/// within one interval (or at once after `shutdown`). Points are cumulative, so an export that fails loses
/// nothing the next one does not carry.
///
/// \par Thread safety
/// The meter's instruments record from any thread; `flush`, `shutdown` and `stats` from any coroutine.
///
/// \par Lifetime
/// As `BatchSpanProcessor`: the reader may outlive the execution context of its executor (which must not
/// track outstanding work); no measurement may be recorded after the context is gone.
class PeriodicMetricReader {
  public:
    /// \par Errors
    /// `invalid_config` for an interval that is not positive, or no exporter.
    [[nodiscard]] static expected<std::shared_ptr<PeriodicMetricReader>, TelemetryError> create(
        Executor executor, MetricExporter exporter, std::chrono::milliseconds interval);
    ~PeriodicMetricReader();

    [[nodiscard]] Meter& meter() noexcept;

    /// \brief Collects and exports now, within `bound`; the periodic wait then ends unless something was
    /// recorded meanwhile, so that an `io_context` with no other work returns.
    ///
    /// \par Errors
    /// `export_failed` when the export failed or `bound` ran out first; `cancelled` when the caller was.
    /// Nothing is thrown.
    [[nodiscard]] Task<expected<void, TelemetryError>> flush(std::chrono::milliseconds bound);
    /// \brief Stops the periodic exports, then `flush`.
    [[nodiscard]] Task<expected<void, TelemetryError>> shutdown(std::chrono::milliseconds bound);

    [[nodiscard]] MetricStats stats() const;

    struct Shared;

  private:
    explicit PeriodicMetricReader(std::shared_ptr<Shared> shared);
    std::shared_ptr<Shared> shared_;
};

}  // namespace reagent::telemetry
