#pragma once
/// \file
/// \brief `StoreJournal`: a claimed run's journal in its `RunStore`, for the agent (`RunOptions::journal`):
/// the steps earlier attempts journaled, and each new step appended under the worker's lease.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "reagent/agent/run_journal.hpp"
#include "reagent/durable/run_store.hpp"

namespace reagent::durable {

/// \brief The journal of the run a worker claimed.
///
/// A step is appended under the claim's lease (fenced: once another worker has taken the run over, every
/// append fails `lease_lost`, and the agent's run stops at that step). A step appended is also kept here,
/// so that the attempt reads back what it wrote.
class StoreJournal final : public agent::RunJournal {
  public:
    /// `claimed`: what `RunStore::claim` returned (its journal is read once, here).
    StoreJournal(std::shared_ptr<RunStore> store, const Claimed& claimed);

    [[nodiscard]] const std::string& runId() const noexcept override { return lease_.runId; }
    [[nodiscard]] const nlohmann::json* recorded(const std::string& step) const override;
    /// \par Errors
    /// The store's error, described (`lease_lost: worker 'w1' no longer holds run 'r' ...`).
    [[nodiscard]] Task<expected<void, std::string>> record(agent::JournaledStep step) override;

    [[nodiscard]] const Lease& lease() const noexcept { return lease_; }

  private:
    std::shared_ptr<RunStore> store_;
    Lease lease_;
    mutable std::mutex mutex_;
    std::map<std::string, nlohmann::json, std::less<>> steps_;  // nodes stay put: `recorded` points in
};

}  // namespace reagent::durable
