// Durable runs survive workers killed with SIGKILL, on PostgreSQL and on SQLite: 300 runs, each a model
// call that plans a charge, the charge (an HTTP effect carrying the call's idempotency key), and a model
// call that answers, worked on by 3 worker processes (crash_worker.cpp) against the loopback provider peer
// (20-200 ms a reply), one of them killed every second and started again. Every run completes, once; no
// model call is made twice but those in flight at a kill (counted at the peer); every run's charge carries
// one idempotency key, whatever the attempts.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "postgres_cluster.hpp"
#include "provider_test_support.hpp"
#include "reagent/durable/postgres_run_store.hpp"
#include "reagent/durable/sqlite_run_store.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

extern char** environ;

namespace durable = reagent::durable;
using nlohmann::json;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

constexpr int kRuns = 300;
constexpr int kWorkers = 3;
constexpr int kConcurrency = 4;  // crash_worker's

// The charge's answer; the model's answer once the conversation holds the charge's result; else the call.
json script() {
    const json call = {{"role", "assistant"},
                       {"content", nullptr},
                       {"tool_calls", {reagent::test::openAiToolCall("charge", "{\"amount\":5}")}}};
    const json answer = {{"role", "assistant"}, {"content", "done"}};
    // The model's latency, and the payment service's.
    const auto slow = [](json response, int low, int high) {
        response["delay_ms_range"] = {low, high};
        return response;
    };
    return json{
        {"rules",
         {{{"match", "\"charge_for\""},
           {"response", slow(reagent::test::bodyResponse("{\"ok\":true}"), 5, 20)}},
          {{"match", "\"role\":\"tool\""},
           {"response",
            slow(reagent::test::bodyResponse(reagent::test::openAiReplyBody(answer, "stop")), 20, 200)}},
          {{"match", ""},
           {"response", slow(reagent::test::bodyResponse(reagent::test::openAiReplyBody(call, "tool_calls")),
                             20, 200)}}}}};
}

// A worker process; its stderr goes to `log`.
class WorkerProcess {
  public:
    WorkerProcess(const std::string& db, int port, const std::string& name, const std::string& log) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        std::vector<std::string> args = {REAGENT_CRASH_WORKER, db, std::to_string(port), name};
        std::vector<char*> argv;
        for (auto& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        const int spawned = posix_spawn(&pid_, REAGENT_CRASH_WORKER, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (spawned != 0) {
            throw std::runtime_error("cannot start crash_worker");
        }
    }
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;
    ~WorkerProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    // Sends `signal` and waits for the process; its exit status, or -1 for a signal.
    int stop(int signal) {
        ::kill(pid_, signal);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

  private:
    pid_t pid_ = -1;
};

std::shared_ptr<durable::RunStore> openStore(const std::string& db) {
    if (db.rfind("postgresql://", 0) == 0) {
        auto store = runCoro(durable::PostgresRunStore::open(db));
        REQUIRE(store);
        return *store;
    }
    auto store = durable::SqliteRunStore::open(db);
    REQUIRE(store);
    return *store;
}

std::string logText(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("durable runs: 300 runs finish exactly once while workers are killed every second",
          "[durable][crash]") {
    const std::string engine = GENERATE(as<std::string>{}, "postgres", "sqlite");
    INFO(engine);
    const reagent::test::TempDir dir;
    const std::string db = engine == "postgres" ? reagent::test::newTestDatabase() : dir.file("runs.db");
    const reagent::test::ProviderPeer peer(script());
    auto store = openStore(db);
    for (int i = 0; i < kRuns; ++i) {
        durable::Submission submission{"run-" + std::to_string(i),
                                       json{{"prompt", "task-" + std::to_string(i)}}};
        REQUIRE(runCoro(store->submit(std::move(submission))));
    }

    const std::string log = dir.file("workers.log");
    std::vector<std::unique_ptr<WorkerProcess>> workers;
    int started = 0;
    const auto start = [&] {
        ++started;
        return std::make_unique<WorkerProcess>(db, peer.port(), "w" + std::to_string(started), log);
    };
    for (int i = 0; i < kWorkers; ++i) {
        workers.push_back(start());
    }
    std::mt19937 random(20261129);
    int kills = 0;
    std::size_t completed = 0;
    const auto deadline = std::chrono::steady_clock::now() + 180s;
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(1s);
        durable::RunFilter filter;
        filter.status = durable::RunStatus::completed;
        filter.limit = kRuns + 1;
        auto done = runCoro(store->list(filter));
        REQUIRE(done);
        completed = done->size();
        if (completed == kRuns) {
            break;
        }
        auto& victim = workers[random() % kWorkers];
        CHECK(victim->stop(SIGKILL) == -1);
        ++kills;
        victim = start();
    }
    for (auto& worker : workers) {
        CHECK(worker->stop(SIGTERM) == 0);
    }
    INFO(logText(log));
    REQUIRE(completed == kRuns);
    CHECK(kills >= 3);

    // Every run completed with the model's answer; none is left in another state.
    auto all = runCoro(store->list(durable::RunFilter{std::nullopt, kRuns + 1}));
    REQUIRE(all);
    REQUIRE(all->size() == kRuns);
    int retried = 0;
    for (const auto& run : *all) {
        INFO(run.id);
        CHECK(run.status == durable::RunStatus::completed);
        CHECK(run.outcome.value("output", "") == "done");
        retried += run.attempts > 1 ? 1 : 0;
    }

    // At the peer: each run's two model calls, made again only when in flight at a kill; each run's charge
    // under one idempotency key (`run-N/tool:...`), sent again only when in flight at a kill.
    const json requests = peer.requests();
    std::map<std::string, int> modelCalls;  // by prompt and turn
    std::map<std::string, int> charges;     // by idempotency key
    for (const json& request : requests) {
        const std::string body = request.value("body", "");
        if (request["path"] == "/charge") {
            charges[request["headers"].value("idempotency-key", "")] += 1;
            continue;
        }
        const auto task = body.find("task-");
        REQUIRE(task != std::string::npos);
        const std::string prompt = body.substr(task, body.find('"', task) - task);
        const bool answering = body.find("\"role\":\"tool\"") != std::string::npos;
        modelCalls[prompt + (answering ? "/answer" : "/plan")] += 1;
    }
    int modelRepeats = 0;
    for (const auto& [call, count] : modelCalls) {
        modelRepeats += count - 1;
    }
    int chargeRepeats = 0;
    std::set<std::string> chargedRuns;
    for (const auto& [key, count] : charges) {
        chargeRepeats += count - 1;
        chargedRuns.insert(key.substr(0, key.find('/')));
    }
    INFO("kills " << kills << ", runs retried " << retried << ", model calls made again " << modelRepeats
                  << ", charges sent again " << chargeRepeats);
    CHECK(modelCalls.size() == 2 * kRuns);
    CHECK(modelRepeats <= kills * kConcurrency);
    CHECK(charges.size() == kRuns);
    CHECK(chargedRuns.size() == kRuns);
    CHECK(chargeRepeats <= kills * kConcurrency);
    WARN(engine << ": " << kills << " kills, " << retried << " runs taken over, " << modelRepeats
                << " model calls and " << chargeRepeats << " charges made again");
}
