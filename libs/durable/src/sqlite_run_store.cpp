// The SQLite store's operations: each one transaction applying the rules (rules.hpp) to the rows it read,
// retried on the caller's timers while other connections hold the write lock.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <optional>

#include "reagent/core/cancellation.hpp"
#include "rules.hpp"
#include "sqlite_db.hpp"

namespace reagent::durable {

namespace {

namespace asio = boost::asio;
using nlohmann::json;
using Db = SqliteRunStore::Db;

constexpr const char* kRunColumns =
    "id, input, status, epoch, owner, lease_until, attempts, cancel_requested, outcome, created, updated";

expected<RunRecord, DurableError> readRun(const Db& db, const Statement& row) {
    RunRecord run;
    run.id = row.text(0);
    auto input = row.json(1);
    const auto status = runStatusNamed(row.text(2));
    auto outcome = row.json(8);
    if (!input || !outcome) {
        return unexpected(!input ? input.error() : outcome.error());
    }
    if (!status) {
        return unexpected(DurableError{DurableErrc::storage_error, "run store '" + db.path + "' holds run '" +
                                                                       run.id + "' in an unknown status '" +
                                                                       row.text(2) + "'"});
    }
    run.input = std::move(*input);
    run.status = *status;
    run.epoch = row.integer(3);
    run.owner = row.text(4);
    run.leaseUntil = row.integer(5);
    run.attempts = row.integer(6);
    run.cancelRequested = row.integer(7) != 0;
    run.outcome = std::move(*outcome);
    run.created = row.integer(9);
    run.updated = row.integer(10);
    return run;
}

// The run `runId`; `not_found` when there is none.
expected<RunRecord, DurableError> loadRun(const Db& db, const std::string& runId) {
    auto select = Statement::prepare(db, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?"));
    if (!select) {
        return unexpected(select.error());
    }
    select->bind(1, runId);
    auto row = select->step("could not read a run");
    if (!row) {
        return unexpected(row.error());
    }
    if (!*row) {
        return unexpected(detail::notFound(runId));
    }
    return readRun(db, *select);
}

expected<void, DurableError> saveRun(const Db& db, const RunRecord& run) {
    auto update =
        Statement::prepare(db,
                           "UPDATE runs SET status = ?, epoch = ?, owner = ?, lease_until = ?, "
                           "attempts = ?, cancel_requested = ?, outcome = ?, updated = ? WHERE id = ?");
    if (!update) {
        return unexpected(update.error());
    }
    update->bind(1, toString(run.status))
        .bind(2, run.epoch)
        .bind(3, run.owner)
        .bind(4, run.leaseUntil)
        .bind(5, run.attempts)
        .bind(6, std::int64_t{run.cancelRequested ? 1 : 0});
    if (run.outcome.is_null()) {
        update->bindNull(7);
    } else {
        update->bindJson(7, run.outcome);
    }
    update->bind(8, run.updated).bind(9, run.id);
    return update->run("could not update a run");
}

expected<JournalEntry, DurableError> readEntry(const Db& /*db*/, const Statement& row) {
    auto payload = row.json(3);
    if (!payload) {
        return unexpected(payload.error());
    }
    return JournalEntry{row.integer(0),      row.text(1),    row.text(2),
                        std::move(*payload), row.integer(4), row.integer(5)};
}

expected<RunInput, DurableError> readInput(const Db& db, const Statement& row) {
    auto payload = row.json(3);
    const auto kind = inputKindNamed(row.text(1));
    if (!payload) {
        return unexpected(payload.error());
    }
    if (!kind) {
        return unexpected(
            DurableError{DurableErrc::storage_error,
                         "run store '" + db.path + "' holds an input of unknown kind '" + row.text(1) + "'"});
    }
    return RunInput{row.integer(0), *kind, row.text(2), std::move(*payload), row.integer(4)};
}

// Every row of `select`, each read by `read`.
template <class Row>
expected<std::vector<Row>, DurableError> collect(const Db& db, Statement& select, std::string_view what,
                                                 expected<Row, DurableError> (*read)(const Db&,
                                                                                     const Statement&)) {
    std::vector<Row> rows;
    for (;;) {
        auto row = select.step(what);
        if (!row) {
            return unexpected(row.error());
        }
        if (!*row) {
            return rows;
        }
        auto value = read(db, select);
        if (!value) {
            return unexpected(value.error());
        }
        rows.push_back(std::move(*value));
    }
}

constexpr const char* kEntryColumns = "seq, step, kind, payload, epoch, created";

expected<std::vector<JournalEntry>, DurableError> loadJournal(const Db& db, const std::string& runId) {
    auto select = Statement::prepare(
        db, (std::string("SELECT ") + kEntryColumns + " FROM journal WHERE run_id = ? ORDER BY seq"));
    if (!select) {
        return unexpected(select.error());
    }
    select->bind(1, runId);
    return collect<JournalEntry>(db, *select, "could not read a journal", readEntry);
}

expected<std::vector<RunInput>, DurableError> loadInputs(const Db& db, const std::string& runId) {
    auto select = Statement::prepare(
        db, "SELECT seq, kind, call_id, payload, created FROM inputs WHERE run_id = ? ORDER BY seq");
    if (!select) {
        return unexpected(select.error());
    }
    select->bind(1, runId);
    return collect<RunInput>(db, *select, "could not read a run's inputs", readInput);
}

expected<std::int64_t, DurableError> lastSeq(const Db& db, const char* sql, const std::string& runId) {
    auto select = Statement::prepare(db, sql);
    if (!select) {
        return unexpected(select.error());
    }
    select->bind(1, runId);
    auto row = select->step("could not read a sequence number");
    if (!row) {
        return unexpected(row.error());
    }
    return *row ? select->integer(0) : 0;
}

// The run `lease` names, if the lease may still write to it.
expected<RunRecord, DurableError> heldRun(const Db& db, const Lease& lease) {
    auto run = loadRun(db, lease.runId);
    if (!run) {
        return run;
    }
    if (auto fenced = detail::fenced(*run, lease); !fenced) {
        return unexpected(fenced.error());
    }
    return run;
}

// The usual append in one statement, its own transaction: the lease's fence in its WHERE, the step's number
// counted in it. None: it wrote nothing (the step is journaled already, or the lease is not held).
expected<std::optional<JournalEntry>, DurableError> appendHeld(const Db& db, const Lease& lease,
                                                               JournalEntry& entry) {
    static const std::string kAppend =
        "INSERT INTO journal (run_id, seq, step, kind, payload, epoch, created) "
        "SELECT id, (SELECT coalesce(max(seq), 0) + 1 FROM journal WHERE run_id = ?1), ?2, ?3, ?4, epoch, ?5 "
        "FROM runs WHERE id = ?1 AND epoch = ?6 AND owner = ?7 AND status = 'running' "
        "ON CONFLICT (run_id, step) DO NOTHING RETURNING seq";
    auto insert = Statement::prepare(db, kAppend);
    if (!insert) {
        return unexpected(insert.error());
    }
    const Millis created = db.options.clock();
    insert->bind(1, lease.runId)
        .bind(2, entry.step)
        .bind(3, entry.kind)
        .bindJson(4, entry.payload)
        .bind(5, created)
        .bind(6, lease.epoch)
        .bind(7, lease.worker);
    auto row = insert->step("could not journal a step");
    if (!row) {
        return unexpected(row.error());
    }
    if (!*row) {
        return std::optional<JournalEntry>{};
    }
    const std::int64_t seq = insert->integer(0);
    if (auto done = insert->run("could not journal a step"); !done) {  // the statement commits as it ends
        return unexpected(done.error());
    }
    // Written: the entry is not needed for an explanation, and is returned as stored.
    JournalEntry stored = std::move(entry);
    stored.seq = seq;
    stored.epoch = lease.epoch;
    stored.created = created;
    return std::optional<JournalEntry>{std::move(stored)};
}

// Runs `attempt` under the connection's mutex, again after a pause while another connection holds the lock
// (1 ms, doubling to 50 ms, for `lockWait` in all), on timers of the caller's executor. Callers name
// `attempt` before awaiting: GCC 12 destroys twice a temporary std::function made in an awaited call.
template <class T>
Task<expected<T, DurableError>> operate(std::shared_ptr<Db> db,
                                        std::function<expected<T, DurableError>(Db&)> attempt) {
    std::chrono::milliseconds waited{0};
    std::chrono::milliseconds pause{1};
    for (;;) {
        expected<T, DurableError> outcome = [&] {
            const std::lock_guard lock(db->mutex);
            return attempt(*db);
        }();
        if (outcome || outcome.error().code != DurableErrc::busy || waited >= db->options.lockWait) {
            co_return outcome;
        }
        asio::steady_timer timer(co_await asio::this_coro::executor, pause);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return unexpected(DurableError{DurableErrc::cancelled,
                                              "cancelled while run store '" + db->path + "' was locked"});
        }
        waited += pause;
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
}

}  // namespace

Task<expected<Submitted, DurableError>> SqliteRunStore::submit(Submission submission) {
    if (auto checked = detail::checkSubmission(submission); !checked) {
        co_return unexpected(checked.error());
    }
    std::string id = submission.id.empty() ? detail::newRunId() : submission.id;
    std::function<expected<Submitted, DurableError>(Db&)> attempt = [submission = std::move(submission),
                                                                     id = std::move(id)](Db& db) {
        return inTransaction(db, [&]() -> expected<Submitted, DurableError> {
            auto existing = loadRun(db, id);
            if (existing) {
                return detail::resubmitted(std::move(*existing), submission);
            }
            if (existing.error().code != DurableErrc::not_found) {
                return unexpected(existing.error());
            }
            RunRecord run = detail::submittedRun(submission, id, db.options.clock());
            auto insert = Statement::prepare(db,
                                             "INSERT INTO runs (id, input, status, created, updated) "
                                             "VALUES (?, ?, ?, ?, ?)");
            if (!insert) {
                return unexpected(insert.error());
            }
            insert->bind(1, run.id)
                .bindJson(2, run.input)
                .bind(3, toString(run.status))
                .bind(4, run.created)
                .bind(5, run.updated);
            if (auto inserted = insert->run("could not submit a run"); !inserted) {
                return unexpected(inserted.error());
            }
            return Submitted{std::move(run), true};
        });
    };
    co_return co_await operate<Submitted>(db_, std::move(attempt));
}

Task<expected<std::optional<Claimed>, DurableError>> SqliteRunStore::claim(
    std::string worker, std::chrono::milliseconds leaseFor) {
    if (auto checked = detail::checkLeaseRequest(worker, leaseFor); !checked) {
        co_return unexpected(checked.error());
    }
    std::function<expected<std::optional<Claimed>, DurableError>(Db&)> attempt = [worker = std::move(worker),
                                                                                  leaseFor](Db& db) {
        return inTransaction(db, [&]() -> expected<std::optional<Claimed>, DurableError> {
            const Millis now = db.options.clock();
            auto select = Statement::prepare(
                db, (std::string("SELECT ") + kRunColumns +
                     " FROM runs WHERE status = 'queued' OR (status = 'running' AND lease_until < ?) "
                     "ORDER BY created, id LIMIT 1"));
            if (!select) {
                return unexpected(select.error());
            }
            select->bind(1, now);
            auto row = select->step("could not look for a run to claim");
            if (!row) {
                return unexpected(row.error());
            }
            if (!*row) {
                return std::optional<Claimed>{};
            }
            auto run = readRun(db, *select);
            if (!run) {
                return unexpected(run.error());
            }
            Lease lease = detail::claimInto(*run, worker, leaseFor, now);
            auto saved = saveRun(db, *run);
            auto journal = loadJournal(db, run->id);
            auto inputs = loadInputs(db, run->id);
            if (!saved || !journal || !inputs) {
                return unexpected(!saved ? saved.error() : !journal ? journal.error() : inputs.error());
            }
            return std::optional<Claimed>{
                Claimed{std::move(lease), std::move(*run), std::move(*journal), std::move(*inputs)}};
        });
    };
    co_return co_await operate<std::optional<Claimed>>(db_, std::move(attempt));
}

Task<expected<Renewal, DurableError>> SqliteRunStore::renew(Lease lease, std::chrono::milliseconds leaseFor) {
    if (auto checked = detail::checkLeaseRequest(lease.worker, leaseFor); !checked) {
        co_return unexpected(checked.error());
    }
    std::function<expected<Renewal, DurableError>(Db&)> attempt = [lease = std::move(lease),
                                                                   leaseFor](Db& db) {
        return inTransaction(db, [&]() -> expected<Renewal, DurableError> {
            auto run = heldRun(db, lease);
            if (!run) {
                return unexpected(run.error());
            }
            Renewal renewal = detail::renewInto(*run, lease, leaseFor, db.options.clock());
            if (auto saved = saveRun(db, *run); !saved) {
                return unexpected(saved.error());
            }
            return renewal;
        });
    };
    co_return co_await operate<Renewal>(db_, std::move(attempt));
}

Task<expected<JournalEntry, DurableError>> SqliteRunStore::append(Lease lease, JournalEntry entry) {
    if (auto checked = detail::checkEntry(entry); !checked) {
        co_return unexpected(checked.error());
    }
    std::function<expected<JournalEntry, DurableError>(Db&)> attempt = [lease = std::move(lease),
                                                                        entry = std::move(entry)](
                                                                           Db& db) mutable {
        auto appended = appendHeld(db, lease, entry);
        if (!appended) {
            return expected<JournalEntry, DurableError>(unexpected(std::move(appended.error())));
        }
        if (*appended) {
            return expected<JournalEntry, DurableError>(std::move(**appended));
        }
        // Nothing written: the step is there already, or the lease is lost; the rules say which.
        return inTransaction(db, [&]() -> expected<JournalEntry, DurableError> {
            if (auto run = heldRun(db, lease); !run) {
                return unexpected(run.error());
            }
            auto there = Statement::prepare(
                db, (std::string("SELECT ") + kEntryColumns + " FROM journal WHERE run_id = ? AND step = ?"));
            if (!there) {
                return unexpected(there.error());
            }
            there->bind(1, lease.runId).bind(2, entry.step);
            auto row = there->step("could not read a journal");
            if (!row) {
                return unexpected(row.error());
            }
            if (*row) {
                return readEntry(db, *there);
            }
            auto last = lastSeq(db, "SELECT max(seq) FROM journal WHERE run_id = ?", lease.runId);
            if (!last) {
                return unexpected(last.error());
            }
            JournalEntry stored = entry;
            stored.seq = *last + 1;
            stored.epoch = lease.epoch;
            stored.created = db.options.clock();
            auto insert = Statement::prepare(db,
                                             "INSERT INTO journal (run_id, seq, step, kind, payload, epoch, "
                                             "created) VALUES (?, ?, ?, ?, ?, ?, ?)");
            if (!insert) {
                return unexpected(insert.error());
            }
            insert->bind(1, lease.runId)
                .bind(2, stored.seq)
                .bind(3, stored.step)
                .bind(4, stored.kind)
                .bindJson(5, stored.payload)
                .bind(6, stored.epoch)
                .bind(7, stored.created);
            if (auto inserted = insert->run("could not journal a step"); !inserted) {
                return unexpected(inserted.error());
            }
            return stored;
        });
    };
    co_return co_await operate<JournalEntry>(db_, std::move(attempt));
}

Task<expected<RunRecord, DurableError>> SqliteRunStore::finish(Lease lease, Finish finish) {
    if (auto checked = detail::checkFinish(finish); !checked) {
        co_return unexpected(checked.error());
    }
    std::function<expected<RunRecord, DurableError>(Db&)> attempt = [lease = std::move(lease),
                                                                     finish = std::move(finish)](Db& db) {
        return inTransaction(db, [&]() -> expected<RunRecord, DurableError> {
            auto run = heldRun(db, lease);
            if (!run) {
                return run;
            }
            auto last = lastSeq(db, "SELECT max(seq) FROM inputs WHERE run_id = ?", lease.runId);
            if (!last) {
                return unexpected(last.error());
            }
            detail::finishInto(*run, finish, *last, db.options.clock());
            if (auto saved = saveRun(db, *run); !saved) {
                return unexpected(saved.error());
            }
            return run;
        });
    };
    co_return co_await operate<RunRecord>(db_, std::move(attempt));
}

Task<expected<RunInput, DurableError>> SqliteRunStore::addInput(std::string runId, RunInput input) {
    if (auto checked = detail::checkInput(input); !checked) {
        co_return unexpected(checked.error());
    }
    std::function<expected<RunInput, DurableError>(Db&)> attempt = [runId = std::move(runId),
                                                                    input = std::move(input)](Db& db) {
        return inTransaction(db, [&]() -> expected<RunInput, DurableError> {
            auto run = loadRun(db, runId);
            if (!run) {
                return unexpected(run.error());
            }
            const Millis now = db.options.clock();
            if (auto applied = detail::inputInto(*run, input.kind, now); !applied) {
                return unexpected(applied.error());
            }
            auto last = lastSeq(db, "SELECT max(seq) FROM inputs WHERE run_id = ?", runId);
            if (!last) {
                return unexpected(last.error());
            }
            RunInput stored = input;
            stored.seq = *last + 1;
            stored.created = now;
            auto insert = Statement::prepare(db,
                                             "INSERT INTO inputs (run_id, seq, kind, call_id, payload, "
                                             "created) VALUES (?, ?, ?, ?, ?, ?)");
            if (!insert) {
                return unexpected(insert.error());
            }
            insert->bind(1, runId)
                .bind(2, stored.seq)
                .bind(3, toString(stored.kind))
                .bind(4, stored.callId)
                .bindJson(5, stored.payload)
                .bind(6, stored.created);
            if (auto inserted = insert->run("could not add an input"); !inserted) {
                return unexpected(inserted.error());
            }
            if (auto saved = saveRun(db, *run); !saved) {
                return unexpected(saved.error());
            }
            return stored;
        });
    };
    co_return co_await operate<RunInput>(db_, std::move(attempt));
}

Task<expected<RunRecord, DurableError>> SqliteRunStore::run(std::string runId) {
    std::function<expected<RunRecord, DurableError>(Db&)> attempt = [runId = std::move(runId)](Db& db) {
        return loadRun(db, runId);
    };
    co_return co_await operate<RunRecord>(db_, std::move(attempt));
}

Task<expected<std::vector<JournalEntry>, DurableError>> SqliteRunStore::journal(std::string runId) {
    std::function<expected<std::vector<JournalEntry>, DurableError>(Db&)> attempt =
        [runId = std::move(runId)](Db& db) {
            return inTransaction(
                db,
                [&]() -> expected<std::vector<JournalEntry>, DurableError> {
                    if (auto run = loadRun(db, runId); !run) {
                        return unexpected(run.error());
                    }
                    return loadJournal(db, runId);
                },
                "BEGIN");
        };
    co_return co_await operate<std::vector<JournalEntry>>(db_, std::move(attempt));
}

Task<expected<std::vector<RunInput>, DurableError>> SqliteRunStore::inputs(std::string runId) {
    std::function<expected<std::vector<RunInput>, DurableError>(Db&)> attempt =
        [runId = std::move(runId)](Db& db) {
            return inTransaction(
                db,
                [&]() -> expected<std::vector<RunInput>, DurableError> {
                    if (auto run = loadRun(db, runId); !run) {
                        return unexpected(run.error());
                    }
                    return loadInputs(db, runId);
                },
                "BEGIN");
        };
    co_return co_await operate<std::vector<RunInput>>(db_, std::move(attempt));
}

Task<expected<std::vector<RunRecord>, DurableError>> SqliteRunStore::list(RunFilter filter) {
    if (auto checked = detail::checkFilter(filter); !checked) {
        co_return unexpected(checked.error());
    }
    std::function<expected<std::vector<RunRecord>, DurableError>(Db&)> attempt =
        [filter](Db& db) -> expected<std::vector<RunRecord>, DurableError> {
        std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs";
        if (filter.status) {
            sql += " WHERE status = ?";
        }
        sql += " ORDER BY created DESC, id DESC LIMIT ?";
        auto select = Statement::prepare(db, sql);
        if (!select) {
            return unexpected(select.error());
        }
        int next = 1;
        if (filter.status) {
            select->bind(next++, toString(*filter.status));
        }
        select->bind(next, static_cast<std::int64_t>(std::min<std::size_t>(filter.limit, INT64_MAX)));
        return collect<RunRecord>(db, *select, "could not list runs", readRun);
    };
    co_return co_await operate<std::vector<RunRecord>>(db_, std::move(attempt));
}

}  // namespace reagent::durable
