// What only the PostgreSQL store does, against the private cluster ctest starts: its schema versioned and
// refused when newer or not ours; errors that name the database without its password; connections lost and
// opened again; claims by several stores at once, none taken twice; LISTEN waking an idle worker; a locked
// run failing `busy` after the lock wait; an operation cancelled, the store usable after it.

#include "reagent/durable/postgres_run_store.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "postgres_cluster.hpp"
#include "reagent/core/timeout.hpp"
#include "run_coro.hpp"

namespace durable = reagent::durable;
using durable::DurableErrc;
using durable::RunStatus;
using nlohmann::json;
using reagent::test::postgresExec;
using reagent::test::postgresTestUrl;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<durable::PostgresRunStore> openStore(const std::string& schema, std::string url = "",
                                                     std::size_t connections = 4) {
    durable::PostgresOptions options;
    options.schema = schema;
    options.connections = connections;
    options.lockWait = 300ms;
    auto opened = runCoro(durable::PostgresRunStore::open(url.empty() ? postgresTestUrl() : url, options));
    REQUIRE(opened);
    return *opened;
}

durable::Submission prompt(std::string id) {
    return durable::Submission{std::move(id), json{{"prompt", "hello"}}};
}

durable::JournalEntry modelStep(std::string name) {
    durable::JournalEntry entry;
    entry.step = std::move(name);
    entry.kind = "model_reply";
    entry.payload = json{{"reply", "r"}};
    return entry;
}

// The URL with an application name, so that a test can find its store's connections on the server.
std::string namedUrl(const std::string& name) {
    return postgresTestUrl() + "?application_name=" + name;
}

// Ends the sessions of `applicationName` from the server's side, and waits until they are gone.
void terminateConnections(const std::string& applicationName) {
    const std::string where = " FROM pg_stat_activity WHERE application_name = '" + applicationName + "'";
    postgresExec("SELECT count(pg_terminate_backend(pid))" + where);
    for (int i = 0; i < 200 && postgresExec("SELECT count(*)" + where) != "0"; ++i) {
        std::this_thread::sleep_for(10ms);
    }
}

}  // namespace

TEST_CASE("postgres run store: a schema of a newer version, or of another application, is refused unchanged",
          "[durable][postgres]") {
    const std::string schema = reagent::test::uniqueSchema();
    openStore(schema);
    CHECK(postgresExec("SELECT version FROM " + schema + ".store") == "1");

    postgresExec("UPDATE " + schema + ".store SET version = 99");
    durable::PostgresOptions options;
    options.schema = schema;
    auto newer = runCoro(durable::PostgresRunStore::open(postgresTestUrl(), options));
    REQUIRE_FALSE(newer);
    CHECK(newer.error().code == DurableErrc::schema_too_new);
    CHECK_THAT(newer.error().message, Catch::Contains("version 99") && Catch::Contains("newer"));
    CHECK(postgresExec("SELECT version FROM " + schema + ".store") == "99");

    const std::string theirs = reagent::test::uniqueSchema();
    postgresExec("CREATE SCHEMA " + theirs + "; CREATE TABLE " + theirs + ".orders (id int)");
    options.schema = theirs;
    auto other = runCoro(durable::PostgresRunStore::open(postgresTestUrl(), options));
    REQUIRE_FALSE(other);
    CHECK(other.error().code == DurableErrc::not_a_store);
    CHECK(postgresExec("SELECT count(*) FROM pg_tables WHERE schemaname = '" + theirs + "'") == "1");

    // Several processes opening a new store at once: one creates it, the others find it made.
    const std::string fresh = reagent::test::uniqueSchema();
    boost::asio::io_context io;
    options.schema = fresh;
    std::vector<
        std::future<reagent::expected<std::shared_ptr<durable::PostgresRunStore>, durable::DurableError>>>
        opening;
    for (int i = 0; i < 4; ++i) {
        opening.push_back(boost::asio::co_spawn(
            io, durable::PostgresRunStore::open(postgresTestUrl(), options), boost::asio::use_future));
    }
    io.run();
    for (auto& opened : opening) {
        CHECK(opened.get());
    }
}

TEST_CASE(
    "postgres run store: options out of range and unreachable servers fail clearly, without the password",
    "[durable][postgres]") {
    durable::PostgresOptions options;
    options.schema = "Bad-Name";
    auto badSchema = runCoro(durable::PostgresRunStore::open(postgresTestUrl(), options));
    REQUIRE_FALSE(badSchema);
    CHECK(badSchema.error().code == DurableErrc::invalid_input);
    options.schema = "reagent";
    options.connections = 0;
    auto noConnections = runCoro(durable::PostgresRunStore::open(postgresTestUrl(), options));
    REQUIRE_FALSE(noConnections);
    CHECK(noConnections.error().code == DurableErrc::invalid_input);

    // Port 1 of the loopback: nothing listens there.
    options.connections = 1;
    auto unreachable =
        runCoro(durable::PostgresRunStore::open("postgresql://someone:hunter2@127.0.0.1:1/runs", options));
    REQUIRE_FALSE(unreachable);
    CHECK(unreachable.error().code == DurableErrc::storage_error);
    CHECK_THAT(unreachable.error().message, Catch::Contains("postgresql://someone@127.0.0.1:1/runs"));
    CHECK_THAT(unreachable.error().message, !Catch::Contains("hunter2"));
}

TEST_CASE("postgres run store: a connection the server drops is opened again, and the run goes on",
          "[durable][postgres]") {
    const std::string schema = reagent::test::uniqueSchema();
    const std::string name = "reagent_" + schema;
    auto store = openStore(schema, namedUrl(name), 1);
    REQUIRE(runCoro(store->submit(prompt("run-1"))));
    auto claimed = runCoro(store->claim("w1", 30s));
    REQUIRE(claimed);
    REQUIRE(*claimed);
    const durable::Lease lease = (*claimed)->lease;

    terminateConnections(name);
    auto first = runCoro(store->append(lease, modelStep("model:1")));
    REQUIRE(first);
    CHECK(first->seq == 1);

    terminateConnections(name);
    CHECK(runCoro(store->renew(lease, 30s)));
    terminateConnections(name);
    durable::RunInput decision;
    decision.kind = durable::InputKind::decision;
    decision.callId = "call-1";
    decision.payload = json{{"approved", true}};
    CHECK(runCoro(store->addInput("run-1", decision)));
    terminateConnections(name);
    auto finished =
        runCoro(store->finish(lease, durable::Finish{RunStatus::completed, json{{"output", "hi"}}}));
    REQUIRE(finished);
    CHECK(finished->status == RunStatus::completed);

    auto journal = runCoro(store->journal("run-1"));
    REQUIRE(journal);
    CHECK(journal->size() == 1);
}

TEST_CASE("postgres run store: stores claiming at once never take one run twice", "[durable][postgres]") {
    const std::string schema = reagent::test::uniqueSchema();
    auto submitter = openStore(schema);
    constexpr int kRuns = 30;
    for (int i = 0; i < kRuns; ++i) {
        REQUIRE(runCoro(submitter->submit(prompt("run-" + std::to_string(i)))));
    }
    std::vector<std::shared_ptr<durable::PostgresRunStore>> stores;
    for (int i = 0; i < 3; ++i) {
        stores.push_back(openStore(schema));
    }
    boost::asio::io_context io;
    std::vector<std::string> taken;
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < stores.size(); ++i) {
        boost::asio::co_spawn(
            io,
            [](std::shared_ptr<durable::PostgresRunStore> store, std::string worker,
               std::vector<std::string>* taken, std::vector<std::string>* problems) -> reagent::Task<void> {
                for (;;) {
                    auto claimed = co_await store->claim(worker, 30s);
                    if (!claimed) {
                        problems->push_back(claimed.error().describe());
                        co_return;
                    }
                    if (!*claimed) {
                        co_return;
                    }
                    taken->push_back((*claimed)->run.id);
                }
            }(stores[i], "w" + std::to_string(i), &taken, &problems),
            boost::asio::detached);
    }
    io.run();
    CHECK(problems.empty());
    CHECK(taken.size() == kRuns);
    CHECK(std::set<std::string>(taken.begin(), taken.end()).size() == kRuns);
}

TEST_CASE("postgres run store: an idle worker's wait ends when a run is submitted", "[durable][postgres]") {
    const std::string schema = reagent::test::uniqueSchema();
    auto waiter = openStore(schema);
    auto submitter = openStore(schema);
    boost::asio::io_context io;
    std::chrono::steady_clock::time_point woke;
    const auto start = std::chrono::steady_clock::now();
    boost::asio::co_spawn(
        io,
        [&]() -> reagent::Task<void> {
            co_await waiter->waitForWork(20s);
            woke = std::chrono::steady_clock::now();
        },
        boost::asio::detached);
    boost::asio::co_spawn(
        io,
        [&]() -> reagent::Task<void> {
            co_await reagent::test::sleepFor(300ms);
            auto submitted = co_await submitter->submit(prompt("wake"));
            CHECK(submitted);
        },
        boost::asio::detached);
    io.run();
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(woke - start);
    CHECK(waited >= 250ms);
    CHECK(waited < 5s);
}

TEST_CASE(
    "postgres run store: a run locked elsewhere fails busy after the lock wait, and a cancelled operation "
    "leaves the store usable",
    "[durable][postgres]") {
    const std::string schema = reagent::test::uniqueSchema();
    auto store = openStore(schema, "", 1);
    REQUIRE(runCoro(store->submit(prompt("run-1"))));
    auto claimed = runCoro(store->claim("w1", 30s));
    REQUIRE(claimed);
    REQUIRE(*claimed);
    const durable::Lease lease = (*claimed)->lease;

    // Another session holds the run's row locked, in a transaction it keeps open.
    PGconn* holder = PQconnectdb(postgresTestUrl().c_str());
    REQUIRE(PQstatus(holder) == CONNECTION_OK);
    PGresult* locked =
        PQexec(holder, ("BEGIN; SELECT 1 FROM " + schema + ".runs WHERE id = 'run-1' FOR UPDATE").c_str());
    REQUIRE(PQresultStatus(locked) == PGRES_TUPLES_OK);
    PQclear(locked);

    const auto start = std::chrono::steady_clock::now();
    auto busy = runCoro(store->renew(lease, 30s));
    REQUIRE_FALSE(busy);
    CHECK(busy.error().code == DurableErrc::busy);
    CHECK(reagent::test::elapsedMs(start) >= 250);

    auto cut = runCoro(reagent::withTimeout(store->append(lease, modelStep("model:1")), 100ms));
    REQUIRE_FALSE(cut);
    CHECK(cut.error().code == reagent::EffectErrc::timeout);

    PQclear(PQexec(holder, "ROLLBACK"));
    PQfinish(holder);
    auto appended = runCoro(store->append(lease, modelStep("model:1")));
    REQUIRE(appended);
    CHECK(appended->seq == 1);
    auto journal = runCoro(store->journal("run-1"));
    REQUIRE(journal);
    CHECK(journal->size() == 1);
}
