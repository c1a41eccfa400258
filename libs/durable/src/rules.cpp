#include "rules.hpp"

#include <random>

namespace reagent::durable::detail {

namespace {

DurableError invalid(std::string message) {
    return {DurableErrc::invalid_input, std::move(message)};
}

}  // namespace

std::string newRunId() {
    std::random_device source;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string id;
    id.reserve(32);
    for (int word = 0; word < 4; ++word) {
        auto bits = static_cast<std::uint32_t>(source());
        for (int digit = 0; digit < 8; ++digit, bits >>= 4U) {
            id.push_back(kHex[bits & 0xFU]);
        }
    }
    return id;
}

expected<void, DurableError> checkRunId(const std::string& runId) {
    if (runId.empty() || runId.size() > kMaxIdLength) {
        return unexpected(invalid("a run id has 1 to " + std::to_string(kMaxIdLength) + " characters (got " +
                                  std::to_string(runId.size()) + ")"));
    }
    return {};
}

expected<void, DurableError> checkSubmission(const Submission& submission) {
    if (!submission.id.empty()) {
        if (auto checked = checkRunId(submission.id); !checked) {
            return checked;
        }
    }
    if (!submission.input.is_object()) {
        return unexpected(invalid("a run's input is a JSON object (got " +
                                  std::string(submission.input.type_name()) + ")"));
    }
    return {};
}

expected<void, DurableError> checkLeaseRequest(const std::string& worker,
                                               std::chrono::milliseconds leaseFor) {
    if (worker.empty() || worker.size() > kMaxIdLength) {
        return unexpected(
            invalid("a worker is named with 1 to " + std::to_string(kMaxIdLength) + " characters"));
    }
    if (leaseFor.count() <= 0) {
        return unexpected(
            invalid("a lease lasts at least 1 ms (got " + std::to_string(leaseFor.count()) + ")"));
    }
    return {};
}

expected<void, DurableError> checkEntry(const JournalEntry& entry) {
    if (entry.step.empty() || entry.step.size() > kMaxStepLength) {
        return unexpected(invalid("a journal step is named with 1 to " + std::to_string(kMaxStepLength) +
                                  " characters (got " + std::to_string(entry.step.size()) + ")"));
    }
    if (entry.kind.empty()) {
        return unexpected(invalid("journal step '" + entry.step + "' has no kind"));
    }
    return {};
}

expected<void, DurableError> checkFinish(const Finish& finish) {
    if (finish.status == RunStatus::queued || finish.status == RunStatus::running) {
        return unexpected(invalid("a run is finished completed, failed, cancelled or waiting (got " +
                                  std::string(toString(finish.status)) + ")"));
    }
    return {};
}

expected<void, DurableError> checkInput(const RunInput& input) {
    if (input.kind != InputKind::cancel && input.callId.empty()) {
        return unexpected(invalid("a " + std::string(toString(input.kind)) + " names the call it answers"));
    }
    if (!input.payload.is_object()) {
        return unexpected(invalid("an input's payload is a JSON object"));
    }
    return {};
}

expected<void, DurableError> checkFilter(const RunFilter& filter) {
    if (filter.limit == 0) {
        return unexpected(invalid("a listing returns at least one run (the limit was 0)"));
    }
    return {};
}

DurableError notFound(const std::string& runId) {
    return {DurableErrc::not_found, "no run '" + runId + "' in the store"};
}

expected<Submitted, DurableError> resubmitted(RunRecord existing, const Submission& submission) {
    if (existing.input != submission.input) {
        return unexpected(DurableError{DurableErrc::conflict, "run '" + existing.id +
                                                                  "' was submitted before with other input; "
                                                                  "submit this one under another id"});
    }
    return Submitted{std::move(existing), false};
}

RunRecord submittedRun(const Submission& submission, std::string id, Millis now) {
    RunRecord run;
    run.id = std::move(id);
    run.input = submission.input;
    run.created = now;
    run.updated = now;
    return run;
}

bool claimable(const RunRecord& run, Millis now) noexcept {
    return run.status == RunStatus::queued || (run.status == RunStatus::running && run.leaseUntil < now);
}

Lease claimInto(RunRecord& run, const std::string& worker, std::chrono::milliseconds leaseFor, Millis now) {
    run.status = RunStatus::running;
    run.epoch += 1;
    run.attempts += 1;
    run.owner = worker;
    run.leaseUntil = now + leaseFor.count();
    run.updated = now;
    return Lease{run.id, worker, run.epoch, run.leaseUntil};
}

expected<void, DurableError> fenced(const RunRecord& run, const Lease& lease) {
    if (run.epoch != lease.epoch || run.owner != lease.worker) {
        return unexpected(DurableError{DurableErrc::lease_lost,
                                       "worker '" + lease.worker + "' no longer holds run '" + run.id +
                                           "': it was claimed again (epoch " + std::to_string(run.epoch) +
                                           ", the lease's " + std::to_string(lease.epoch) + ")"});
    }
    if (run.status != RunStatus::running) {
        return unexpected(DurableError{DurableErrc::lease_lost, "run '" + run.id + "' is " +
                                                                    std::string(toString(run.status)) +
                                                                    ": nothing more may be written to it"});
    }
    return {};
}

Renewal renewInto(RunRecord& run, const Lease& lease, std::chrono::milliseconds leaseFor, Millis now) {
    run.leaseUntil = now + leaseFor.count();
    run.updated = now;
    Lease renewed = lease;
    renewed.until = run.leaseUntil;
    return Renewal{std::move(renewed), run.cancelRequested};
}

void finishInto(RunRecord& run, const Finish& finish, std::int64_t lastInput, Millis now) {
    run.status = finish.status;
    if (finish.status == RunStatus::waiting && lastInput > finish.inputsSeen) {
        run.status = RunStatus::queued;  // an input came while the worker was deciding to wait
    }
    run.outcome = finish.outcome;
    run.leaseUntil = 0;
    run.updated = now;
}

expected<void, DurableError> inputInto(RunRecord& run, InputKind kind, Millis now) {
    if (isTerminal(run.status)) {
        return unexpected(DurableError{DurableErrc::conflict, "run '" + run.id + "' has ended (" +
                                                                  std::string(toString(run.status)) +
                                                                  "): it takes no more inputs"});
    }
    run.updated = now;
    if (kind == InputKind::cancel) {
        if (run.status == RunStatus::running) {
            run.cancelRequested = true;  // its worker stops when it renews
        } else {
            run.outcome = nlohmann::json{{"cancelled", "while " + std::string(toString(run.status))}};
            run.status = RunStatus::cancelled;
        }
    } else if (run.status == RunStatus::waiting) {
        run.status = RunStatus::queued;
    }
    return {};
}

}  // namespace reagent::durable::detail
