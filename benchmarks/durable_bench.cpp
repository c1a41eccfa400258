// Durable runs against the floor of their databases, measured in the same run:
// - a journal step: `RunStore::append` one after another on a claimed run, against a bare loop making the
//   same insert and commit (SQLite: a prepared INSERT between BEGIN IMMEDIATE and COMMIT; PostgreSQL: libpq's
//   PQexecParams of the INSERT, autocommitted: one round trip, one commit);
// - runs per second with 1, 2 and 4 workers (threads, each with its own io_context and store connection),
//   each run a scripted agent's tool call and answer (claim, three journal steps, finish), against bare
//   loops making the same five commits per run on as many threads.
// PostgreSQL is a private cluster started for the run (tests/peers/postgres/cluster.sh: fsync off, so the
// figures are round trips and server work, not the disk's). A plain program:
//   durable_bench [steps] [runs]     (defaults 2000 and 400)

#include <libpq-fe.h>
#include <sqlite3.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <reagent/reagent.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "reagent/durable/postgres_run_store.hpp"
#include "run_on.hpp"

using namespace reagent;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using bench::runOn;

namespace {

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// The private cluster, started for the run and stopped at its end.
class Cluster {
  public:
    explicit Cluster(std::filesystem::path dir) : state_((dir / "cluster.txt").string()) {
        if (std::system((script() + " start " + state_).c_str()) != 0) {
            throw std::runtime_error(
                "the PostgreSQL cluster did not start (scripts/setup.sh --tests installs it)");
        }
        std::ifstream in(state_);
        std::getline(in, url_);
    }
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;
    ~Cluster() { (void)std::system((script() + " stop " + state_).c_str()); }
    [[nodiscard]] const std::string& url() const { return url_; }

  private:
    static std::string script() { return std::string(REAGENT_PEERS_DIR) + "/postgres/cluster.sh"; }
    std::string state_;
    std::string url_;
};

// --- the floors ---

const char* kJournalTable =
    "CREATE TABLE IF NOT EXISTS journal (run_id text NOT NULL, seq int8 NOT NULL, step text NOT NULL, kind "
    "text NOT NULL, "
    "payload text NOT NULL, epoch int8 NOT NULL, created int8 NOT NULL, PRIMARY KEY (run_id, seq), "
    "UNIQUE (run_id, step))";

const std::string kPayload = json{{"reply",
                                   {{"text", "a model's reply of a typical length, with its usage"},
                                    {"usage", {{"inputTokens", 40}, {"outputTokens", 8}}}}}}
                                 .dump();

// `commits` inserts into SQLite at `path`, each in its own write transaction.
double bareSqlite(const std::string& path, const std::string& runId, int commits) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_exec(db, (std::string(kJournalTable) + " WITHOUT ROWID").c_str(), nullptr, nullptr, nullptr);
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO journal VALUES (?, ?, ?, 'model_reply', ?, 1, 0)", -1, &insert,
                       nullptr);
    const auto start = Clock::now();
    for (int i = 0; i < commits; ++i) {
        const std::string step = "model:" + std::to_string(i);
        sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        sqlite3_bind_text(insert, 1, runId.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 2, i + 1);
        sqlite3_bind_text(insert, 3, step.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 4, kPayload.c_str(), -1, SQLITE_STATIC);
        if (sqlite3_step(insert) != SQLITE_DONE) {
            throw std::runtime_error(sqlite3_errmsg(db));
        }
        sqlite3_reset(insert);
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    }
    const double spent = seconds(start);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return spent;
}

// `commits` autocommitted inserts through libpq into `schema`.
double barePostgres(const std::string& url, const std::string& schema, const std::string& runId,
                    int commits) {
    PGconn* conn = PQconnectdb(url.c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
        throw std::runtime_error(PQerrorMessage(conn));
    }
    if (commits == 0) {  // the setup, before the threads start
        PQclear(PQexec(conn, ("CREATE SCHEMA " + schema).c_str()));
    }
    PQclear(PQexec(conn, ("SET search_path = " + schema).c_str()));
    if (commits == 0) {
        PQclear(PQexec(conn, kJournalTable));
    }
    const auto start = Clock::now();
    for (int i = 0; i < commits; ++i) {
        const std::string seq = std::to_string(i + 1);
        const std::string step = "model:" + std::to_string(i);
        const char* values[] = {runId.c_str(), seq.c_str(), step.c_str(), kPayload.c_str()};
        PGresult* result =
            PQexecParams(conn, "INSERT INTO journal VALUES ($1, $2, $3, 'model_reply', $4, 1, 0)", 4, nullptr,
                         values, nullptr, nullptr, 0);
        if (PQresultStatus(result) != PGRES_COMMAND_OK) {
            throw std::runtime_error(PQresultErrorMessage(result));
        }
        PQclear(result);
    }
    const double spent = seconds(start);
    PQfinish(conn);
    return spent;
}

// --- reagent ---

using Opener = std::function<Task<std::shared_ptr<durable::RunStore>>()>;

// `steps` appends to one claimed run.
double reagentAppends(const Opener& open, const std::string& runId, int steps) {
    boost::asio::io_context io;
    return runOn(io, [](Opener open, std::string runId, int steps) -> Task<double> {
        auto store = co_await open();
        (void)co_await store->submit(durable::Submission{runId, json{{"prompt", "p"}}});
        auto claimed = co_await store->claim("bench", std::chrono::seconds(60));
        if (!claimed || !*claimed) {
            throw std::runtime_error("no run to claim");
        }
        const durable::Lease lease = (*claimed)->lease;
        const json payload = json::parse(kPayload);
        const auto start = Clock::now();
        for (int i = 0; i < steps; ++i) {
            durable::JournalEntry entry;
            entry.step = "model:" + std::to_string(i);
            entry.kind = "model_reply";
            entry.payload = payload;
            auto appended = co_await store->append(lease, std::move(entry));
            if (!appended) {
                throw std::runtime_error(appended.error().describe());
            }
        }
        const double spent = seconds(start);
        (void)co_await store->finish(lease, durable::Finish{durable::RunStatus::completed, json::object()});
        co_return spent;
    }(open, runId, steps));
}

agent::Agent scriptedAgent() {
    auto note = tools::ToolBuilder::create("note")
                    .description("Notes a fact")
                    .param("fact", "string", "The fact", {.required = true})
                    .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                        co_return args.value("fact", std::string());
                    })
                    .build();
    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::toolCall("note", json{{"fact", "noted"}}))
        .then(llm::ScriptedTurn::text("done"))
        .loop(true);
    return agent::Agent::create()
        .withProvider(model)
        .withTools(agent::ToolsConfig{})
        .withTool(std::move(note).value())
        .build()
        .value();
}

// `runs` runs submitted, then worked on by `workers` workers, each on its own thread and store; seconds.
double reagentWorkers(const Opener& open, int runs, int workers) {
    {
        boost::asio::io_context io;
        runOn(io, [](Opener open, int runs) -> Task<int> {
            auto store = co_await open();
            for (int i = 0; i < runs; ++i) {
                (void)co_await store->submit(durable::Submission{"", json{{"prompt", "p"}}});
            }
            co_return 0;
        }(open, runs));
    }
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    std::atomic<std::size_t> finished{0};
    for (int w = 0; w < workers; ++w) {
        threads.emplace_back([&open, &finished, w] {
            boost::asio::io_context io;
            const auto report = runOn(io, [](Opener open, int w) -> Task<durable::WorkerReport> {
                auto store = co_await open();
                durable::WorkerOptions options;
                options.name = "w" + std::to_string(w);
                options.concurrency = 4;
                options.stopWhenIdle = true;
                if (const char* poll = std::getenv("BENCH_IDLE_POLL_MS")) {
                    options.idlePoll = std::chrono::milliseconds(std::atoi(poll));
                }
                auto worker = durable::Worker::create(store, options, durable::agentHandler(scriptedAgent()));
                co_return co_await (*worker)->run();
            }(open, w));
            finished += report.finished;
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    const double spent = seconds(start);
    if (finished != static_cast<std::size_t>(runs)) {
        throw std::runtime_error("the workers finished " + std::to_string(finished.load()) + " of " +
                                 std::to_string(runs) + " runs");
    }
    return spent;
}

// A bare loop: `commits` inserts of `runId`'s steps, each committed, into the table at `location` (a file,
// a schema); with 0 commits, it makes the table.
using Bare = std::function<double(const std::string& location, const std::string& runId, int commits)>;

// The bare floor of `runs` runs on `workers` threads sharing one table: five commits each (claim, three
// steps, finish).
double bareWorkers(const Bare& bare, const std::string& location, int runs, int workers) {
    bare(location, "setup", 0);
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
        threads.emplace_back([&, w] {
            bare(location, "bare-" + std::to_string(w), 5 * (runs / workers + (w < runs % workers ? 1 : 0)));
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    return seconds(start);
}

void report(const std::string& engine, const Opener& open, const Bare& bare, int steps, int runs) {
    const double ours = reagentAppends(open, "journal-run", steps);
    bare("steps", "setup", 0);
    const double floor = bare("steps", "journal-bare", steps);
    std::printf("%-10s journal step: reagent %7.1f us, bare insert+commit %7.1f us: %.2fx\n", engine.c_str(),
                ours / steps * 1e6, floor / steps * 1e6, ours / floor);
    for (const int workers : {1, 2, 4}) {
        const double reagentTime = reagentWorkers(open, runs, workers);
        const double bareTime = bareWorkers(bare, "workers" + std::to_string(workers), runs, workers);
        std::printf(
            "%-10s %d worker(s): reagent %7.0f runs/s, bare 5 commits/run %7.0f runs/s: %.2fx the time\n",
            engine.c_str(), workers, runs / reagentTime, runs / bareTime, reagentTime / bareTime);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::stoi(argv[1]) : 2000;
    const int runs = argc > 2 ? std::stoi(argv[2]) : 400;
    const bool onlyPostgres = argc > 3 && std::string(argv[3]) == "postgres";
    std::string dir = (std::filesystem::temp_directory_path() / "reagent-durable-bench-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) {
        return 1;
    }
    int status = 0;
    try {
        // SQLite: reagent's store in one file, the floors in files beside it.
        const std::string sqliteFile = dir + "/runs.db";
        const Opener sqlite = [sqliteFile]() -> Task<std::shared_ptr<durable::RunStore>> {
            co_return durable::SqliteRunStore::open(sqliteFile).value();
        };
        const Bare sqliteBare = [&dir](const std::string& location, const std::string& runId, int commits) {
            return bareSqlite(dir + "/bare-" + location + ".db", runId, commits);
        };
        if (!onlyPostgres) {
            report("SQLite", sqlite, sqliteBare, steps, runs);
        }

        const Cluster cluster(dir);
        const Opener postgres = [url = cluster.url()]() -> Task<std::shared_ptr<durable::RunStore>> {
            auto store = co_await durable::PostgresRunStore::open(url);
            co_return store.value();
        };
        const Bare postgresBare = [&cluster](const std::string& location, const std::string& runId,
                                             int commits) {
            return barePostgres(cluster.url(), "bare_" + location, runId, commits);
        };
        report("PostgreSQL", postgres, postgresBare, steps, runs);
    } catch (const std::exception& e) {
        std::cerr << "durable_bench: " << e.what() << "\n";
        status = 1;
    }
    std::filesystem::remove_all(dir);
    return status;
}
