// Workers (reagent::durable::Worker) on a store: runs claimed several at once and finished, a cancellation
// asked for while a run goes on, a worker cut off and its run released and taken over, a drain with a
// limit, a run paused for approval and
// resumed by a decision given as an input.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <reagent/reagent.hpp>

#include "run_coro.hpp"

namespace durable = reagent::durable;
using durable::RunStatus;
using nlohmann::json;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

reagent::agent::Agent answering(std::string text) {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text(std::move(text))).loop(true);
    return reagent::agent::Agent::create()
        .withProvider(provider)
        .withTools(reagent::agent::ToolsConfig{})
        .build()
        .value();
}

// An agent whose one tool takes `latency` (cancellable), called on every turn.
reagent::agent::Agent slow(std::chrono::milliseconds latency) {
    auto wait = reagent::tools::ToolBuilder::create("wait")
                    .description("Waits")
                    .handler([latency](json, reagent::tools::ToolContext context)
                                 -> reagent::Task<reagent::tools::ToolResult> {
                        boost::asio::steady_timer timer(context.executor, latency);
                        co_await timer.async_wait(boost::asio::use_awaitable);
                        co_return std::string("waited");
                    })
                    .build()
                    .value();
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("wait", json::object()))
        .then(ScriptedTurn::text("done"))
        .loop(true);
    return reagent::agent::Agent::create()
        .withProvider(provider)
        .withTools(reagent::agent::ToolsConfig{})
        .withTool(std::move(wait))
        .build()
        .value();
}

durable::Submission prompt(std::string id) {
    return durable::Submission{std::move(id), json{{"prompt", "Say hello"}}};
}

std::shared_ptr<durable::Worker> worker(std::shared_ptr<durable::RunStore> store, durable::RunHandler handler,
                                        durable::WorkerOptions options) {
    auto made = durable::Worker::create(std::move(store), std::move(options), std::move(handler));
    REQUIRE(made);
    return *made;
}

}  // namespace

TEST_CASE("worker: runs are claimed several at once and finished with the agent's answer",
          "[durable][worker]") {
    auto store = std::make_shared<durable::MemoryRunStore>();
    for (const char* id : {"a", "b", "c"}) {
        REQUIRE(runCoro(store->submit(prompt(id))));
    }
    REQUIRE(runCoro(store->submit(durable::Submission{"no-prompt", json{{"question", "?"}}})));
    durable::WorkerOptions options;
    options.name = "w1";
    options.concurrency = 2;
    options.stopWhenIdle = true;
    const auto report = runCoro(worker(store, durable::agentHandler(answering("Hello.")), options)->run());
    CHECK(report.finished == 4);
    CHECK(report.problems.empty());
    for (const char* id : {"a", "b", "c"}) {
        const auto run = runCoro(store->run(id));
        CHECK(run->status == RunStatus::completed);
        CHECK(run->outcome["output"] == "Hello.");
        CHECK(run->owner == "w1");
    }
    const auto refused = runCoro(store->run("no-prompt"));
    CHECK(refused->status == RunStatus::failed);
    CHECK(refused->outcome["error"].get<std::string>().find("\"prompt\"") != std::string::npos);
}

TEST_CASE("worker: a cancellation asked for while a run goes on stops it at the next renewal",
          "[durable][worker]") {
    auto store = std::make_shared<durable::MemoryRunStore>();
    REQUIRE(runCoro(store->submit(prompt("long"))));
    durable::WorkerOptions options;
    options.lease = 90ms;  // renewed every 30 ms
    options.stopWhenIdle = true;
    auto busy = worker(store, durable::agentHandler(slow(10s)), options);
    boost::asio::io_context io;
    auto report = boost::asio::co_spawn(io, busy->run(), boost::asio::use_future);
    boost::asio::steady_timer asked(io, 100ms);
    asked.async_wait([&](auto) {
        boost::asio::co_spawn(io, store->addInput("long", durable::RunInput{}), boost::asio::detached);
    });
    const auto started = std::chrono::steady_clock::now();
    io.run();
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    CHECK(report.get().finished == 1);
    const auto run = runCoro(store->run("long"));
    CHECK(run->status == RunStatus::cancelled);
    CHECK(run->outcome["cancelled"] == "on request, while running");
}

TEST_CASE("worker: a worker cut off leaves its run to the next, which finishes it", "[durable][worker]") {
    auto now = std::make_shared<durable::Millis>(1'000'000);
    auto store = std::make_shared<durable::MemoryRunStore>([now] { return *now; });
    REQUIRE(runCoro(store->submit(prompt("r"))));
    durable::WorkerOptions options;
    options.name = "first";
    auto first = worker(store, durable::agentHandler(slow(10s)), options);
    {
        boost::asio::io_context io;
        boost::asio::cancellation_signal kill;
        std::optional<durable::WorkerReport> report;
        boost::asio::co_spawn(
            io, first->run(),
            boost::asio::bind_cancellation_slot(
                kill.slot(), [&](std::exception_ptr, durable::WorkerReport r) { report = std::move(r); }));
        boost::asio::steady_timer dies(io, 200ms);
        dies.async_wait([&](auto) { kill.emit(boost::asio::cancellation_type::terminal); });
        io.run();
        REQUIRE(report);
        CHECK(report->cutOff == 1);
        CHECK(report->finished == 0);
    }
    const auto left = runCoro(store->run("r"));
    CHECK(left->status == RunStatus::running);  // unfinished
    CHECK(left->leaseUntil == *now + 1);        // and released: its lease ends now, not in 30 s
    const auto journaled = runCoro(store->journal("r"));
    REQUIRE(journaled->size() == 1);  // the model's call of the tool; the tool was cut off
    CHECK((*journaled)[0].step == "model:0");

    *now += 2;
    options.name = "second";
    options.stopWhenIdle = true;
    const auto report = runCoro(worker(store, durable::agentHandler(slow(1ms)), options)->run());
    CHECK(report.finished == 1);
    const auto run = runCoro(store->run("r"));
    CHECK(run->status == RunStatus::completed);
    CHECK(run->owner == "second");
    CHECK(run->attempts == 2);
}

TEST_CASE("worker: a drain with a limit cuts off and releases the runs still going when it passes",
          "[durable][worker]") {
    auto store = std::make_shared<durable::MemoryRunStore>();
    REQUIRE(runCoro(store->submit(prompt("long"))));
    durable::WorkerOptions options;
    options.name = "draining";
    options.drainFor = 100ms;
    auto draining = worker(store, durable::agentHandler(slow(10s)), options);
    boost::asio::io_context io;
    std::optional<durable::WorkerReport> report;
    boost::asio::co_spawn(io, draining->run(),
                          [&](std::exception_ptr, durable::WorkerReport r) { report = std::move(r); });
    boost::asio::steady_timer stops(io, 200ms);
    stops.async_wait([&](auto) { draining->stop(); });
    const auto started = std::chrono::steady_clock::now();
    io.run();
    CHECK(std::chrono::steady_clock::now() - started < 5s);  // not the 10 s the run would take
    REQUIRE(report);
    CHECK(report->cutOff == 1);
    CHECK(report->problems.empty());
    const auto run = runCoro(store->run("long"));
    CHECK(run->status == RunStatus::running);
    CHECK(run->leaseUntil <= durable::nowMillis() + 1);  // released
}

TEST_CASE("worker: a run paused for approval waits, and a decision given as an input resumes it",
          "[durable][worker]") {
    auto store = std::make_shared<durable::MemoryRunStore>();
    REQUIRE(runCoro(store->submit(prompt("needs-ok"))));
    int sent = 0;
    auto send =
        reagent::tools::ToolBuilder::create("send_mail")
            .description("Sends a mail")
            .requiresApproval(true)
            .handler([&sent](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                ++sent;
                co_return std::string("sent");
            })
            .build()
            .value();
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("send_mail", json::object()))
        .then(ScriptedTurn::text("Mail sent."));
    auto agent = reagent::agent::Agent::create()
                     .withProvider(provider)
                     .withTools(reagent::agent::ToolsConfig{})
                     .withTool(std::move(send))
                     .withDeferredApproval()
                     .build()
                     .value();
    durable::WorkerOptions options;
    options.stopWhenIdle = true;
    CHECK(runCoro(worker(store, durable::agentHandler(agent), options)->run()).finished == 1);
    const auto paused = runCoro(store->run("needs-ok"));
    REQUIRE(paused->status == RunStatus::waiting);
    REQUIRE(paused->outcome["pendingApprovals"].size() == 1);
    const std::string callId = paused->outcome["pendingApprovals"][0]["id"];
    CHECK(sent == 0);

    durable::RunInput decision;
    decision.kind = durable::InputKind::decision;
    decision.callId = callId;
    decision.payload = json{{"approved", true}};
    REQUIRE(runCoro(store->addInput("needs-ok", decision)));
    CHECK(runCoro(worker(store, durable::agentHandler(agent), options)->run()).finished == 1);
    const auto done = runCoro(store->run("needs-ok"));
    CHECK(done->status == RunStatus::completed);
    CHECK(done->outcome["output"] == "Mail sent.");
    CHECK(sent == 1);
}

TEST_CASE("worker: options that cannot work are refused", "[durable][worker]") {
    auto store = std::make_shared<durable::MemoryRunStore>();
    const auto handler = durable::agentHandler(answering("x"));
    durable::WorkerOptions none;
    none.concurrency = 0;
    CHECK(durable::Worker::create(store, none, handler).error().code == durable::DurableErrc::invalid_input);
    durable::WorkerOptions shortLease;
    shortLease.lease = 10ms;
    CHECK(durable::Worker::create(store, shortLease, handler).error().code ==
          durable::DurableErrc::invalid_input);
    CHECK(durable::Worker::create(nullptr, {}, handler).error().code == durable::DurableErrc::invalid_input);
    auto named = durable::Worker::create(store, {}, handler);
    REQUIRE(named);
    CHECK_FALSE((*named)->name().empty());
}
