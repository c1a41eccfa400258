// A worker process of the crash tests (durable_crash_test.cpp): `crash_worker DB PEER_PORT NAME` works on the
// runs of the store DB (an SQLite file, or a postgresql:// URL) until SIGTERM, with an agent whose model is
// the loopback provider peer on PEER_PORT (OpenAI's wire format) and whose one tool, `charge`, POSTs to
// the peer's /charge with the call's idempotency key: the effect the test counts. The test kills it with
// SIGKILL at random moments.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <iostream>
#include <reagent/reagent.hpp>

#include "reagent/durable/postgres_run_store.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/providers/http_provider.hpp"

using namespace reagent;
using nlohmann::json;

namespace {

agent::Agent checkoutAgent(int port, std::shared_ptr<http::HttpClient> client) {
    providers::ProviderConfig config;
    config.kind = providers::ProviderKind::openai;
    config.apiKey = "test";
    config.baseUrl = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    config.proxy = http::ProxySettings{};
    config.maxIdleConnections = 4;
    auto provider = providers::makeProvider(config);
    if (!provider) {
        throw std::runtime_error(provider.error().describe());
    }
    const std::string chargeUrl = "http://127.0.0.1:" + std::to_string(port) + "/charge";
    auto charge =
        tools::ToolBuilder::create("charge")
            .description("Charge the customer's card")
            .param("amount", "integer", "Euros", {.required = true})
            .handler([client, chargeUrl](json, tools::ToolContext context) -> Task<tools::ToolResult> {
                const std::string key = context.idempotencyKey != nullptr ? *context.idempotencyKey : "";
                http::HttpRequest request;
                request.method = "POST";
                request.url = chargeUrl;
                request.headers.add("Content-Type", "application/json");
                request.headers.add("Idempotency-Key", key);
                request.body = json{{"charge_for", key}}.dump();
                auto response = co_await client->send(std::move(request));
                if (!response) {
                    co_return unexpected(
                        tools::ToolError::failure("the charge failed: " + response.error().describe()));
                }
                co_return std::string("charged");
            })
            .build();
    return agent::Agent::create()
        .withProvider(std::move(*provider))
        .withTools(agent::ToolsConfig{})
        .withTool(std::move(charge).value())
        .build()
        .value();
}

Task<std::shared_ptr<durable::RunStore>> openStore(std::string db) {
    if (db.rfind("postgresql://", 0) == 0) {
        auto store = co_await durable::PostgresRunStore::open(db);
        if (!store) {
            throw std::runtime_error(store.error().describe());
        }
        co_return *store;
    }
    auto store = durable::SqliteRunStore::open(db);
    if (!store) {
        throw std::runtime_error(store.error().describe());
    }
    co_return *store;
}

Task<void> work(std::string db, int port, std::string name, std::shared_ptr<durable::Worker>* running,
                const bool* stopRequested) {
    auto store = co_await openStore(db);
    http::HttpClientConfig httpConfig;
    httpConfig.proxy = http::ProxySettings{};
    auto client = std::make_shared<http::HttpClient>(httpConfig);
    durable::WorkerOptions options;
    options.name = std::move(name);
    options.concurrency = 4;
    options.lease = std::chrono::milliseconds(2000);
    options.idlePoll = std::chrono::milliseconds(200);
    auto worker = durable::Worker::create(store, options, durable::agentHandler(checkoutAgent(port, client)));
    if (!worker) {
        throw std::runtime_error(worker.error().describe());
    }
    *running = *worker;
    if (*stopRequested) {
        (*worker)->stop();  // SIGTERM came while the store was opening
    }
    const durable::WorkerReport report = co_await (*worker)->run();
    for (const auto& problem : report.problems) {
        std::cerr << "crash_worker: " << problem << "\n";
    }
    std::cerr << "crash_worker: finished " << report.finished << ", lost " << report.lost << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: crash_worker DB PEER_PORT NAME\n";
        return 2;
    }
    boost::asio::io_context io;
    std::shared_ptr<durable::Worker> worker;
    bool stopRequested = false;
    boost::asio::signal_set signals(io, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
        if (ec) {
            return;
        }
        stopRequested = true;
        if (worker) {
            worker->stop();
        }
    });
    int status = 0;
    boost::asio::co_spawn(io, work(argv[1], std::stoi(argv[2]), argv[3], &worker, &stopRequested),
                          [&](std::exception_ptr error) {
                              signals.cancel();
                              if (error) {
                                  try {
                                      std::rethrow_exception(error);
                                  } catch (const std::exception& e) {
                                      std::cerr << "crash_worker: " << e.what() << "\n";
                                  }
                                  status = 1;
                              }
                          });
    io.run();
    return status;
}
