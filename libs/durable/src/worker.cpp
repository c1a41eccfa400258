#include "reagent/durable/worker.hpp"

#include <unistd.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/durable/store_journal.hpp"
#include "rules.hpp"

namespace reagent::durable {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr std::size_t kMaxProblems = 100;

std::string defaultName() {
    std::array<char, 256> host{};
    if (::gethostname(host.data(), host.size() - 1) != 0) {
        host = {'h', 'o', 's', 't'};
    }
    return std::string(host.data()) + "-" + std::to_string(::getpid()) + "-" +
           detail::newRunId().substr(0, 8);
}

// How a run's lease renewals ended: the run's cancellation was asked for, or another worker has the run.
enum class RenewalEnd { cancel_requested, lease_lost };

}  // namespace

// What `run` shares with the runs it started: the report, the event that wakes its loop.
struct Worker::Loop {
    explicit Loop(const Executor& executor) : wake(executor) {}
    Event wake;
    WorkerReport report;

    // Until every run of `runs` has ended (each end sets `wake`), or the wait is cancelled.
    Task<void> allEnded(const TaskGroup& runs) {
        while (runs.size() > 0) {
            wake.reset();
            auto woken = co_await wake.wait();
            if (!woken) {
                co_return;
            }
        }
    }

    void problem(const std::string& what, const DurableError& error) {
        if (report.problems.size() < kMaxProblems) {
            report.problems.push_back(what + ": " + error.describe());
        }
    }
};

namespace {

// Renews `lease` every third of `leaseFor` until the run's cancellation is asked for or the lease is lost;
// a renewal that fails otherwise (a busy or unreachable database) is tried again at the next tick, while the
// lease may still hold.
Task<RenewalEnd> renewals(std::shared_ptr<RunStore> store, Lease lease, std::chrono::milliseconds leaseFor,
                          Worker::Loop* loop) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
        timer.expires_after(leaseFor / 3);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (ec) {
            co_return RenewalEnd::lease_lost;  // cancelled: the run ended first, and this is not used
        }
        auto renewed = co_await store->renew(lease, leaseFor);
        if (!renewed) {
            if (renewed.error().code == DurableErrc::lease_lost) {
                co_return RenewalEnd::lease_lost;
            }
            loop->problem("renewing the lease of run '" + lease.runId + "'", renewed.error());
            continue;
        }
        if (renewed->cancelRequested) {
            co_return RenewalEnd::cancel_requested;
        }
    }
}

// The handler's outcome; an exception it threw fails the run.
Task<Finish> handled(RunHandler handler, Claimed claimed, std::shared_ptr<agent::RunJournal> journal) {
    auto outcome = co_await settle(handler(std::move(claimed), std::move(journal)));
    if (!outcome) {
        co_return Finish{RunStatus::failed,
                         json{{"error", "the run's handler failed: " + outcome.error().message}}};
    }
    co_return std::move(*outcome);
}

// One claimed run: the handler and the renewals side by side, then the run finished, unless the worker was
// cancelled (the run is cut off) or lost the lease.
Task<void> workOn(std::shared_ptr<RunStore> store, RunHandler handler, std::chrono::milliseconds leaseFor,
                  Claimed claimed, Worker::Loop* loop) {
    const Lease lease = claimed.lease;
    const std::int64_t inputsSeen = claimed.inputs.empty() ? 0 : claimed.inputs.back().seq;
    auto journal = std::make_shared<StoreJournal>(store, claimed);
    using namespace asio::experimental::awaitable_operators;
    auto raced = co_await (handled(std::move(handler), std::move(claimed), journal) ||
                           renewals(store, lease, leaseFor, loop));
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        ++loop->report.cutOff;
        // Given up at once rather than left until its lease expires; a second at most, the worker stops.
        co_await asio::this_coro::reset_cancellation_state();
        auto released = co_await withTimeout(store->release(lease), std::chrono::seconds(1));
        if (released && !*released && released->error().code != DurableErrc::lease_lost) {
            loop->problem("releasing run '" + lease.runId + "'", released->error());
        }
        co_return;
    }
    Finish finish;
    if (raced.index() == 0) {
        finish = std::move(std::get<0>(raced));
    } else if (std::get<1>(raced) == RenewalEnd::lease_lost) {
        ++loop->report.lost;
        co_return;
    } else {
        finish = Finish{RunStatus::cancelled, json{{"cancelled", "on request, while running"}}};
    }
    if (finish.status == RunStatus::waiting) {
        finish.inputsSeen = inputsSeen;  // the inputs after these resume the run
        if (finish.outcome.is_object()) {
            finish.outcome["inputsSeen"] = inputsSeen;
        }
    }
    auto finished = co_await store->finish(lease, std::move(finish));
    if (!finished) {
        if (finished.error().code == DurableErrc::lease_lost) {
            ++loop->report.lost;
        } else {
            loop->problem("finishing run '" + lease.runId + "'", finished.error());
        }
        co_return;
    }
    ++loop->report.finished;
}

// `workOn`, then a wake-up of the worker's loop: a slot is free.
Task<void> workOnAndWake(std::shared_ptr<RunStore> store, RunHandler handler,
                         std::chrono::milliseconds leaseFor, Claimed claimed, Worker::Loop* loop) {
    co_await settle(workOn(std::move(store), std::move(handler), leaseFor, std::move(claimed), loop));
    loop->wake.set();
}

}  // namespace

expected<std::shared_ptr<Worker>, DurableError> Worker::create(std::shared_ptr<RunStore> store,
                                                               WorkerOptions options, RunHandler handler) {
    const auto invalid = [](std::string message) {
        return unexpected(DurableError{DurableErrc::invalid_input, std::move(message)});
    };
    if (!store || !handler) {
        return invalid("a worker needs a store and a run handler");
    }
    if (options.concurrency == 0) {
        return invalid("a worker runs at least one run at a time (concurrency was 0)");
    }
    if (options.lease < std::chrono::milliseconds(30)) {
        return invalid("a worker's lease lasts at least 30 ms (got " + std::to_string(options.lease.count()) +
                       " ms)");
    }
    if (options.idlePoll < std::chrono::milliseconds(1)) {
        return invalid("a worker's idle poll is at least 1 ms");
    }
    if (options.name.empty()) {
        options.name = defaultName();
    }
    if (options.name.size() > detail::kMaxIdLength) {
        return invalid("a worker's name has at most " + std::to_string(detail::kMaxIdLength) + " characters");
    }
    return std::shared_ptr<Worker>(new Worker(std::move(store), std::move(options), std::move(handler)));
}

Worker::Worker(std::shared_ptr<RunStore> store, WorkerOptions options, RunHandler handler)
    : store_(std::move(store)), options_(std::move(options)), handler_(std::move(handler)) {}

void Worker::stop() {
    stopping_ = true;
    if (loop_ != nullptr) {
        loop_->wake.set();
    }
}

Task<WorkerReport> Worker::run() {
    co_return co_await withCheckedCancellation([](Worker* self) -> Task<WorkerReport> {
        const Executor executor = co_await asio::this_coro::executor;
        Loop loop(executor);
        self->loop_ = &loop;
        TaskGroup runs(executor);
        while (!self->stopping_ && !isCancelled(co_await asio::this_coro::cancellation_state)) {
            loop.wake.reset();
            bool idle = false;
            while (runs.size() < self->options_.concurrency) {
                auto claimed =
                    co_await settle(self->store_->claim(self->options_.name, self->options_.lease));
                if (!claimed || !*claimed) {
                    if (claimed) {
                        loop.problem("claiming a run", claimed->error());
                    }
                    idle = true;
                    break;
                }
                if (!claimed->value()) {
                    idle = true;
                    break;
                }
                runs.spawn(workOnAndWake(self->store_, self->handler_, self->options_.lease,
                                         std::move(*claimed->value()), &loop));
            }
            if (self->options_.stopWhenIdle && idle && runs.size() == 0) {
                break;
            }
            // A run ending frees a slot; the store says when a run may have become claimable (or the
            // idle poll passes).
            using namespace asio::experimental::awaitable_operators;
            (void)co_await (loop.wake.wait() || self->store_->waitForWork(self->options_.idlePoll));
        }
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            runs.cancel();
        } else if (self->options_.drainFor && runs.size() > 0) {
            // Draining, for a while: the runs still going then are cut off.
            using namespace asio::experimental::awaitable_operators;
            asio::steady_timer limit(executor, *self->options_.drainFor);
            auto drained =
                co_await (loop.allEnded(runs) || limit.async_wait(asio::as_tuple(asio::use_awaitable)));
            if (drained.index() == 1) {
                runs.cancel();
            }
        }
        (void)co_await runs.join();
        self->loop_ = nullptr;
        co_return std::move(loop.report);
    }(this));
}

}  // namespace reagent::durable
