#pragma once
/// \file
/// \brief `Telemetry`: what an agent (or a server) is given to trace with: a tracer, where its spans go,
/// and what the instrumentation records. No process-wide instance exists.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/telemetry/batch_span_processor.hpp"
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
};

/// \brief A tracer, the sink of its spans and the instrumentation's options, shared by the agents,
/// conversations and servers of a program that trace into the same place.
///
/// Made from a configuration (`create`: OTLP export, a trace file, or both, through a
/// `BatchSpanProcessor`), or around any sink (`InMemorySpanSink` for tests and programs that read their
/// own spans). End a program with `shutdown` so that the last spans are exported.
///
/// \par Thread safety
/// As `Tracer`; `flush`, `shutdown` and `stats` from any coroutine or thread.
class Telemetry {
  public:
    Telemetry(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, InstrumentationOptions options = {},
              IdGenerator ids = IdGenerator());

    /// \brief Telemetry as `config` describes it, exporting from `executor` (which its batch processor's
    /// strand runs on); with `traceFile`, each batch is also appended to that file (OTLP/JSON lines).
    /// With neither an enabled export nor a file, none (`std::shared_ptr` null): nothing is traced.
    ///
    /// \par Errors
    /// `invalid_config` for batch limits that cannot work or a trace file that cannot be opened.
    [[nodiscard]] static expected<std::shared_ptr<Telemetry>, TelemetryError> create(
        Executor executor, const TelemetryConfig& config,
        const std::optional<std::filesystem::path>& traceFile = std::nullopt);

    [[nodiscard]] Tracer& tracer() noexcept { return tracer_; }
    [[nodiscard]] const InstrumentationOptions& options() const noexcept { return options_; }

    /// \brief Exports what is queued, within `bound` (`BatchSpanProcessor::flush`); at once when the spans
    /// go to a sink without a queue.
    [[nodiscard]] Task<expected<void, TelemetryError>> flush(std::chrono::milliseconds bound);
    /// \brief `flush`, then no more exports (`BatchSpanProcessor::shutdown`).
    [[nodiscard]] Task<expected<void, TelemetryError>> shutdown(std::chrono::milliseconds bound);
    /// \brief The batch processor's counts; zeros when there is none.
    [[nodiscard]] BatchStats stats() const;

  private:
    InstrumentationOptions options_;
    std::shared_ptr<BatchSpanProcessor> batch_;
    Tracer tracer_;
};

}  // namespace reagent::telemetry
