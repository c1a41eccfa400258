// 19 — Durable runs: submitted to a store, run by a worker, journaled step by step.
//
// A run kept in a store survives the process that runs it: each step it completes (a model reply, a tool's
// result) is journaled before the run goes on, and if its worker dies another worker claims the run once
// the lease has expired and goes on from the journal, without calling the model again for a step already
// answered or repeating a tool's effect. Here the application submits a run and waits for its answer while a
// worker (a thread here; any process of any machine sharing the store in production) runs it. The tool is
// given an idempotency key, the same in every attempt of the call, to pass to the service it charges.

#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

namespace {

// The payment service the tool calls: it charges once per idempotency key, as such services do.
struct PaymentService {
    std::mutex mutex;
    std::map<std::string, int> charges;  // by idempotency key
    int charge(const std::string& key, int amount) {
        const std::lock_guard lock(mutex);
        charges.emplace(key, amount);  // a key seen before is not charged again
        return static_cast<int>(charges.size());
    }
};

// The scripted model plans the charge, then answers once the tool's result is in the conversation.
expected<llm::ModelReply, llm::ProviderError> cashier(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    if (request.messages.back().role == llm::Role::tool) {
        reply.text = "Charged 5 EUR (" + request.messages.back().text + ").";
        return reply;
    }
    reply.toolCalls.push_back({"call_1", "charge", json{{"amount", 5}}});
    return reply;
}

agent::Agent checkoutAgent(std::shared_ptr<PaymentService> payments) {
    auto charge = tools::ToolBuilder::create("charge")
                      .description("Charge the customer's card")
                      .param("amount", "integer", "Euros", {.required = true})
                      .handler([payments](json args, tools::ToolContext context) -> Task<tools::ToolResult> {
                          const std::string key = context.idempotencyKey ? *context.idempotencyKey : "";
                          payments->charge(key, args.value("amount", 0));
                          co_return "receipt for " + key;
                      })
                      .build();
    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::respond(cashier)).loop();
    return agent::Agent::create()
        .withProvider(model)
        .withTools(agent::ToolsConfig{})
        .withTool(std::move(charge).value())
        .build()
        .value();
}

}  // namespace

int main() {
    std::string dir = (std::filesystem::temp_directory_path() / "reagent-example-19-XXXXXX").string();
    examples::check(::mkdtemp(dir.data()) != nullptr, "a temporary directory");
    const std::string db = dir + "/runs.db";

    // 1. The application submits a run. Submitting the same id again is harmless.
    auto store = durable::SqliteRunStore::open(db).value();
    durable::Submission order{"order-42", json{{"prompt", "Charge 5 EUR for order 42"}}};
    auto submitted = examples::runTask(store->submit(order));
    examples::check(submitted.has_value() && submitted->created, "the run is submitted");
    examples::check(!examples::runTask(store->submit(order))->created, "submitting again changes nothing");

    // 2. A worker, with its own connection to the store, runs what is submitted.
    auto payments = std::make_shared<PaymentService>();
    boost::asio::io_context workerIo;
    std::shared_ptr<durable::Worker> worker;
    std::thread workerThread([&] {
        auto workerStore = durable::SqliteRunStore::open(db).value();
        durable::WorkerOptions options;
        options.name = "worker-1";
        options.idlePoll = std::chrono::milliseconds(50);
        worker = durable::Worker::create(workerStore, options, durable::agentHandler(checkoutAgent(payments)))
                     .value();
        boost::asio::co_spawn(workerIo, worker->run(), boost::asio::detached);
        workerIo.run();
    });

    // 3. The application waits for the run's end, reading the store.
    durable::RunRecord run;
    for (int polls = 0; polls < 200; ++polls) {
        run = examples::runTask(store->run("order-42")).value();
        if (durable::isTerminal(run.status)) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    std::cout << "run " << run.id << ": " << durable::toString(run.status) << ", "
              << run.outcome.value("output", std::string()) << "\n";
    const auto journal = examples::runTask(store->journal("order-42")).value();
    for (const durable::JournalEntry& step : journal) {
        std::cout << "  journaled " << step.step << " (" << step.kind << ", epoch " << step.epoch << ")\n";
    }

    // 4. The worker drains and stops.
    boost::asio::post(workerIo, [&] { worker->stop(); });
    workerThread.join();

    examples::check(run.status == durable::RunStatus::completed, "the run completes");
    examples::check(
        run.outcome.value("output", std::string()) == "Charged 5 EUR (receipt for order-42/tool:0:call_1).",
        "the answer names the receipt");
    examples::check(payments->charges.size() == 1 && payments->charges.count("order-42/tool:0:call_1") == 1,
                    "the card is charged once, under the call's idempotency key");
    std::filesystem::remove_all(dir);
    return 0;
}
