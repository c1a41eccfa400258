// An agent's run journaled into an SQLite store (StoreJournal): a worker that dies mid-run leaves its steps
// behind, and the worker that takes the run over goes on from them without repeating the model call or the
// effect that completed; the first worker's late writes are refused.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <reagent/reagent.hpp>

#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace durable = reagent::durable;
using nlohmann::json;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

reagent::agent::Agent chargingAgent(std::shared_ptr<ScriptedProvider> provider,
                                    std::shared_ptr<int> charges) {
    auto charge =
        reagent::tools::ToolBuilder::create("charge")
            .description("Charges the card")
            .handler(
                [charges](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
                    ++*charges;
                    co_return std::string("charged");
                })
            .build()
            .value();
    return reagent::agent::Agent::create()
        .withProvider(std::move(provider))
        .withTools(reagent::agent::ToolsConfig{})
        .withTool(std::move(charge))
        .build()
        .value();
}

// A store in `dir` whose clock reads `*now`.
std::shared_ptr<durable::RunStore> clockedStore(const reagent::test::TempDir& dir,
                                                std::shared_ptr<durable::Millis> now) {
    durable::SqliteOptions options;
    options.clock = [now] { return *now; };
    auto opened = durable::SqliteRunStore::open(dir.file("runs.db"), options);
    REQUIRE(opened);
    return *opened;
}

// Runs `task` for `after`, then cuts it off as a crash would: nothing more of it runs.
template <class T>
void crashAfter(reagent::Task<T> task, std::chrono::milliseconds after) {
    boost::asio::io_context io;
    boost::asio::cancellation_signal crash;
    boost::asio::co_spawn(io, std::move(task),
                          boost::asio::bind_cancellation_slot(crash.slot(), [](std::exception_ptr, auto) {}));
    boost::asio::steady_timer dies(io, after);
    dies.async_wait([&](auto) { crash.emit(boost::asio::cancellation_type::terminal); });
    io.run();
}

ModelReply callCharge() {
    ModelReply reply;
    reply.toolCalls.push_back({"call_1", "charge", json{{"amount", 5}}});
    return reply;
}

ModelReply answer() {
    ModelReply reply;
    reply.text = "Charged 5.";
    return reply;
}

}  // namespace

TEST_CASE("durable agent: a run taken over after its worker died goes on from its journal",
          "[durable][agent]") {
    reagent::test::TempDir dir;
    auto now = std::make_shared<durable::Millis>(1'000'000);
    std::shared_ptr<durable::RunStore> store = clockedStore(dir, now);
    REQUIRE(runCoro(store->submit(durable::Submission{"order-1", json{{"prompt", "Charge 5"}}})));
    auto charges = std::make_shared<int>(0);

    // Worker A: the model asks for the charge, the card is charged, and the worker dies while the model
    // writes its answer (its run is cut off there, as by a crash: nothing more is journaled).
    auto claimedA = runCoro(store->claim("worker-a", 30s));
    REQUIRE(claimedA);
    REQUIRE(claimedA->has_value());
    auto journalA = std::make_shared<durable::StoreJournal>(store, **claimedA);
    auto providerA = std::make_shared<ScriptedProvider>();
    providerA->then(ScriptedTurn::reply(callCharge()));
    providerA->then(ScriptedTurn::reply(answer()).delay(10s));
    {
        reagent::agent::RunOptions runOptions;
        runOptions.journal = journalA;
        auto agent = chargingAgent(providerA, charges);
        crashAfter(agent.run("Charge 5", std::move(runOptions)), 300ms);
    }
    CHECK(*charges == 1);
    auto journaled = runCoro(store->journal("order-1"));
    REQUIRE(journaled);
    REQUIRE(journaled->size() == 2);
    CHECK((*journaled)[0].step == "model:0");
    CHECK((*journaled)[1].step == "tool:0:call_1");

    // Worker B takes the run over once A's lease has expired, and finishes it.
    *now += 30'001;
    auto claimedB = runCoro(store->claim("worker-b", 30s));
    REQUIRE(claimedB);
    REQUIRE(claimedB->has_value());
    CHECK((*claimedB)->lease.epoch == 2);
    auto journalB = std::make_shared<durable::StoreJournal>(store, **claimedB);
    auto providerB = std::make_shared<ScriptedProvider>();
    providerB->then(ScriptedTurn::reply(answer()));
    reagent::agent::RunOptions runOptions;
    runOptions.journal = journalB;
    const auto result = runCoro(chargingAgent(providerB, charges).run("Charge 5", std::move(runOptions)));
    REQUIRE(result.success());
    CHECK(result.output == "Charged 5.");
    CHECK(*charges == 1);                      // the effect is not repeated
    CHECK(providerB->requests().size() == 1);  // only the call in flight at the crash is made again
    REQUIRE(runCoro(store->finish(
        journalB->lease(), durable::Finish{durable::RunStatus::completed, json{{"output", result.output}}})));
    CHECK(runCoro(store->journal("order-1"))->size() == 3);

    // Worker A wakes up: whatever it writes now is refused.
    auto late =
        runCoro(journalA->record(reagent::agent::JournaledStep{"model:1", "model_reply", json::object()}));
    REQUIRE_FALSE(late);
    CHECK(late.error().find("lease_lost") != std::string::npos);
    CHECK(runCoro(store->run("order-1"))->status == durable::RunStatus::completed);
}

namespace {

// A charge that is not idempotent and whose card takes `takes` to answer.
reagent::agent::Agent onceOnlyAgent(std::shared_ptr<ScriptedProvider> provider, std::shared_ptr<int> charges,
                                    std::chrono::milliseconds takes) {
    auto charge = reagent::tools::ToolBuilder::create("charge")
                      .description("Charges the card")
                      .idempotent(false)
                      .handler([charges, takes](json, reagent::tools::ToolContext context)
                                   -> reagent::Task<reagent::tools::ToolResult> {
                          ++*charges;
                          boost::asio::steady_timer card(context.executor, takes);
                          co_await card.async_wait(boost::asio::use_awaitable);
                          co_return std::string("charged");
                      })
                      .build()
                      .value();
    return reagent::agent::Agent::create()
        .withProvider(std::move(provider))
        .withTools(reagent::agent::ToolsConfig{})
        .withTool(std::move(charge))
        .withDeferredApproval()
        .build()
        .value();
}

}  // namespace

TEST_CASE("durable agent: a call that is not idempotent, cut off by a crash, waits for a person",
          "[durable][agent]") {
    reagent::test::TempDir dir;
    auto now = std::make_shared<durable::Millis>(1'000'000);
    std::shared_ptr<durable::RunStore> store = clockedStore(dir, now);
    REQUIRE(runCoro(store->submit(durable::Submission{"order-2", json{{"prompt", "Charge 5"}}})));
    auto charges = std::make_shared<int>(0);

    // Worker A dies while the card is being charged: the call's start is journaled, its result is not.
    auto claimedA = runCoro(store->claim("worker-a", 30s));
    REQUIRE((claimedA && claimedA->has_value()));
    auto providerA = std::make_shared<ScriptedProvider>();
    providerA->then(ScriptedTurn::reply(callCharge()));
    crashAfter(durable::agentHandler(onceOnlyAgent(providerA, charges, 10s))(
                   **claimedA, std::make_shared<durable::StoreJournal>(store, **claimedA)),
               300ms);
    CHECK(*charges == 1);
    auto journaled = runCoro(store->journal("order-2"));
    REQUIRE(journaled);
    REQUIRE(journaled->size() == 2);
    CHECK((*journaled)[1].step == "start:0:call_1");
    CHECK((*journaled)[1].kind == "tool_start");

    // Worker B does not charge again: the run waits for a person's decision on the call.
    *now += 30'001;
    auto claimedB = runCoro(store->claim("worker-b", 30s));
    REQUIRE((claimedB && claimedB->has_value()));
    auto providerB = std::make_shared<ScriptedProvider>();
    providerB->then(ScriptedTurn::reply(answer()));
    auto agentB = onceOnlyAgent(providerB, charges, 1ms);
    const durable::Finish paused = runCoro(durable::agentHandler(agentB)(
        **claimedB, std::make_shared<durable::StoreJournal>(store, **claimedB)));
    CHECK(*charges == 1);
    CHECK(providerB->requests().empty());
    REQUIRE(paused.status == durable::RunStatus::waiting);
    REQUIRE(paused.outcome["pendingApprovals"].size() == 1);
    CHECK(paused.outcome["pendingApprovals"][0]["id"] == "call_1");
    REQUIRE(runCoro(store->finish((*claimedB)->lease, paused)));

    SECTION("approved, it runs once more") {
        REQUIRE(runCoro(store->addInput("order-2", durable::RunInput{0, durable::InputKind::decision,
                                                                     "call_1", json{{"approved", true}}})));
        auto claimedC = runCoro(store->claim("worker-c", 30s));
        REQUIRE((claimedC && claimedC->has_value()));
        const durable::Finish done = runCoro(durable::agentHandler(agentB)(
            **claimedC, std::make_shared<durable::StoreJournal>(store, **claimedC)));
        CHECK(done.status == durable::RunStatus::completed);
        CHECK(done.outcome["output"] == "Charged 5.");
        CHECK(*charges == 2);
    }
    SECTION("refused, the model is told and the card is not charged again") {
        REQUIRE(runCoro(store->addInput(
            "order-2", durable::RunInput{0, durable::InputKind::decision, "call_1",
                                         json{{"approved", false}, {"reason", "already charged"}}})));
        auto claimedC = runCoro(store->claim("worker-c", 30s));
        REQUIRE((claimedC && claimedC->has_value()));
        const durable::Finish done = runCoro(durable::agentHandler(agentB)(
            **claimedC, std::make_shared<durable::StoreJournal>(store, **claimedC)));
        CHECK(done.status == durable::RunStatus::completed);
        CHECK(*charges == 1);
        REQUIRE(providerB->requests().size() == 1);
        CHECK(providerB->requests()[0].messages.back().text.find("already charged") != std::string::npos);
    }
}
