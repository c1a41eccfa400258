#include "reagent/durable/store_journal.hpp"

#include <utility>

namespace reagent::durable {

StoreJournal::StoreJournal(std::shared_ptr<RunStore> store, const Claimed& claimed)
    : store_(std::move(store)), lease_(claimed.lease) {
    for (const JournalEntry& entry : claimed.journal) {
        steps_.emplace(entry.step, entry.payload);
    }
}

const nlohmann::json* StoreJournal::recorded(const std::string& step) const {
    const std::lock_guard lock(mutex_);
    const auto found = steps_.find(step);
    return found == steps_.end() ? nullptr : &found->second;
}

Task<expected<void, std::string>> StoreJournal::record(agent::JournaledStep step) {
    JournalEntry entry;
    entry.step = std::move(step.step);
    entry.kind = std::move(step.kind);
    entry.payload = std::move(step.payload);
    auto appended = co_await store_->append(lease_, entry);
    if (!appended) {
        co_return unexpected(appended.error().describe());
    }
    const std::lock_guard lock(mutex_);
    steps_.emplace(appended->step, appended->payload);
    co_return expected<void, std::string>{};
}

}  // namespace reagent::durable
