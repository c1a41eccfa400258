#include "reagent/telemetry/telemetry.hpp"

#include <algorithm>
#include <utility>

#include "reagent/telemetry/otlp_exporter.hpp"
#include "reagent/telemetry/trace_file_exporter.hpp"

namespace reagent::telemetry {

namespace {

// Exports each batch to every destination configured; the first failure is reported, after all were tried.
SpanExporter spanExporterFor(const TelemetryConfig& config, std::shared_ptr<TraceFileExporter> file) {
    std::shared_ptr<OtlpExporter> otlp =
        config.enabled ? std::make_shared<OtlpExporter>(config.traces, config.resource) : nullptr;
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

// As `spanExporterFor`, for metrics. Each export has an exporter (and connection) of its own: a flush may
// run beside a periodic export, and metrics go once a minute.
MetricExporter metricExporterFor(const TelemetryConfig& config, std::shared_ptr<TraceFileExporter> file) {
    std::optional<OtlpDestination> otlp;
    if (config.metricsEnabled) {
        otlp = config.metrics;
    }
    return [otlp, resource = config.resource,
            file](std::vector<MetricData> metrics) -> Task<expected<void, TelemetryError>> {
        expected<void, TelemetryError> outcome;
        if (file) {
            outcome = co_await file->exportMetrics(metrics);
        }
        if (otlp) {
            OtlpExporter exporter(*otlp, resource);
            auto sent = co_await exporter.exportMetrics(std::move(metrics));
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
      tracer_(sampler, std::move(sink), std::move(ids)) {
    if (options_.metrics) {
        ownMeter_ = std::make_unique<Meter>();
        instruments_.emplace(Instruments::on(*ownMeter_));
    }
}

Telemetry::Telemetry(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, InstrumentationOptions options,
                     std::shared_ptr<PeriodicMetricReader> reader)
    : options_(options),
      batch_(std::dynamic_pointer_cast<BatchSpanProcessor>(sink)),
      reader_(std::move(reader)),
      tracer_(sampler, std::move(sink)) {
    options_.metrics = reader_ != nullptr;
    if (reader_) {
        instruments_.emplace(Instruments::on(reader_->meter()));
    }
}

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
    const bool spans = config.enabled || file;
    const bool metrics = config.metricsEnabled || file;
    if (!spans && !metrics) {
        return std::shared_ptr<Telemetry>();
    }
    std::shared_ptr<BatchSpanProcessor> batch;
    if (spans) {
        auto made = BatchSpanProcessor::create(executor, spanExporterFor(config, file), config.batch);
        if (!made) {
            return fail(std::move(made.error()));
        }
        batch = std::move(*made);
    }
    std::shared_ptr<PeriodicMetricReader> reader;
    if (metrics) {
        auto made = PeriodicMetricReader::create(executor, metricExporterFor(config, file),
                                                 config.metricExportInterval);
        if (!made) {
            return fail(std::move(made.error()));
        }
        reader = std::move(*made);
    }
    // Without a span export, nothing is sampled: the spans' contexts are still passed on, marked so.
    const SamplerConfig sampler = spans ? config.sampler : SamplerConfig{SamplerKind::always_off, 0.0};
    return std::shared_ptr<Telemetry>(new Telemetry(
        sampler, std::move(batch), InstrumentationOptions{config.conventions, config.captureContent, metrics},
        std::move(reader)));
}

std::vector<MetricData> Telemetry::collectMetrics() const {
    if (reader_) {
        return reader_->meter().collect();
    }
    return ownMeter_ ? ownMeter_->collect() : std::vector<MetricData>{};
}

Task<expected<void, TelemetryError>> Telemetry::flush(std::chrono::milliseconds bound) {
    return drain(bound, false);
}

Task<expected<void, TelemetryError>> Telemetry::shutdown(std::chrono::milliseconds bound) {
    return drain(bound, true);
}

Task<expected<void, TelemetryError>> Telemetry::drain(std::chrono::milliseconds bound, bool closing) {
    using std::chrono::milliseconds;
    const auto deadline = std::chrono::steady_clock::now() + bound;
    expected<void, TelemetryError> outcome;
    // Not conditional expressions around the co_awaits: GCC 12 mishandles their temporaries.
    if (batch_ && closing) {
        outcome = co_await batch_->shutdown(bound);
    } else if (batch_) {
        outcome = co_await batch_->flush(bound);
    }
    if (reader_) {
        // The metrics get what the spans left of the bound, and at least a moment to be tried.
        const auto left =
            std::max(std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()),
                     milliseconds(1));
        expected<void, TelemetryError> metrics;
        if (closing) {
            metrics = co_await reader_->shutdown(left);
        } else {
            metrics = co_await reader_->flush(left);
        }
        if (!metrics && outcome) {
            outcome = std::move(metrics);
        }
    }
    co_return outcome;
}

BatchStats Telemetry::stats() const {
    return batch_ ? batch_->stats() : BatchStats{};
}

MetricStats Telemetry::metricStats() const {
    return reader_ ? reader_->stats() : MetricStats{};
}

}  // namespace reagent::telemetry
