#include "reagent/agent/run_journal.hpp"

namespace reagent::agent {

MemoryRunJournal::MemoryRunJournal(std::string runId, std::vector<JournaledStep> earlier)
    : runId_(std::move(runId)) {
    for (JournaledStep& step : earlier) {
        if (!index_.contains(step.step)) {
            index_.emplace(step.step, steps_.size());
            steps_.push_back(std::move(step));
        }
    }
}

const nlohmann::json* MemoryRunJournal::recorded(const std::string& step) const {
    const std::lock_guard lock(mutex_);
    const auto found = index_.find(step);
    // The steps only grow, and an entry is never changed: the payload stays where it is.
    return found == index_.end() ? nullptr : &steps_[found->second].payload;
}

Task<expected<void, std::string>> MemoryRunJournal::record(JournaledStep step) {
    const std::lock_guard lock(mutex_);
    ++recordedCalls_;
    if (failFrom_ != 0 && recordedCalls_ >= failFrom_) {
        co_return unexpected(std::string("the journal refused the step (as asked by failFrom)"));
    }
    if (!index_.contains(step.step)) {
        index_.emplace(step.step, steps_.size());
        steps_.push_back(std::move(step));
    }
    co_return expected<void, std::string>{};
}

std::vector<JournaledStep> MemoryRunJournal::steps() const {
    const std::lock_guard lock(mutex_);
    return {steps_.begin(), steps_.end()};
}

void MemoryRunJournal::failFrom(std::size_t count) {
    const std::lock_guard lock(mutex_);
    failFrom_ = count == 0 ? 0 : recordedCalls_ + count;
}

}  // namespace reagent::agent
