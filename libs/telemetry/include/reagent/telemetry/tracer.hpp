#pragma once
/// \file
/// \brief `Tracer` and `Span`: spans started, filled and ended in code, sampled as the configuration says,
/// and handed to a `SpanSink` when they end.

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "reagent/telemetry/id_generator.hpp"
#include "reagent/telemetry/span_data.hpp"
#include "reagent/telemetry/telemetry_config.hpp"

namespace reagent::telemetry {

/// \brief Whether a new span is sampled (recorded and exported), as OpenTelemetry's built-in samplers
/// decide: `always_on`, `always_off`; `traceidratio`, deterministic in the trace id (its 56 random low
/// bits, which W3C Trace Context Level 2 asks to be random, against the ratio: a trace sampled at a ratio
/// is sampled at every higher one); the `parentbased_*` ones follow a parent when there is one (its
/// sampled flag), and use the named sampler for a root.
[[nodiscard]] bool shouldSample(const SamplerConfig& sampler, const SpanContext* parent,
                                const TraceId& traceId);

/// \brief Nanoseconds since the Unix epoch, now.
[[nodiscard]] std::uint64_t nowUnixNano() noexcept;

/// \brief Receives the spans that end (sampled ones only). The seam between spans and their export: the
/// batch processor is one; `InMemorySpanSink` keeps them, for tests and for programs that read their own.
class SpanSink {
  public:
    virtual ~SpanSink() = default;
    /// Called once per sampled span, on the thread that ends it. Must not block.
    virtual void onEnd(SpanData span) = 0;
};

/// \brief Keeps every span it receives. Thread-safe.
class InMemorySpanSink final : public SpanSink {
  public:
    void onEnd(SpanData span) override;
    /// The spans received so far, in the order they ended.
    [[nodiscard]] std::vector<SpanData> spans() const;
    /// Takes the spans received so far.
    [[nodiscard]] std::vector<SpanData> take();

  private:
    mutable std::mutex mutex_;
    std::vector<SpanData> spans_;
};

/// \brief A span in progress. Only a sampled span records; an unsampled one still has a context (new ids,
/// the sampled flag clear) to pass on, so that the services it calls see the decision. Ended once: by
/// `end`, or when destroyed. Move-only.
class Span {
  public:
    Span() = default;
    Span(Span&&) noexcept = default;
    Span& operator=(Span&& other) noexcept;
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;
    ~Span();

    /// \brief What children and outgoing requests carry (`formatTraceparent`).
    [[nodiscard]] const SpanContext& context() const noexcept { return context_; }
    /// \brief True while a sampled span has not ended: only then do the setters record.
    [[nodiscard]] bool recording() const noexcept { return data_ != nullptr; }

    /// \brief Sets `key` (replacing an earlier value of it).
    void setAttribute(std::string key, AttributeValue value);
    void addEvent(std::string name, std::vector<Attribute> attributes = {}, std::uint64_t timeUnixNano = 0);
    /// \brief `StatusCode::ok` wins over an earlier error, as the specification says; `message` is kept
    /// for an error only.
    void setStatus(StatusCode status, std::string message = {});
    /// \brief Moves the span's start to `startUnixNano`: for a span made before its work began (a tool call
    /// that waited for its turn in a batch), whose context had to be handed on first.
    void setStartTime(std::uint64_t startUnixNano);
    /// \brief Ends the span at `endUnixNano` (0: now) and hands it to the sink; later calls do nothing.
    void end(std::uint64_t endUnixNano = 0);

  private:
    friend class Tracer;
    SpanContext context_;
    std::unique_ptr<SpanData> data_;
    std::shared_ptr<SpanSink> sink_;
};

/// \brief Starts spans: new ids from its own generator, the sampling decision from its configuration, and
/// the sink their data goes to. No process-wide tracer exists: each agent is given its own.
///
/// \par Thread safety
/// `startSpan` may be called from any thread. A span is used by one thread at a time; spans may end on any
/// thread if the sink allows it (`InMemorySpanSink` and `BatchSpanProcessor` do).
class Tracer {
  public:
    Tracer(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, IdGenerator ids = IdGenerator());

    /// \brief A span named `name`, child of `parent` (a span of this process or a remote context read from
    /// a request; null or invalid: a root of a new trace), started at `startUnixNano` (0: now). A child
    /// keeps its parent's trace id and trace state.
    [[nodiscard]] Span startSpan(std::string name, SpanKind kind, const SpanContext* parent = nullptr,
                                 std::uint64_t startUnixNano = 0);

  private:
    SamplerConfig sampler_;
    std::shared_ptr<SpanSink> sink_;
    std::mutex idsMutex_;
    IdGenerator ids_;
};

}  // namespace reagent::telemetry
