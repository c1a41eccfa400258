// The PostgreSQL store's operations. Each is one transaction: a first round trip begins it, reads the time
// and locks the run's row (FOR UPDATE), the rules (rules.hpp) decide in between, and a second round trip
// writes and commits. Operations that only read, and `submit`, take one round trip; so do the two a worker
// makes most, `append` and `renew`, as one statement whose WHERE is the rules' fence: when it writes
// nothing, the two-step path reads what is there and the rules say why.

#include "pg_pool.hpp"
#include "rules.hpp"

namespace reagent::durable {

namespace {

using nlohmann::json;
using Pool = PostgresRunStore::Pool;
using Param = std::optional<std::string>;

constexpr const char* kRunColumns =
    "id, input, status, epoch, owner, lease_until, attempts, cancel_requested, outcome, created, updated";
constexpr const char* kEntryColumns = "seq, step, kind, payload, epoch, created";
constexpr const char* kInputColumns = "seq, kind, call_id, payload, created";

PgFailure corrupt(const Pool& pool, std::string what) {
    return PgFailure{DurableError{DurableErrc::storage_error, "run store " + pool.shown + " holds " + what}};
}

expected<json, PgFailure> parsed(const Pool& pool, const PgResult& result, int row, int column,
                                 const char* what) {
    if (result.isNull(row, column)) {
        return json();
    }
    json value = json::parse(result.text(row, column), nullptr, false);
    if (value.is_discarded()) {
        return unexpected(corrupt(pool, std::string(what) + " that is not JSON"));
    }
    return value;
}

expected<RunRecord, PgFailure> readRun(const Pool& pool, const PgResult& result, int row) {
    RunRecord run;
    run.id = result.text(row, 0);
    auto input = parsed(pool, result, row, 1, "a run input");
    auto outcome = parsed(pool, result, row, 8, "a run outcome");
    const auto status = runStatusNamed(result.text(row, 2));
    if (!input || !outcome) {
        return unexpected(!input ? input.error() : outcome.error());
    }
    if (!status) {
        return unexpected(
            corrupt(pool, "run '" + run.id + "' in an unknown status '" + result.text(row, 2) + "'"));
    }
    run.input = std::move(*input);
    run.status = *status;
    run.epoch = result.integer(row, 3);
    run.owner = result.text(row, 4);
    run.leaseUntil = result.integer(row, 5);
    run.attempts = result.integer(row, 6);
    run.cancelRequested = result.text(row, 7) == "t";
    run.outcome = std::move(*outcome);
    run.created = result.integer(row, 9);
    run.updated = result.integer(row, 10);
    return run;
}

expected<JournalEntry, PgFailure> readEntry(const Pool& pool, const PgResult& result, int row) {
    auto payload = parsed(pool, result, row, 3, "a journal payload");
    if (!payload) {
        return unexpected(payload.error());
    }
    return JournalEntry{result.integer(row, 0), result.text(row, 1),    result.text(row, 2),
                        std::move(*payload),    result.integer(row, 4), result.integer(row, 5)};
}

expected<RunInput, PgFailure> readInput(const Pool& pool, const PgResult& result, int row) {
    auto payload = parsed(pool, result, row, 3, "an input payload");
    const auto kind = inputKindNamed(result.text(row, 1));
    if (!payload) {
        return unexpected(payload.error());
    }
    if (!kind) {
        return unexpected(corrupt(pool, "an input of unknown kind '" + result.text(row, 1) + "'"));
    }
    return RunInput{result.integer(row, 0), *kind, result.text(row, 2), std::move(*payload),
                    result.integer(row, 4)};
}

template <class Row>
expected<std::vector<Row>, PgFailure> readAll(const Pool& pool, const PgResult& result,
                                              expected<Row, PgFailure> (*read)(const Pool&, const PgResult&,
                                                                               int)) {
    std::vector<Row> rows;
    rows.reserve(static_cast<std::size_t>(result.rows()));
    for (int row = 0; row < result.rows(); ++row) {
        auto value = read(pool, result, row);
        if (!value) {
            return unexpected(value.error());
        }
        rows.push_back(std::move(*value));
    }
    return rows;
}

PgFailure failure(DurableError error) {
    return PgFailure{std::move(error), false};
}

// The statements that begin an operation on the run `runId`: BEGIN, the time, the run's row locked.
std::vector<PgQuery> beginOn(const Pool& pool, const std::string& runId) {
    std::vector<PgQuery> queries;
    queries.push_back(PgQuery{"BEGIN", {}});
    queries.push_back(PgQuery{std::string("SELECT ") + kNowSql, {pool.clockParam()}});
    queries.push_back(PgQuery{
        std::string("SELECT ") + kRunColumns + " FROM " + pool.table("runs") + " WHERE id = $1 FOR UPDATE",
        {runId}});
    return queries;
}

// The run `beginOn` read (results[2]); `not_found` when there is none.
expected<RunRecord, PgFailure> lockedRun(const Pool& pool, const std::vector<PgResult>& results,
                                         const std::string& runId) {
    if (results[2].rows() == 0) {
        return unexpected(failure(detail::notFound(runId)));
    }
    return readRun(pool, results[2], 0);
}

PgQuery saveRun(const Pool& pool, const RunRecord& run) {
    return PgQuery{
        "UPDATE " + pool.table("runs") +
            " SET status = $2, epoch = $3, owner = $4, lease_until = $5, attempts = $6, "
            "cancel_requested = $7, outcome = $8, updated = $9 WHERE id = $1",
        {run.id, std::string(toString(run.status)), std::to_string(run.epoch), run.owner,
         std::to_string(run.leaseUntil), std::to_string(run.attempts),
         std::string(run.cancelRequested ? "true" : "false"),
         run.outcome.is_null() ? Param{} : Param{run.outcome.dump()}, std::to_string(run.updated)}};
}

PgQuery notify(const Pool& pool) {
    return PgQuery{"SELECT pg_notify($1, '')", {pool.channel}};
}

PgQuery journalOf(const Pool& pool, const std::string& runId) {
    return PgQuery{std::string("SELECT ") + kEntryColumns + " FROM " + pool.table("journal") +
                       " WHERE run_id = $1 ORDER BY seq",
                   {runId}};
}

PgQuery inputsOf(const Pool& pool, const std::string& runId) {
    return PgQuery{std::string("SELECT ") + kInputColumns + " FROM " + pool.table("inputs") +
                       " WHERE run_id = $1 ORDER BY seq",
                   {runId}};
}

PgQuery lastInput(const Pool& pool, const std::string& runId) {
    return PgQuery{"SELECT coalesce(max(seq), 0) FROM " + pool.table("inputs") + " WHERE run_id = $1",
                   {runId}};
}

// --- the operations, each an attempt on one connection ---

Task<expected<Submitted, PgFailure>> submitOn(PgConnection& connection, const Pool& pool,
                                              const Submission& submission, const std::string& id) {
    // One implicit transaction: the insert does nothing when the id is taken, and the select reads the run
    // either way (committed by whoever inserted it).
    std::vector<PgQuery> queries;
    queries.push_back(PgQuery{"INSERT INTO " + pool.table("runs") +
                                  " (id, input, status, created, updated) VALUES ($2, $3, 'queued', " +
                                  kNowSql + ", " + kNowSql + ") ON CONFLICT (id) DO NOTHING",
                              {pool.clockParam(), id, submission.input.dump()}});
    queries.push_back(PgQuery{
        std::string("SELECT ") + kRunColumns + " FROM " + pool.table("runs") + " WHERE id = $1", {id}});
    queries.push_back(notify(pool));
    auto results = co_await connection.pipeline(std::move(queries));
    if (!results) {
        co_return unexpected(results.error());
    }
    if ((*results)[1].rows() == 0) {
        co_return unexpected(corrupt(pool, "no run '" + id + "' right after it was submitted"));
    }
    auto run = readRun(pool, (*results)[1], 0);
    if (!run) {
        co_return unexpected(run.error());
    }
    if ((*results)[0].affected() == 1) {
        co_return Submitted{std::move(*run), true};
    }
    auto again = detail::resubmitted(std::move(*run), submission);
    if (!again) {
        co_return unexpected(failure(again.error()));
    }
    co_return std::move(*again);
}

Task<expected<std::optional<Claimed>, PgFailure>> claimOn(PgConnection& connection, const Pool& pool,
                                                          const std::string& worker,
                                                          std::chrono::milliseconds leaseFor) {
    // Rows other claims hold are skipped, not waited for: workers never queue behind each other.
    std::vector<PgQuery> look;
    look.push_back(PgQuery{"BEGIN", {}});
    look.push_back(PgQuery{std::string("SELECT ") + kRunColumns + ", " + kNowSql + " FROM " +
                               pool.table("runs") +
                               " WHERE status = 'queued' OR (status = 'running' AND lease_until < " +
                               kNowSql + ") ORDER BY created, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                           {pool.clockParam()}});
    auto looked = co_await connection.pipeline(std::move(look));
    if (!looked) {
        co_return unexpected(looked.error());
    }
    if ((*looked)[1].rows() == 0) {
        co_return std::optional<Claimed>{};  // the transaction is rolled back when the connection is given
                                             // back
    }
    auto run = readRun(pool, (*looked)[1], 0);
    if (!run) {
        co_return unexpected(run.error());
    }
    const Millis now = (*looked)[1].integer(0, 11);
    Lease lease = detail::claimInto(*run, worker, leaseFor, now);
    std::vector<PgQuery> write;
    write.push_back(saveRun(pool, *run));
    write.push_back(journalOf(pool, run->id));
    write.push_back(inputsOf(pool, run->id));
    write.push_back(PgQuery{"COMMIT", {}});
    auto written = co_await connection.pipeline(std::move(write));
    if (!written) {
        co_return unexpected(written.error());
    }
    auto journal = readAll<JournalEntry>(pool, (*written)[1], readEntry);
    auto inputs = readAll<RunInput>(pool, (*written)[2], readInput);
    if (!journal || !inputs) {
        co_return unexpected(!journal ? journal.error() : inputs.error());
    }
    co_return std::optional<Claimed>{
        Claimed{std::move(lease), std::move(*run), std::move(*journal), std::move(*inputs)}};
}

// A lease renewed in one statement, one round trip, when the lease still holds the run; none otherwise
// (`renewOn` then finds out why).
Task<expected<std::optional<Renewal>, PgFailure>> renewFast(PgConnection& connection, const Pool& pool,
                                                            const Lease& lease,
                                                            std::chrono::milliseconds leaseFor) {
    std::vector<PgQuery> queries;
    queries.push_back(PgQuery{
        "UPDATE " + pool.table("runs") + " SET lease_until = " + kNowSql + " + $5, updated = " + kNowSql +
            " WHERE id = $2 AND epoch = $3 AND owner = $4 AND status = 'running' RETURNING "
            "lease_until, cancel_requested",
        {pool.clockParam(), lease.runId, std::to_string(lease.epoch), lease.worker,
         std::to_string(leaseFor.count())}});
    auto results = co_await connection.pipeline(std::move(queries));
    if (!results) {
        co_return unexpected(results.error());
    }
    if ((*results)[0].rows() == 0) {
        co_return std::optional<Renewal>{};
    }
    Lease renewed = lease;
    renewed.until = (*results)[0].integer(0, 0);
    co_return std::optional<Renewal>{Renewal{std::move(renewed), (*results)[0].text(0, 1) == "t"}};
}

Task<expected<RunRecord, PgFailure>> runOn(PgConnection& connection, const Pool& pool,
                                           const std::string& runId);

Task<expected<Renewal, PgFailure>> renewOn(PgConnection& connection, const Pool& pool, const Lease& lease,
                                           std::chrono::milliseconds leaseFor) {
    auto fast = co_await renewFast(connection, pool, lease, leaseFor);
    if (!fast) {
        co_return unexpected(fast.error());
    }
    if (*fast) {
        co_return std::move(**fast);
    }
    // Refused: the rules say why. (The fence cannot pass now that it failed: a run's epoch only rises.)
    auto run = co_await runOn(connection, pool, lease.runId);
    if (!run) {
        co_return unexpected(run.error());
    }
    if (auto fenced = detail::fenced(*run, lease); !fenced) {
        co_return unexpected(failure(fenced.error()));
    }
    co_return unexpected(
        failure(DurableError{DurableErrc::busy, "could not renew the lease of run '" + lease.runId +
                                                    "': the run changed meanwhile; try again"}));
}

// A step journaled in one statement, one round trip: the run's row is updated (its journal counter raised,
// which locks it) only when the lease holds it and the step is new, and the entry inserted under that
// number. None when it wrote nothing; `appendOn` then finds out why.
Task<expected<std::optional<JournalEntry>, PgFailure>> appendFast(PgConnection& connection, const Pool& pool,
                                                                  const Lease& lease,
                                                                  const JournalEntry& entry) {
    std::vector<PgQuery> queries;
    queries.push_back(PgQuery{
        "WITH counted AS (UPDATE " + pool.table("runs") +
            " SET journal_seq = journal_seq + 1 WHERE id = $2 AND epoch = $3 AND owner = $4 AND status = "
            "'running' AND NOT EXISTS (SELECT 1 FROM " +
            pool.table("journal") + " WHERE run_id = $2 AND step = $5) RETURNING journal_seq) INSERT INTO " +
            pool.table("journal") +
            " (run_id, seq, step, kind, payload, epoch, created) SELECT $2, journal_seq, $5, $6, $7, $3, " +
            kNowSql + " FROM counted ON CONFLICT (run_id, step) DO NOTHING RETURNING seq, created",
        {pool.clockParam(), lease.runId, std::to_string(lease.epoch), lease.worker, entry.step, entry.kind,
         entry.payload.dump()}});
    auto results = co_await connection.pipeline(std::move(queries));
    if (!results) {
        co_return unexpected(results.error());
    }
    if ((*results)[0].rows() == 0) {
        co_return std::optional<JournalEntry>{};
    }
    JournalEntry stored = entry;
    stored.seq = (*results)[0].integer(0, 0);
    stored.epoch = lease.epoch;
    stored.created = (*results)[0].integer(0, 1);
    co_return std::optional<JournalEntry>{std::move(stored)};
}

Task<expected<JournalEntry, PgFailure>> appendOn(PgConnection& connection, const Pool& pool,
                                                 const Lease& lease, const JournalEntry& entry) {
    // The fast path, then, when it wrote nothing, the rules on what is there: the step journaled already
    // (kept once), or the lease lost. A run that holds neither changed between the two: tried once more.
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto fast = co_await appendFast(connection, pool, lease, entry);
        if (!fast) {
            co_return unexpected(fast.error());
        }
        if (*fast) {
            co_return std::move(**fast);
        }
        std::vector<PgQuery> look;
        look.push_back(PgQuery{"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {}});
        look.push_back(
            PgQuery{std::string("SELECT ") + kRunColumns + " FROM " + pool.table("runs") + " WHERE id = $1",
                    {lease.runId}});
        look.push_back(PgQuery{std::string("SELECT ") + kEntryColumns + " FROM " + pool.table("journal") +
                                   " WHERE run_id = $1 AND step = $2",
                               {lease.runId, entry.step}});
        look.push_back(PgQuery{"COMMIT", {}});
        auto looked = co_await connection.pipeline(std::move(look));
        if (!looked) {
            co_return unexpected(looked.error());
        }
        if ((*looked)[1].rows() == 0) {
            co_return unexpected(failure(detail::notFound(lease.runId)));
        }
        auto run = readRun(pool, (*looked)[1], 0);
        if (!run) {
            co_return unexpected(run.error());
        }
        if (auto fenced = detail::fenced(*run, lease); !fenced) {
            co_return unexpected(failure(fenced.error()));
        }
        if ((*looked)[2].rows() > 0) {
            co_return readEntry(pool, (*looked)[2], 0);  // journaled already: kept once
        }
    }
    co_return unexpected(failure(
        DurableError{DurableErrc::busy, "could not journal step '" + entry.step + "' of run '" + lease.runId +
                                            "': the run changed meanwhile; try again"}));
}

Task<expected<RunRecord, PgFailure>> finishOn(PgConnection& connection, const Pool& pool, const Lease& lease,
                                              const Finish& finish, bool retried) {
    std::vector<PgQuery> look = beginOn(pool, lease.runId);
    look.push_back(lastInput(pool, lease.runId));
    auto looked = co_await connection.pipeline(std::move(look));
    if (!looked) {
        co_return unexpected(looked.error());
    }
    auto run = lockedRun(pool, *looked, lease.runId);
    if (!run) {
        co_return unexpected(run.error());
    }
    if (retried && run->epoch == lease.epoch && run->owner == lease.worker &&
        run->status != RunStatus::running) {
        co_return std::move(*run);  // the first attempt committed before its connection was lost
    }
    if (auto fenced = detail::fenced(*run, lease); !fenced) {
        co_return unexpected(failure(fenced.error()));
    }
    detail::finishInto(*run, finish, (*looked)[3].integer(0, 0), (*looked)[1].integer(0, 0));
    std::vector<PgQuery> write;
    write.push_back(saveRun(pool, *run));
    if (run->status == RunStatus::queued) {
        write.push_back(notify(pool));
    }
    write.push_back(PgQuery{"COMMIT", {}});
    auto written = co_await connection.pipeline(std::move(write));
    if (!written) {
        co_return unexpected(written.error());
    }
    co_return std::move(*run);
}

Task<expected<RunInput, PgFailure>> addInputOn(PgConnection& connection, const Pool& pool,
                                               const std::string& runId, const RunInput& input) {
    std::vector<PgQuery> look = beginOn(pool, runId);
    look.push_back(lastInput(pool, runId));
    auto looked = co_await connection.pipeline(std::move(look));
    if (!looked) {
        co_return unexpected(looked.error());
    }
    auto run = lockedRun(pool, *looked, runId);
    if (!run) {
        co_return unexpected(run.error());
    }
    const Millis now = (*looked)[1].integer(0, 0);
    if (auto applied = detail::inputInto(*run, input.kind, now); !applied) {
        co_return unexpected(failure(applied.error()));
    }
    RunInput stored = input;
    stored.seq = (*looked)[3].integer(0, 0) + 1;
    stored.created = now;
    std::vector<PgQuery> write;
    write.push_back(
        PgQuery{"INSERT INTO " + pool.table("inputs") +
                    " (run_id, seq, kind, call_id, payload, created) VALUES ($1, $2, $3, $4, $5, $6)",
                {runId, std::to_string(stored.seq), std::string(toString(stored.kind)), stored.callId,
                 stored.payload.dump(), std::to_string(stored.created)}});
    write.push_back(saveRun(pool, *run));
    if (run->status == RunStatus::queued) {
        write.push_back(notify(pool));
    }
    write.push_back(PgQuery{"COMMIT", {}});
    auto written = co_await connection.pipeline(std::move(write));
    if (!written) {
        co_return unexpected(written.error());
    }
    co_return stored;
}

Task<expected<RunRecord, PgFailure>> runOn(PgConnection& connection, const Pool& pool,
                                           const std::string& runId) {
    std::vector<PgQuery> queries;
    queries.push_back(PgQuery{
        std::string("SELECT ") + kRunColumns + " FROM " + pool.table("runs") + " WHERE id = $1", {runId}});
    auto results = co_await connection.pipeline(std::move(queries));
    if (!results) {
        co_return unexpected(results.error());
    }
    if ((*results)[0].rows() == 0) {
        co_return unexpected(failure(detail::notFound(runId)));
    }
    co_return readRun(pool, (*results)[0], 0);
}

// A run's journal or inputs (`rows`), read with the run in one snapshot; `not_found` when there is no run.
template <class Row>
Task<expected<std::vector<Row>, PgFailure>> rowsOf(PgConnection& connection, const Pool& pool,
                                                   const std::string& runId, PgQuery rows,
                                                   expected<Row, PgFailure> (*read)(const Pool&,
                                                                                    const PgResult&, int)) {
    std::vector<PgQuery> queries;
    queries.push_back(PgQuery{"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {}});
    queries.push_back(PgQuery{"SELECT 1 FROM " + pool.table("runs") + " WHERE id = $1", {runId}});
    queries.push_back(std::move(rows));
    queries.push_back(PgQuery{"COMMIT", {}});
    auto results = co_await connection.pipeline(std::move(queries));
    if (!results) {
        co_return unexpected(results.error());
    }
    if ((*results)[1].rows() == 0) {
        co_return unexpected(failure(detail::notFound(runId)));
    }
    co_return readAll<Row>(pool, (*results)[2], read);
}

Task<expected<std::vector<RunRecord>, PgFailure>> listOn(PgConnection& connection, const Pool& pool,
                                                         const RunFilter& filter) {
    std::vector<PgQuery> queries;
    const std::string limit = std::to_string(std::min<std::size_t>(filter.limit, INT64_MAX));
    std::string sql = std::string("SELECT ") + kRunColumns + " FROM " + pool.table("runs");
    if (filter.status) {
        queries.push_back(PgQuery{sql + " WHERE status = $2 ORDER BY created DESC, id DESC LIMIT $1",
                                  {limit, std::string(toString(*filter.status))}});
    } else {
        queries.push_back(PgQuery{sql + " ORDER BY created DESC, id DESC LIMIT $1", {limit}});
    }
    auto results = co_await connection.pipeline(std::move(queries));
    if (!results) {
        co_return unexpected(results.error());
    }
    co_return readAll<RunRecord>(pool, (*results)[0], readRun);
}

}  // namespace

Task<expected<Submitted, DurableError>> PostgresRunStore::submit(Submission submission) {
    if (auto checked = detail::checkSubmission(submission); !checked) {
        co_return unexpected(checked.error());
    }
    const std::string id = submission.id.empty() ? detail::newRunId() : submission.id;
    const Pool& pool = *pool_;
    co_return co_await operate<Submitted>(pool_, Repeatable::yes, [&](PgConnection& connection, bool) {
        return submitOn(connection, pool, submission, id);
    });
}

Task<expected<std::optional<Claimed>, DurableError>> PostgresRunStore::claim(
    std::string worker, std::chrono::milliseconds leaseFor) {
    if (auto checked = detail::checkLeaseRequest(worker, leaseFor); !checked) {
        co_return unexpected(checked.error());
    }
    const Pool& pool = *pool_;
    auto claimed = co_await operate<std::optional<Claimed>>(
        pool_, Repeatable::no,
        [&](PgConnection& connection, bool) { return claimOn(connection, pool, worker, leaseFor); });
    if (!claimed && claimed.error().code == DurableErrc::storage_error) {
        claimed.error().message += " (a run claimed then, if any, is taken again once its lease expires)";
    }
    co_return claimed;
}

Task<expected<Renewal, DurableError>> PostgresRunStore::renew(Lease lease,
                                                              std::chrono::milliseconds leaseFor) {
    if (auto checked = detail::checkLeaseRequest(lease.worker, leaseFor); !checked) {
        co_return unexpected(checked.error());
    }
    const Pool& pool = *pool_;
    co_return co_await operate<Renewal>(pool_, Repeatable::yes, [&](PgConnection& connection, bool) {
        return renewOn(connection, pool, lease, leaseFor);
    });
}

Task<expected<JournalEntry, DurableError>> PostgresRunStore::append(Lease lease, JournalEntry entry) {
    if (auto checked = detail::checkEntry(entry); !checked) {
        co_return unexpected(checked.error());
    }
    const Pool& pool = *pool_;
    co_return co_await operate<JournalEntry>(pool_, Repeatable::yes, [&](PgConnection& connection, bool) {
        return appendOn(connection, pool, lease, entry);
    });
}

Task<expected<RunRecord, DurableError>> PostgresRunStore::finish(Lease lease, Finish finish) {
    if (auto checked = detail::checkFinish(finish); !checked) {
        co_return unexpected(checked.error());
    }
    const Pool& pool = *pool_;
    co_return co_await operate<RunRecord>(pool_, Repeatable::yes,
                                          [&](PgConnection& connection, bool retried) {
                                              return finishOn(connection, pool, lease, finish, retried);
                                          });
}

Task<expected<RunInput, DurableError>> PostgresRunStore::addInput(std::string runId, RunInput input) {
    if (auto checked = detail::checkInput(input); !checked) {
        co_return unexpected(checked.error());
    }
    const Pool& pool = *pool_;
    auto added = co_await operate<RunInput>(pool_, Repeatable::no, [&](PgConnection& connection, bool) {
        return addInputOn(connection, pool, runId, input);
    });
    if (!added && added.error().code == DurableErrc::storage_error) {
        added.error().message +=
            " (the input may have been added: read the run's inputs before adding it again)";
    }
    co_return added;
}

Task<expected<RunRecord, DurableError>> PostgresRunStore::run(std::string runId) {
    const Pool& pool = *pool_;
    co_return co_await operate<RunRecord>(pool_, Repeatable::yes, [&](PgConnection& connection, bool) {
        return runOn(connection, pool, runId);
    });
}

Task<expected<std::vector<JournalEntry>, DurableError>> PostgresRunStore::journal(std::string runId) {
    const Pool& pool = *pool_;
    co_return co_await operate<std::vector<JournalEntry>>(
        pool_, Repeatable::yes, [&](PgConnection& connection, bool) {
            return rowsOf<JournalEntry>(connection, pool, runId, journalOf(pool, runId), readEntry);
        });
}

Task<expected<std::vector<RunInput>, DurableError>> PostgresRunStore::inputs(std::string runId) {
    const Pool& pool = *pool_;
    co_return co_await operate<std::vector<RunInput>>(
        pool_, Repeatable::yes, [&](PgConnection& connection, bool) {
            return rowsOf<RunInput>(connection, pool, runId, inputsOf(pool, runId), readInput);
        });
}

Task<expected<std::vector<RunRecord>, DurableError>> PostgresRunStore::list(RunFilter filter) {
    if (auto checked = detail::checkFilter(filter); !checked) {
        co_return unexpected(checked.error());
    }
    const Pool& pool = *pool_;
    co_return co_await operate<std::vector<RunRecord>>(
        pool_, Repeatable::yes,
        [&](PgConnection& connection, bool) { return listOn(connection, pool, filter); });
}

}  // namespace reagent::durable
