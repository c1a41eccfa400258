#pragma once
/// \file
/// \brief `Telemetry`: what an agent (or a server) is given to trace and measure with: a tracer, the
/// metrics' instruments, where both go, and what the instrumentation records. No process-wide instance
/// exists.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/telemetry/batch_span_processor.hpp"
#include "reagent/telemetry/instruments.hpp"
#include "reagent/telemetry/metric_reader.hpp"
#include "reagent/telemetry/telemetry_config.hpp"
#include "reagent/telemetry/telemetry_error.hpp"
#include "reagent/telemetry/tracer.hpp"

namespace reagent::telemetry {

/// \brief What the instrumentation records beyond the conventions' required attributes.
struct InstrumentationOptions {
    GenAiConventions conventions = GenAiConventions::v1_36;
    /// Messages, instructions, tool arguments and results on the spans (`gen_ai.input.messages`, ...).
    /// Off by default: they hold what users typed and what tools read. Secrets in headers never appear.
    bool captureContent = false;
    /// Record the metrics (`Instruments`). `create` sets it from `TelemetryConfig::metricsEnabled` (or a
    /// trace file); a `Telemetry` made around a sink keeps them in memory, for `collectMetrics`.
    bool metrics = true;
};

/// \brief A tracer and the sink of its spans, the metrics' instruments and their reader, and the
/// instrumentation's options, shared by the agents, conversations and servers of a program that trace
/// into the same place.
///
/// Made from a configuration (`create`: OTLP export, a trace file, or both, through a
/// `BatchSpanProcessor` and a `PeriodicMetricReader`), or around any sink (`InMemorySpanSink` for tests
/// and programs that read their own spans; metrics then stay in memory, read by `collectMetrics`). End a
/// program with `shutdown` so that the last spans and metrics are exported.
///
/// \par Thread safety
/// As `Tracer`; `flush`, `shutdown` and `stats` from any coroutine or thread.
class Telemetry {
  public:
    Telemetry(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, InstrumentationOptions options = {},
              IdGenerator ids = IdGenerator());

    /// \brief Telemetry as `config` describes it, exporting from `executor` (which its batch processor's
    /// and metric reader's strands run on); with `traceFile`, each batch of spans and each collection of
    /// metrics is also appended to that file (OTLP/JSON lines). With neither an enabled export nor a
    /// file, none (`std::shared_ptr` null): nothing is traced or measured.
    ///
    /// \par Errors
    /// `invalid_config` for batch limits or a metric interval that cannot work, or a trace file that
    /// cannot be opened.
    [[nodiscard]] static expected<std::shared_ptr<Telemetry>, TelemetryError> create(
        Executor executor, const TelemetryConfig& config,
        const std::optional<std::filesystem::path>& traceFile = std::nullopt);

    [[nodiscard]] Tracer& tracer() noexcept { return tracer_; }
    [[nodiscard]] const InstrumentationOptions& options() const noexcept { return options_; }
    /// \brief The histograms to record into; null when metrics are off.
    [[nodiscard]] const Instruments* instruments() const noexcept {
        return instruments_ ? &*instruments_ : nullptr;
    }
    /// \brief What the histograms hold now (cumulative); empty when metrics are off.
    [[nodiscard]] std::vector<MetricData> collectMetrics() const;

    /// \brief Exports the spans queued and the metrics recorded, within `bound` in all
    /// (`BatchSpanProcessor::flush`, `PeriodicMetricReader::flush`); at once what has no exporter.
    [[nodiscard]] Task<expected<void, TelemetryError>> flush(std::chrono::milliseconds bound);
    /// \brief `flush`, then no more exports.
    [[nodiscard]] Task<expected<void, TelemetryError>> shutdown(std::chrono::milliseconds bound);
    /// \brief The batch processor's counts; zeros when there is none.
    [[nodiscard]] BatchStats stats() const;
    /// \brief The metric reader's counts; zeros when there is none.
    [[nodiscard]] MetricStats metricStats() const;

  private:
    Telemetry(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, InstrumentationOptions options,
              std::shared_ptr<PeriodicMetricReader> reader);
    [[nodiscard]] Task<expected<void, TelemetryError>> drain(std::chrono::milliseconds bound, bool closing);

    InstrumentationOptions options_;
    std::shared_ptr<BatchSpanProcessor> batch_;
    std::shared_ptr<PeriodicMetricReader> reader_;
    std::unique_ptr<Meter> ownMeter_;  // metrics kept in memory, without a reader
    std::optional<Instruments> instruments_;
    Tracer tracer_;
};

}  // namespace reagent::telemetry
