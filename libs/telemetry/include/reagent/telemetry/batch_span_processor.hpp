#pragma once
/// \file
/// \brief `BatchSpanProcessor`: the sink that queues ended spans and exports them in batches on a strand of
/// its own, so that no run ever waits for an export.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/telemetry/span_data.hpp"
#include "reagent/telemetry/telemetry_config.hpp"
#include "reagent/telemetry/telemetry_error.hpp"
#include "reagent/telemetry/tracer.hpp"

namespace reagent::telemetry {

/// \brief Exports one batch: `OtlpExporter::exportSpans`, `TraceFileExporter::exportSpans`, or a test's.
/// Its errors are counted, never passed to a run.
using SpanExporter = std::function<Task<expected<void, TelemetryError>>(std::vector<SpanData>)>;

/// \brief What the processor did so far.
struct BatchStats {
    std::uint64_t exported = 0;
    /// Spans that found the queue full, or came after `shutdown`, or were still queued when it ended.
    std::uint64_t dropped = 0;
    /// Spans whose export failed.
    std::uint64_t failed = 0;
    /// The last export error (`TelemetryError::describe()`), empty when none failed.
    std::string lastError;
};

/// \brief Queues the spans that end and hands them to its exporter in batches, from a strand of its own.
///
/// A span that ends starts the wait of `BatchOptions::scheduleDelay` when none is running; a batch that
/// fills up is exported at once. Nothing waits while nothing is queued, so an `io_context` whose work is
/// done returns from `run()` once the last batch has gone (or at once, after `flush`). One export at a
/// time, each pass on a strand of its own made from the executor: an exporter needs no locking.
///
/// \par Thread safety
/// `onEnd` and `stats` may be called from any thread; `flush` and `shutdown` from any coroutine.
///
/// \par Lifetime
/// The processor may outlive the execution context of its executor: its strands and timers belong to the
/// coroutines that wait on them, which end with the context. No span may end after the context is gone.
/// The executor must not track outstanding work (`io_context::get_executor()` does not).
class BatchSpanProcessor final : public SpanSink {
  public:
    /// \par Errors
    /// `invalid_config` for a queue or a batch of size 0, or a batch larger than the queue.
    [[nodiscard]] static expected<std::shared_ptr<BatchSpanProcessor>, TelemetryError> create(
        Executor executor, SpanExporter exporter, BatchOptions options = {});
    ~BatchSpanProcessor() override;

    void onEnd(SpanData span) override;

    /// \brief Exports every span queued now, and waits for the exports in progress, for at most `bound`.
    ///
    /// \par Errors
    /// `export_failed` when a batch of this flush failed, or `bound` ran out first (saying how many spans
    /// were still waiting: they stay queued); `cancelled` when the caller was. Nothing is thrown.
    [[nodiscard]] Task<expected<void, TelemetryError>> flush(std::chrono::milliseconds bound);

    /// \brief `flush`, after which spans are no longer taken: they are dropped and counted, as are those
    /// the flush could not export in time.
    [[nodiscard]] Task<expected<void, TelemetryError>> shutdown(std::chrono::milliseconds bound);

    [[nodiscard]] BatchStats stats() const;

    struct Shared;

  private:
    explicit BatchSpanProcessor(std::shared_ptr<Shared> shared);

    // Shared with the export pass in progress, which may outlive the processor.
    std::shared_ptr<Shared> shared_;
};

}  // namespace reagent::telemetry
