#include "reagent/telemetry/batch_span_processor.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iterator>
#include <mutex>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/timeout.hpp"
#include "waker.hpp"

namespace reagent::telemetry {

namespace asio = boost::asio;

namespace {

using detail::wake;
using detail::Waker;

}  // namespace

struct BatchSpanProcessor::Shared {
    Shared(Executor base, SpanExporter spanExporter, BatchOptions batchOptions)
        : executor(std::move(base)), exporter(std::move(spanExporter)), options(batchOptions) {}

    Executor executor;
    SpanExporter exporter;
    BatchOptions options;

    std::mutex mutex;  // guards what follows
    std::vector<SpanData> queue;
    bool passRunning = false;
    bool wakePosted = false;
    bool hurry = false;  // a flush waits: export without waiting for the batch to fill
    bool closed = false;
    BatchStats stats;
    std::weak_ptr<Waker> pass;                 // the export pass's, while it runs
    std::vector<std::weak_ptr<Waker>> drains;  // the flushes waiting for the pass to end
};

namespace {

using Shared = BatchSpanProcessor::Shared;

// Takes the next batch off the queue (the oldest spans first); empty when the pass is over, which it then
// tells the flushes waiting.
std::vector<SpanData> nextBatch(Shared& shared) {
    std::vector<SpanData> batch;
    std::vector<std::weak_ptr<Waker>> drains;
    {
        const std::lock_guard lock(shared.mutex);
        shared.wakePosted = false;
        if (shared.queue.size() <= shared.options.maxExportBatchSize) {
            batch.swap(shared.queue);
        } else {
            const auto end =
                shared.queue.begin() + static_cast<std::ptrdiff_t>(shared.options.maxExportBatchSize);
            batch.assign(std::make_move_iterator(shared.queue.begin()), std::make_move_iterator(end));
            shared.queue.erase(shared.queue.begin(), end);
        }
        if (batch.empty()) {
            shared.passRunning = false;
            shared.hurry = false;
            drains = shared.drains;
        }
    }
    for (const auto& drain : drains) {
        wake(drain);
    }
    return batch;
}

bool shouldWait(Shared& shared) {
    const std::lock_guard lock(shared.mutex);
    return !shared.hurry && shared.queue.size() < shared.options.maxExportBatchSize;
}

// One pass, on its waker's strand: waits for the batch to fill (or the delay to pass, or a flush), exports,
// and goes on until the queue is empty.
Task<void> exportPass(std::shared_ptr<Shared> shared, std::shared_ptr<Waker> waker) {
    for (;;) {
        if (shouldWait(*shared)) {
            waker->timer.expires_after(shared->options.scheduleDelay);
            co_await waker->timer.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        std::vector<SpanData> batch = nextBatch(*shared);
        if (batch.empty()) {
            co_return;
        }
        const auto count = batch.size();
        auto outcome = co_await settle(shared->exporter(std::move(batch)));
        const std::lock_guard lock(shared->mutex);
        if (outcome && *outcome) {
            shared->stats.exported += count;
        } else {
            shared->stats.failed += count;
            shared->stats.lastError =
                !outcome ? "the exporter failed: " + outcome.error().message : outcome->error().describe();
        }
    }
}

// Waits, on its waker's strand, until the spans queued when it began have been handed to the exporter and
// the pass exporting them has ended.
Task<void> waitDrained(std::shared_ptr<Shared> shared, std::shared_ptr<Waker> waker) {
    struct Leave {
        Shared& shared;
        Waker* waker;
        ~Leave() {
            const std::lock_guard lock(shared.mutex);
            std::erase_if(shared.drains, [this](const std::weak_ptr<Waker>& drain) {
                const auto alive = drain.lock();
                return !alive || alive.get() == waker;
            });
        }
    } leave{*shared, waker.get()};
    bool registered = false;
    for (;;) {
        std::weak_ptr<Waker> pass;
        {
            // Checked and registered under one lock: a pass that ends after this wakes the wait below.
            const std::lock_guard lock(shared->mutex);
            if (!shared->passRunning && shared->queue.empty()) {
                co_return;
            }
            if (!registered) {
                shared->drains.push_back(waker);
                registered = true;
            }
            shared->hurry = true;
            pass = shared->pass;
        }
        wake(pass);
        waker->timer.expires_at(asio::steady_timer::time_point::max());
        co_await waker->timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return;  // out of time, or the caller was cancelled
        }
    }
}

Task<expected<void, TelemetryError>> drain(std::shared_ptr<Shared> shared, std::chrono::milliseconds bound,
                                           bool closing) {
    std::uint64_t failedBefore = 0;
    {
        const std::lock_guard lock(shared->mutex);
        failedBefore = shared->stats.failed;
    }
    auto waker = std::make_shared<Waker>(co_await asio::this_coro::executor);
    auto waited = co_await withTimeout(
        asio::co_spawn(waker->strand, waitDrained(shared, waker), asio::use_awaitable), bound);
    const std::lock_guard lock(shared->mutex);
    const auto waiting = shared->queue.size();
    if (closing) {
        shared->closed = true;
        shared->stats.dropped += waiting;
        shared->queue.clear();
    }
    if (!waited) {
        if (waited.error().code == EffectErrc::cancelled) {
            co_return fail(TelemetryError{TelemetryErrc::cancelled, "the flush of the spans was cancelled"});
        }
        co_return fail(TelemetryError{TelemetryErrc::export_failed,
                                      "the spans were not all exported within " +
                                          std::to_string(bound.count()) + " ms: " + std::to_string(waiting) +
                                          (closing ? " were dropped" : " are still queued")});
    }
    if (shared->stats.failed > failedBefore) {
        co_return fail(TelemetryError{TelemetryErrc::export_failed, shared->stats.lastError});
    }
    co_return expected<void, TelemetryError>{};
}

}  // namespace

expected<std::shared_ptr<BatchSpanProcessor>, TelemetryError> BatchSpanProcessor::create(
    Executor executor, SpanExporter exporter, BatchOptions options) {
    if (options.maxQueueSize == 0 || options.maxExportBatchSize == 0) {
        return fail(TelemetryError{TelemetryErrc::invalid_config,
                                   "the batch processor's queue and batches must hold at least one span"});
    }
    if (options.maxExportBatchSize > options.maxQueueSize) {
        return fail(TelemetryError{
            TelemetryErrc::invalid_config,
            "the batch processor's batches (" + std::to_string(options.maxExportBatchSize) +
                ") cannot be larger than its queue (" + std::to_string(options.maxQueueSize) + ")"});
    }
    if (!exporter) {
        return fail(TelemetryError{TelemetryErrc::invalid_config, "the batch processor needs an exporter"});
    }
    return std::shared_ptr<BatchSpanProcessor>(
        new BatchSpanProcessor(std::make_shared<Shared>(std::move(executor), std::move(exporter), options)));
}

BatchSpanProcessor::BatchSpanProcessor(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

BatchSpanProcessor::~BatchSpanProcessor() = default;

void BatchSpanProcessor::onEnd(SpanData span) {
    std::weak_ptr<Waker> toWake;
    std::shared_ptr<Waker> toStart;
    {
        const std::lock_guard lock(shared_->mutex);
        Shared& shared = *shared_;
        if (shared.closed || shared.queue.size() >= shared.options.maxQueueSize) {
            ++shared.stats.dropped;
            return;
        }
        shared.queue.push_back(std::move(span));
        if (!shared.passRunning) {
            shared.passRunning = true;
            toStart = std::make_shared<Waker>(shared.executor);
            shared.pass = toStart;
        } else if (shared.queue.size() >= shared.options.maxExportBatchSize && !shared.wakePosted) {
            shared.wakePosted = true;
            toWake = shared.pass;
        }
    }
    if (toStart) {
        // Posted: the pass never runs on the thread of the span that ended, whose run goes on.
        asio::post(toStart->strand, [owner = shared_, waker = toStart] {
            asio::co_spawn(waker->strand, exportPass(owner, waker), asio::detached);
        });
    }
    wake(toWake);
}

Task<expected<void, TelemetryError>> BatchSpanProcessor::flush(std::chrono::milliseconds bound) {
    return drain(shared_, bound, false);
}

Task<expected<void, TelemetryError>> BatchSpanProcessor::shutdown(std::chrono::milliseconds bound) {
    return drain(shared_, bound, true);
}

BatchStats BatchSpanProcessor::stats() const {
    const std::lock_guard lock(shared_->mutex);
    return shared_->stats;
}

}  // namespace reagent::telemetry
