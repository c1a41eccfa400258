#include "reagent/telemetry/telemetry.hpp"

#include <utility>

#include "reagent/telemetry/otlp_exporter.hpp"
#include "reagent/telemetry/trace_file_exporter.hpp"

namespace reagent::telemetry {

namespace {

// Exports each batch to every destination configured; the first failure is reported, after all were tried.
SpanExporter exporterFor(const TelemetryConfig& config, std::shared_ptr<TraceFileExporter> file) {
    std::shared_ptr<OtlpExporter> otlp = config.enabled ? std::make_shared<OtlpExporter>(config) : nullptr;
    return [otlp, file](std::vector<SpanData> spans) -> Task<expected<void, TelemetryError>> {
        expected<void, TelemetryError> outcome;
        if (file) {
            // Not a conditional expression inside the co_await: GCC 12 destroys its temporary twice.
            std::vector<SpanData> written;
            if (otlp) {
                written = spans;
            } else {
                written = std::move(spans);
            }
            outcome = co_await file->exportSpans(std::move(written));
        }
        if (otlp) {
            auto sent = co_await otlp->exportSpans(std::move(spans));
            if (!sent && outcome) {
                outcome = std::move(sent);
            }
        }
        co_return outcome;
    };
}

}  // namespace

Telemetry::Telemetry(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, InstrumentationOptions options,
                     IdGenerator ids)
    : options_(options),
      batch_(std::dynamic_pointer_cast<BatchSpanProcessor>(sink)),
      tracer_(sampler, std::move(sink), std::move(ids)) {}

expected<std::shared_ptr<Telemetry>, TelemetryError> Telemetry::create(
    Executor executor, const TelemetryConfig& config, const std::optional<std::filesystem::path>& traceFile) {
    std::shared_ptr<TraceFileExporter> file;
    if (traceFile) {
        auto opened = TraceFileExporter::open(*traceFile, config.resource);
        if (!opened) {
            return fail(std::move(opened.error()));
        }
        file = std::move(*opened);
    }
    if (!config.enabled && !file) {
        return std::shared_ptr<Telemetry>();
    }
    auto batch = BatchSpanProcessor::create(std::move(executor), exporterFor(config, file), config.batch);
    if (!batch) {
        return fail(std::move(batch.error()));
    }
    return std::make_shared<Telemetry>(config.sampler, std::move(*batch),
                                       InstrumentationOptions{config.conventions, config.captureContent});
}

Task<expected<void, TelemetryError>> Telemetry::flush(std::chrono::milliseconds bound) {
    if (!batch_) {
        co_return expected<void, TelemetryError>{};
    }
    co_return co_await batch_->flush(bound);
}

Task<expected<void, TelemetryError>> Telemetry::shutdown(std::chrono::milliseconds bound) {
    if (!batch_) {
        co_return expected<void, TelemetryError>{};
    }
    co_return co_await batch_->shutdown(bound);
}

BatchStats Telemetry::stats() const {
    return batch_ ? batch_->stats() : BatchStats{};
}

}  // namespace reagent::telemetry
