#pragma once
/// \file
/// \brief `MemoryRunStore`: a `RunStore` in this process's memory, for tests and for programs that want the
/// worker's behaviour without a database. Nothing survives the process.

#include <functional>
#include <memory>

#include "reagent/durable/run_store.hpp"

namespace reagent::durable {

/// \brief Keeps runs in memory, with the rules of every `RunStore`. Thread-safe.
class MemoryRunStore final : public RunStore {
  public:
    /// `clock`: what leases are measured against (tests move it on to expire a lease).
    explicit MemoryRunStore(std::function<Millis()> clock = nowMillis);
    ~MemoryRunStore() override;

    [[nodiscard]] Task<expected<Submitted, DurableError>> submit(Submission submission) override;
    [[nodiscard]] Task<expected<std::optional<Claimed>, DurableError>> claim(
        std::string worker, std::chrono::milliseconds leaseFor) override;
    [[nodiscard]] Task<expected<Renewal, DurableError>> renew(Lease lease,
                                                              std::chrono::milliseconds leaseFor) override;
    [[nodiscard]] Task<expected<JournalEntry, DurableError>> append(Lease lease, JournalEntry entry) override;
    [[nodiscard]] Task<expected<RunRecord, DurableError>> finish(Lease lease, Finish finish) override;
    [[nodiscard]] Task<expected<RunInput, DurableError>> addInput(std::string runId, RunInput input) override;
    [[nodiscard]] Task<expected<RunRecord, DurableError>> run(std::string runId) override;
    [[nodiscard]] Task<expected<std::vector<JournalEntry>, DurableError>> journal(std::string runId) override;
    [[nodiscard]] Task<expected<std::vector<RunInput>, DurableError>> inputs(std::string runId) override;
    [[nodiscard]] Task<expected<std::vector<RunRecord>, DurableError>> list(RunFilter filter) override;

    struct Table;

  private:
    std::unique_ptr<Table> table_;
};

}  // namespace reagent::durable
