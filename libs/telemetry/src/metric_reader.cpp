#include "reagent/telemetry/metric_reader.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <mutex>
#include <optional>
#include <utility>

#include "reagent/core/settle.hpp"
#include "reagent/core/timeout.hpp"
#include "waker.hpp"

namespace reagent::telemetry {

namespace asio = boost::asio;

struct PeriodicMetricReader::Shared {
    Shared(Executor base, MetricExporter metricExporter, std::chrono::milliseconds every)
        : executor(std::move(base)), exporter(std::move(metricExporter)), interval(every) {}

    Executor executor;
    MetricExporter exporter;
    std::chrono::milliseconds interval;
    // Made after the Shared: its change callback holds a weak reference to it.
    std::optional<Meter> meter;

    mutable std::mutex mutex;  // guards what follows
    bool passRunning = false;
    bool closed = false;
    bool upToDate = false;  // the last export succeeded (nothing recorded since is known by the meter)
    MetricStats stats;
    std::weak_ptr<detail::Waker> pass;  // the periodic pass's, while it runs
};

namespace {

using ReaderShared = PeriodicMetricReader::Shared;

// Collects and exports once, counting the outcome.
Task<expected<void, TelemetryError>> exportOnce(std::shared_ptr<ReaderShared> shared) {
    const bool changed = shared->meter->takeChanged();
    {
        // Nothing recorded since an export that arrived: the receiver has these points already.
        const std::lock_guard lock(shared->mutex);
        if (!changed && shared->upToDate) {
            co_return expected<void, TelemetryError>{};
        }
        shared->upToDate = false;
    }
    std::vector<MetricData> metrics = shared->meter->collect();
    if (metrics.empty()) {
        co_return expected<void, TelemetryError>{};
    }
    auto outcome = co_await settle(shared->exporter(std::move(metrics)));
    expected<void, TelemetryError> result;
    if (!outcome) {
        result = fail(TelemetryError{TelemetryErrc::export_failed,
                                     "the metric exporter failed: " + outcome.error().message});
    } else {
        result = std::move(*outcome);
    }
    const std::lock_guard lock(shared->mutex);
    if (result) {
        ++shared->stats.exported;
        shared->upToDate = true;
    } else if (result.error().code != TelemetryErrc::cancelled) {
        ++shared->stats.failed;
        shared->stats.lastError = result.error().describe();
    }
    co_return result;
}

// Waits an interval and exports, on its waker's strand, for as long as something was recorded meanwhile.
Task<void> metricPass(std::shared_ptr<ReaderShared> shared, std::shared_ptr<detail::Waker> waker) {
    for (;;) {
        waker->timer.expires_after(shared->interval);
        auto [woken] = co_await waker->timer.async_wait(asio::as_tuple(asio::use_awaitable));
        {
            const std::lock_guard lock(shared->mutex);
            // Woken early: by shutdown, or by a flush that exported what there was. The pass ends unless
            // something was recorded since.
            if (shared->closed || (woken && !shared->meter->changed())) {
                shared->passRunning = false;
                co_return;
            }
        }
        if (woken) {
            continue;  // recorded after the flush: a whole interval from now
        }
        (void)co_await exportOnce(shared);
        // Checked under the lock a recording's callback takes: one that comes after this starts a pass.
        const std::lock_guard lock(shared->mutex);
        if (!shared->meter->changed()) {
            shared->passRunning = false;
            co_return;
        }
    }
}

// The meter's callback for the first recording after an export: starts the pass unless one runs.
void startPass(const std::weak_ptr<ReaderShared>& weak) {
    auto shared = weak.lock();
    if (!shared) {
        return;
    }
    std::shared_ptr<detail::Waker> waker;
    {
        const std::lock_guard lock(shared->mutex);
        if (shared->closed || shared->passRunning) {
            return;
        }
        shared->passRunning = true;
        waker = std::make_shared<detail::Waker>(shared->executor);
        shared->pass = waker;
    }
    // Posted: the pass never runs on the thread that recorded, whose run goes on.
    asio::post(waker->strand,
               [shared, waker] { asio::co_spawn(waker->strand, metricPass(shared, waker), asio::detached); });
}

Task<expected<void, TelemetryError>> boundedExport(std::shared_ptr<ReaderShared> shared,
                                                   std::chrono::milliseconds bound) {
    auto done = co_await withTimeout(exportOnce(shared), bound);
    if (!done) {
        if (done.error().code == EffectErrc::cancelled) {
            co_return fail(
                TelemetryError{TelemetryErrc::cancelled, "the flush of the metrics was cancelled"});
        }
        co_return fail(
            TelemetryError{TelemetryErrc::export_failed,
                           "the metrics were not exported within " + std::to_string(bound.count()) + " ms"});
    }
    co_return std::move(*done);
}

}  // namespace

expected<std::shared_ptr<PeriodicMetricReader>, TelemetryError> PeriodicMetricReader::create(
    Executor executor, MetricExporter exporter, std::chrono::milliseconds interval) {
    if (interval <= std::chrono::milliseconds(0)) {
        return fail(TelemetryError{TelemetryErrc::invalid_config,
                                   "the metric export interval must be positive (it is " +
                                       std::to_string(interval.count()) + " ms)"});
    }
    if (!exporter) {
        return fail(TelemetryError{TelemetryErrc::invalid_config, "the metric reader needs an exporter"});
    }
    auto shared = std::make_shared<ReaderShared>(std::move(executor), std::move(exporter), interval);
    shared->meter.emplace([weak = std::weak_ptr<ReaderShared>(shared)] { startPass(weak); });
    return std::shared_ptr<PeriodicMetricReader>(new PeriodicMetricReader(std::move(shared)));
}

PeriodicMetricReader::PeriodicMetricReader(std::shared_ptr<ReaderShared> shared)
    : shared_(std::move(shared)) {}

PeriodicMetricReader::~PeriodicMetricReader() = default;

Meter& PeriodicMetricReader::meter() noexcept {
    return *shared_->meter;
}

Task<expected<void, TelemetryError>> PeriodicMetricReader::flush(std::chrono::milliseconds bound) {
    auto exported = co_await boundedExport(shared_, bound);
    // The pass's wait is over if nothing came after this export: an io_context with no other work returns.
    std::weak_ptr<detail::Waker> pass;
    {
        const std::lock_guard lock(shared_->mutex);
        pass = shared_->pass;
    }
    detail::wake(pass);
    co_return exported;
}

Task<expected<void, TelemetryError>> PeriodicMetricReader::shutdown(std::chrono::milliseconds bound) {
    std::weak_ptr<detail::Waker> pass;
    {
        const std::lock_guard lock(shared_->mutex);
        shared_->closed = true;
        pass = shared_->pass;
    }
    detail::wake(pass);
    return boundedExport(shared_, bound);
}

MetricStats PeriodicMetricReader::stats() const {
    const std::lock_guard lock(shared_->mutex);
    return shared_->stats;
}

}  // namespace reagent::telemetry
