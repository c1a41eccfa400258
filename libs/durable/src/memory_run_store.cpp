#include "reagent/durable/memory_run_store.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "rules.hpp"

namespace reagent::durable {

namespace {

struct StoredRun {
    RunRecord record;
    std::vector<JournalEntry> journal;
    std::vector<RunInput> inputs;
};

}  // namespace

struct MemoryRunStore::Table {
    explicit Table(std::function<Millis()> now) : clock(std::move(now)) {}

    std::function<Millis()> clock;
    std::mutex mutex;  // guards what follows
    std::map<std::string, StoredRun> runs;

    expected<StoredRun*, DurableError> find(const std::string& runId) {
        const auto found = runs.find(runId);
        if (found == runs.end()) {
            return unexpected(detail::notFound(runId));
        }
        return &found->second;
    }

    // What `part` takes of the run `runId`, under the lock.
    template <class Part>
    auto read(const std::string& runId, Part part)
        -> expected<decltype(part(std::declval<StoredRun&>())), DurableError> {
        const std::lock_guard lock(mutex);
        auto stored = find(runId);
        if (!stored) {
            return unexpected(stored.error());
        }
        return part(**stored);
    }

    // The run `lease` names, if the lease may still write to it.
    expected<StoredRun*, DurableError> held(const Lease& lease) {
        auto stored = find(lease.runId);
        if (!stored) {
            return stored;
        }
        if (auto fenced = detail::fenced((*stored)->record, lease); !fenced) {
            return unexpected(fenced.error());
        }
        return stored;
    }
};

MemoryRunStore::MemoryRunStore(std::function<Millis()> clock)
    : table_(std::make_unique<Table>(std::move(clock))) {}

MemoryRunStore::~MemoryRunStore() = default;

Task<expected<Submitted, DurableError>> MemoryRunStore::submit(Submission submission) {
    if (auto checked = detail::checkSubmission(submission); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    if (!submission.id.empty()) {
        if (const auto found = table_->runs.find(submission.id); found != table_->runs.end()) {
            co_return detail::resubmitted(found->second.record, submission);
        }
    }
    std::string id = submission.id.empty() ? detail::newRunId() : submission.id;
    StoredRun stored{detail::submittedRun(submission, id, table_->clock()), {}, {}};
    auto& placed = table_->runs.emplace(std::move(id), std::move(stored)).first->second;
    co_return Submitted{placed.record, true};
}

Task<expected<std::optional<Claimed>, DurableError>> MemoryRunStore::claim(
    std::string worker, std::chrono::milliseconds leaseFor) {
    if (auto checked = detail::checkLeaseRequest(worker, leaseFor); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    const Millis now = table_->clock();
    StoredRun* oldest = nullptr;
    for (auto& [id, stored] : table_->runs) {
        if (detail::claimable(stored.record, now) &&
            (oldest == nullptr || stored.record.created < oldest->record.created)) {
            oldest = &stored;
        }
    }
    if (oldest == nullptr) {
        co_return std::optional<Claimed>{};
    }
    Lease lease = detail::claimInto(oldest->record, worker, leaseFor, now);
    co_return std::optional<Claimed>{
        Claimed{std::move(lease), oldest->record, oldest->journal, oldest->inputs}};
}

Task<expected<Renewal, DurableError>> MemoryRunStore::renew(Lease lease, std::chrono::milliseconds leaseFor) {
    if (auto checked = detail::checkLeaseRequest(lease.worker, leaseFor); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    auto stored = table_->held(lease);
    if (!stored) {
        co_return unexpected(stored.error());
    }
    co_return detail::renewInto((*stored)->record, lease, leaseFor, table_->clock());
}

Task<expected<JournalEntry, DurableError>> MemoryRunStore::append(Lease lease, JournalEntry entry) {
    if (auto checked = detail::checkEntry(entry); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    auto stored = table_->held(lease);
    if (!stored) {
        co_return unexpected(stored.error());
    }
    auto& journal = (*stored)->journal;
    const auto there = std::find_if(journal.begin(), journal.end(),
                                    [&](const JournalEntry& kept) { return kept.step == entry.step; });
    if (there != journal.end()) {
        co_return *there;
    }
    entry.seq = static_cast<std::int64_t>(journal.size()) + 1;
    entry.epoch = lease.epoch;
    entry.created = table_->clock();
    journal.push_back(entry);
    co_return entry;
}

Task<expected<RunRecord, DurableError>> MemoryRunStore::finish(Lease lease, Finish finish) {
    if (auto checked = detail::checkFinish(finish); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    auto stored = table_->held(lease);
    if (!stored) {
        co_return unexpected(stored.error());
    }
    const auto lastInput = static_cast<std::int64_t>((*stored)->inputs.size());
    detail::finishInto((*stored)->record, finish, lastInput, table_->clock());
    co_return (*stored)->record;
}

Task<expected<RunInput, DurableError>> MemoryRunStore::addInput(std::string runId, RunInput input) {
    if (auto checked = detail::checkInput(input); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    auto stored = table_->find(runId);
    if (!stored) {
        co_return unexpected(stored.error());
    }
    const Millis now = table_->clock();
    if (auto applied = detail::inputInto((*stored)->record, input.kind, now); !applied) {
        co_return unexpected(applied.error());
    }
    input.seq = static_cast<std::int64_t>((*stored)->inputs.size()) + 1;
    input.created = now;
    (*stored)->inputs.push_back(input);
    co_return input;
}

Task<expected<RunRecord, DurableError>> MemoryRunStore::run(std::string runId) {
    co_return table_->read(runId, [](const StoredRun& stored) { return stored.record; });
}

Task<expected<std::vector<JournalEntry>, DurableError>> MemoryRunStore::journal(std::string runId) {
    co_return table_->read(runId, [](const StoredRun& stored) { return stored.journal; });
}

Task<expected<std::vector<RunInput>, DurableError>> MemoryRunStore::inputs(std::string runId) {
    co_return table_->read(runId, [](const StoredRun& stored) { return stored.inputs; });
}

Task<expected<std::vector<RunRecord>, DurableError>> MemoryRunStore::list(RunFilter filter) {
    if (auto checked = detail::checkFilter(filter); !checked) {
        co_return unexpected(checked.error());
    }
    const std::lock_guard lock(table_->mutex);
    std::vector<RunRecord> listed;
    for (const auto& [id, stored] : table_->runs) {
        if (!filter.status || stored.record.status == *filter.status) {
            listed.push_back(stored.record);
        }
    }
    std::sort(listed.begin(), listed.end(), [](const RunRecord& a, const RunRecord& b) {
        return a.created != b.created ? a.created > b.created : a.id > b.id;
    });
    if (listed.size() > filter.limit) {
        listed.resize(filter.limit);
    }
    co_return listed;
}

}  // namespace reagent::durable
