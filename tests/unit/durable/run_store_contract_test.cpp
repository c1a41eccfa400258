// The rules every RunStore keeps (docs/durable-runs.md), checked against each engine: in memory, SQLite,
// and PostgreSQL (the private cluster ctest starts; a schema of its own for each case). The clock is the
// test's, moved on to expire leases.

#include <catch2/catch.hpp>
#include <memory>
#include <optional>

#include "postgres_cluster.hpp"
#include "reagent/durable/memory_run_store.hpp"
#include "reagent/durable/postgres_run_store.hpp"
#include "reagent/durable/sqlite_run_store.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace durable = reagent::durable;
using durable::DurableErrc;
using durable::RunStatus;
using nlohmann::json;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

struct MemoryEngine {
    std::shared_ptr<durable::Millis> now = std::make_shared<durable::Millis>(1'000'000);
    std::shared_ptr<durable::RunStore> store =
        std::make_shared<durable::MemoryRunStore>([now = now] { return *now; });
};

struct SqliteEngine {
    reagent::test::TempDir dir;
    std::shared_ptr<durable::Millis> now = std::make_shared<durable::Millis>(1'000'000);
    std::shared_ptr<durable::RunStore> store = open();

    std::shared_ptr<durable::RunStore> open() {
        durable::SqliteOptions options;
        options.clock = [now = now] { return *now; };
        auto opened = durable::SqliteRunStore::open(dir.file("runs.db"), options);
        REQUIRE(opened);
        return *opened;
    }
};

struct PostgresEngine {
    std::shared_ptr<durable::Millis> now = std::make_shared<durable::Millis>(1'000'000);
    std::shared_ptr<durable::RunStore> store = open();

    std::shared_ptr<durable::RunStore> open() {
        durable::PostgresOptions options;
        options.schema = reagent::test::uniqueSchema();
        options.clock = [now = now] { return *now; };
        auto opened = runCoro(durable::PostgresRunStore::open(reagent::test::postgresTestUrl(), options));
        REQUIRE(opened);
        return *opened;
    }
};

durable::Submission submission(std::string id, std::string prompt) {
    return durable::Submission{std::move(id), json{{"prompt", std::move(prompt)}}};
}

durable::JournalEntry step(std::string name, json payload = json::object()) {
    durable::JournalEntry entry;
    entry.step = std::move(name);
    entry.kind = "model_reply";
    entry.payload = std::move(payload);
    return entry;
}

durable::RunInput decision(std::string callId, bool approved) {
    durable::RunInput input;
    input.kind = durable::InputKind::decision;
    input.callId = std::move(callId);
    input.payload = json{{"approved", approved}};
    return input;
}

durable::RunInput cancellation() {
    durable::RunInput input;
    input.kind = durable::InputKind::cancel;
    return input;
}

}  // namespace

TEMPLATE_TEST_CASE("run store: submitting is idempotent by id, and refuses bad input", "[durable]",
                   MemoryEngine, SqliteEngine, PostgresEngine) {
    TestType engine;
    auto& store = *engine.store;
    auto first = runCoro(store.submit(submission("run-1", "hello")));
    REQUIRE(first);
    CHECK(first->created);
    CHECK(first->run.status == RunStatus::queued);
    CHECK(first->run.created == 1'000'000);
    auto again = runCoro(store.submit(submission("run-1", "hello")));
    REQUIRE(again);
    CHECK_FALSE(again->created);
    CHECK(again->run.id == "run-1");
    auto other = runCoro(store.submit(submission("run-1", "something else")));
    REQUIRE_FALSE(other);
    CHECK(other.error().code == DurableErrc::conflict);
    CHECK(runCoro(store.run("run-1"))->input == json{{"prompt", "hello"}});  // unchanged

    auto generated = runCoro(store.submit(submission("", "no id")));
    REQUIRE(generated);
    CHECK(generated->run.id.size() == 32);
    CHECK(generated->run.id.find_first_not_of("0123456789abcdef") == std::string::npos);

    auto notObject = runCoro(store.submit(durable::Submission{"run-2", json::array()}));
    REQUIRE_FALSE(notObject);
    CHECK(notObject.error().code == DurableErrc::invalid_input);
    auto longId = runCoro(store.submit(submission(std::string(129, 'x'), "x")));
    REQUIRE_FALSE(longId);
    CHECK(longId.error().code == DurableErrc::invalid_input);
    auto missing = runCoro(store.run("nope"));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == DurableErrc::not_found);
    CHECK(runCoro(store.journal("nope")).error().code == DurableErrc::not_found);
    CHECK(runCoro(store.inputs("nope")).error().code == DurableErrc::not_found);
}

TEMPLATE_TEST_CASE(
    "run store: a claim takes the oldest run, and a lease that expired is taken over and fenced", "[durable]",
    MemoryEngine, SqliteEngine, PostgresEngine) {
    TestType engine;
    auto& store = *engine.store;
    REQUIRE(runCoro(store.submit(submission("older", "a"))));
    *engine.now += 10;
    REQUIRE(runCoro(store.submit(submission("newer", "b"))));

    auto first = runCoro(store.claim("worker-a", 30s));
    REQUIRE(first);
    REQUIRE(first->has_value());
    const durable::Lease leaseA = (*first)->lease;
    CHECK(leaseA.runId == "older");
    CHECK(leaseA.epoch == 1);
    CHECK(leaseA.until == *engine.now + 30'000);
    CHECK((*first)->run.status == RunStatus::running);
    CHECK((*first)->run.attempts == 1);
    REQUIRE(runCoro(store.append(leaseA, step("model:1", json{{"text", "first"}}))));

    auto second = runCoro(store.claim("worker-b", 30s));
    REQUIRE(second);
    REQUIRE(second->has_value());
    CHECK((*second)->lease.runId == "newer");
    auto none = runCoro(store.claim("worker-c", 30s));
    REQUIRE(none);
    CHECK_FALSE(none->has_value());

    // worker-a stalls past its lease: worker-c takes the run over, with what worker-a journaled.
    *engine.now += 30'001;
    auto renewedB = runCoro(store.renew((*second)->lease, 30s));  // b renews late, before anyone claims
    REQUIRE(renewedB);
    auto takeover = runCoro(store.claim("worker-c", 30s));
    REQUIRE(takeover);
    REQUIRE(takeover->has_value());
    const durable::Lease leaseC = (*takeover)->lease;
    CHECK(leaseC.runId == "older");
    CHECK(leaseC.epoch == 2);
    CHECK((*takeover)->run.attempts == 2);
    REQUIRE((*takeover)->journal.size() == 1);
    CHECK((*takeover)->journal[0].payload == json{{"text", "first"}});

    // The stale worker's writes are refused, and change nothing.
    auto stale = runCoro(store.append(leaseA, step("model:2")));
    REQUIRE_FALSE(stale);
    CHECK(stale.error().code == DurableErrc::lease_lost);
    CHECK(runCoro(store.renew(leaseA, 30s)).error().code == DurableErrc::lease_lost);
    CHECK(runCoro(store.finish(leaseA, durable::Finish{})).error().code == DurableErrc::lease_lost);
    CHECK(runCoro(store.journal("older"))->size() == 1);

    auto appended = runCoro(store.append(leaseC, step("model:2")));
    REQUIRE(appended);
    CHECK(appended->seq == 2);
    CHECK(appended->epoch == 2);
    auto finished =
        runCoro(store.finish(leaseC, durable::Finish{RunStatus::completed, json{{"answer", 42}}}));
    REQUIRE(finished);
    CHECK(finished->status == RunStatus::completed);
    CHECK(finished->leaseUntil == 0);
    CHECK(runCoro(store.run("older"))->outcome == json{{"answer", 42}});

    auto bad = runCoro(store.claim("", 30s));
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == DurableErrc::invalid_input);
    CHECK(runCoro(store.claim("w", 0ms)).error().code == DurableErrc::invalid_input);
}

TEMPLATE_TEST_CASE("run store: a step journaled twice is kept once, and a finished run takes no more writes",
                   "[durable]", MemoryEngine, SqliteEngine, PostgresEngine) {
    TestType engine;
    auto& store = *engine.store;
    REQUIRE(runCoro(store.submit(submission("r", "x"))));
    const auto lease = (*runCoro(store.claim("w", 10s)))->lease;
    auto once = runCoro(store.append(lease, step("tool:1:call_1", json{{"ok", "done"}})));
    REQUIRE(once);
    auto twice = runCoro(store.append(lease, step("tool:1:call_1", json{{"ok", "other"}})));
    REQUIRE(twice);
    CHECK(twice->seq == once->seq);
    CHECK(twice->payload == json{{"ok", "done"}});  // what was journaled first stays
    CHECK(runCoro(store.journal("r"))->size() == 1);
    CHECK(runCoro(store.append(lease, step(""))).error().code == DurableErrc::invalid_input);
    auto noKind = step("k");
    noKind.kind.clear();
    CHECK(runCoro(store.append(lease, noKind)).error().code == DurableErrc::invalid_input);

    CHECK(runCoro(store.finish(lease, durable::Finish{RunStatus::running})).error().code ==
          DurableErrc::invalid_input);
    REQUIRE(runCoro(store.finish(lease, durable::Finish{RunStatus::failed, json{{"error", "boom"}}})));
    // Exactly once: the outcome is not written again, the run is not claimed again, and takes no input.
    CHECK(runCoro(store.finish(lease, durable::Finish{})).error().code == DurableErrc::lease_lost);
    CHECK(runCoro(store.append(lease, step("late"))).error().code == DurableErrc::lease_lost);
    CHECK_FALSE(runCoro(store.claim("w", 10s))->has_value());
    CHECK(runCoro(store.addInput("r", cancellation())).error().code == DurableErrc::conflict);
    CHECK(runCoro(store.run("r"))->status == RunStatus::failed);
}

TEMPLATE_TEST_CASE("run store: a waiting run is queued again by an input, and none is missed", "[durable]",
                   MemoryEngine, SqliteEngine, PostgresEngine) {
    TestType engine;
    auto& store = *engine.store;
    REQUIRE(runCoro(store.submit(submission("r", "x"))));
    auto lease = (*runCoro(store.claim("w", 10s)))->lease;
    auto paused =
        runCoro(store.finish(lease, durable::Finish{RunStatus::waiting, json{{"waitsFor", {"c1"}}}, 0}));
    REQUIRE(paused);
    CHECK(paused->status == RunStatus::waiting);
    CHECK_FALSE(runCoro(store.claim("w", 10s))->has_value());

    auto given = runCoro(store.addInput("r", decision("c1", true)));
    REQUIRE(given);
    CHECK(given->seq == 1);
    CHECK(runCoro(store.run("r"))->status == RunStatus::queued);
    auto resumed = runCoro(store.claim("w2", 10s));
    REQUIRE(resumed);
    REQUIRE(resumed->has_value());
    CHECK((*resumed)->lease.epoch == 2);
    REQUIRE((*resumed)->inputs.size() == 1);
    CHECK((*resumed)->inputs[0].callId == "c1");
    CHECK((*resumed)->inputs[0].payload == json{{"approved", true}});

    // An input that comes while the worker decides to wait again: the run is queued, not left waiting.
    REQUIRE(runCoro(store.addInput("r", decision("c2", false))));
    auto raced =
        runCoro(store.finish((*resumed)->lease, durable::Finish{RunStatus::waiting, json::object(), 1}));
    REQUIRE(raced);
    CHECK(raced->status == RunStatus::queued);

    auto noCall = decision("", true);
    CHECK(runCoro(store.addInput("r", noCall)).error().code == DurableErrc::invalid_input);
    CHECK(runCoro(store.addInput("missing", decision("c", true))).error().code == DurableErrc::not_found);
    CHECK(runCoro(store.inputs("r"))->size() == 2);
}

TEMPLATE_TEST_CASE("run store: a cancellation ends a queued run at once and asks a running one to stop",
                   "[durable]", MemoryEngine, SqliteEngine, PostgresEngine) {
    TestType engine;
    auto& store = *engine.store;
    REQUIRE(runCoro(store.submit(submission("queued", "x"))));
    REQUIRE(runCoro(store.addInput("queued", cancellation())));
    auto cancelled = runCoro(store.run("queued"));
    CHECK(cancelled->status == RunStatus::cancelled);
    CHECK(cancelled->outcome == json{{"cancelled", "while queued"}});

    *engine.now += 1;
    REQUIRE(runCoro(store.submit(submission("running", "x"))));
    auto lease = (*runCoro(store.claim("w", 10s)))->lease;
    auto renewed = runCoro(store.renew(lease, 10s));
    REQUIRE(renewed);
    CHECK_FALSE(renewed->cancelRequested);
    REQUIRE(runCoro(store.addInput("running", cancellation())));
    renewed = runCoro(store.renew(lease, 10s));
    REQUIRE(renewed);
    CHECK(renewed->cancelRequested);
    CHECK(runCoro(store.run("running"))->status == RunStatus::running);
    REQUIRE(runCoro(store.finish(lease, durable::Finish{RunStatus::cancelled})));
    CHECK(runCoro(store.run("running"))->status == RunStatus::cancelled);
}

TEMPLATE_TEST_CASE("run store: runs are listed newest first, by status, up to a limit", "[durable]",
                   MemoryEngine, SqliteEngine, PostgresEngine) {
    TestType engine;
    auto& store = *engine.store;
    for (int i = 0; i < 5; ++i) {
        REQUIRE(runCoro(store.submit(submission("run-" + std::to_string(i), "x"))));
        *engine.now += 1;
    }
    REQUIRE(runCoro(store.claim("w", 10s)));  // run-0 runs
    auto all = runCoro(store.list(durable::RunFilter{}));
    REQUIRE(all);
    REQUIRE(all->size() == 5);
    CHECK(all->front().id == "run-4");
    CHECK(all->back().id == "run-0");
    auto queued = runCoro(store.list(durable::RunFilter{RunStatus::queued, 2}));
    REQUIRE(queued);
    REQUIRE(queued->size() == 2);
    CHECK((*queued)[0].id == "run-4");
    CHECK((*queued)[1].id == "run-3");
    auto running = runCoro(store.list(durable::RunFilter{RunStatus::running, 10}));
    REQUIRE(running->size() == 1);
    CHECK((*running)[0].id == "run-0");
    CHECK(runCoro(store.list(durable::RunFilter{std::nullopt, 0})).error().code ==
          DurableErrc::invalid_input);
}
