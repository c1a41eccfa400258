// Opening a PostgreSQL run store: the options checked, the first connection made, the schema created or
// migrated under an advisory lock; and the store's pool of connections.

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pg_pool.hpp"
#include "reagent/core/cancellation.hpp"

namespace reagent::durable {

namespace {

namespace asio = boost::asio;

// The migrations, one per schema version, each a list of statements (`{s}`: the schema):
// kMigrations[v - 1] takes a store from version v - 1 to v. Append only; never edit one that has shipped.
const std::array<std::vector<const char*>, PostgresRunStore::kSchemaVersion> kMigrations = {{
    // 1: runs, their journals and their inputs; `store` says whose the schema is, and its version.
    {
        "CREATE TABLE {s}.store (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), "
        "application text NOT NULL, version integer NOT NULL)",
        "CREATE TABLE {s}.runs (id text PRIMARY KEY, input text NOT NULL, status text NOT NULL, "
        "epoch int8 NOT NULL DEFAULT 0, owner text NOT NULL DEFAULT '', lease_until int8 NOT NULL DEFAULT 0, "
        "attempts int8 NOT NULL DEFAULT 0, cancel_requested boolean NOT NULL DEFAULT false, outcome text, "
        "created int8 NOT NULL, updated int8 NOT NULL, journal_seq int8 NOT NULL DEFAULT 0)",
        // What a claim looks for: the runs that may be claimable, oldest first.
        "CREATE INDEX runs_claimable ON {s}.runs (created, id) WHERE status IN ('queued', 'running')",
        "CREATE INDEX runs_by_status ON {s}.runs (status, created, id)",
        "CREATE INDEX runs_by_age ON {s}.runs (created, id)",
        "CREATE TABLE {s}.journal (run_id text NOT NULL REFERENCES {s}.runs (id), seq int8 NOT NULL, "
        "step text NOT NULL, kind text NOT NULL, payload text NOT NULL, epoch int8 NOT NULL, "
        "created int8 NOT NULL, PRIMARY KEY (run_id, seq), UNIQUE (run_id, step))",
        "CREATE TABLE {s}.inputs (run_id text NOT NULL REFERENCES {s}.runs (id), seq int8 NOT NULL, "
        "kind text NOT NULL, call_id text NOT NULL, payload text NOT NULL, created int8 NOT NULL, "
        "PRIMARY KEY (run_id, seq))",
    },
}};

constexpr const char* kApplication = "reagent-runs";
constexpr std::size_t kMaxSchemaLength = 48;  // `reagent_{schema}` names its channel, at most 63 bytes

std::string withSchema(std::string_view sql, const std::string& schema) {
    std::string out;
    for (std::size_t at = 0; at < sql.size();) {
        const std::size_t mark = sql.find("{s}", at);
        out.append(sql.substr(at, mark == std::string_view::npos ? std::string_view::npos : mark - at));
        if (mark == std::string_view::npos) {
            break;
        }
        out += schema;
        at = mark + 3;
    }
    return out;
}

expected<void, DurableError> checkOptions(const PostgresOptions& options) {
    const auto invalid = [](std::string message) {
        return unexpected(DurableError{DurableErrc::invalid_input, std::move(message)});
    };
    const std::string& schema = options.schema;
    const bool lowerIdentifier =
        !schema.empty() && (std::islower(static_cast<unsigned char>(schema[0])) != 0 || schema[0] == '_') &&
        std::all_of(schema.begin(), schema.end(), [](char c) {
            return std::islower(static_cast<unsigned char>(c)) != 0 ||
                   std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
        });
    if (!lowerIdentifier || schema.size() > kMaxSchemaLength) {
        return invalid("a run store's schema is named with 1 to " + std::to_string(kMaxSchemaLength) +
                       " lower-case letters, digits and underscores, not starting with a digit (got '" +
                       schema + "')");
    }
    if (options.connections == 0) {
        return invalid("a run store opens at least one connection (connections was 0)");
    }
    if (options.connectTimeout.count() <= 0 || options.lockWait.count() <= 0) {
        return invalid("a run store's connect timeout and lock wait are at least 1 ms");
    }
    return {};
}

// What the schema holds: nothing yet (0 tables), a store of some version, or another application's tables.
struct Found {
    bool storeTable = false;
    std::int64_t tables = 0;
};

// Creates or migrates the schema in one transaction, under an advisory lock on the schema's name: of
// processes opening a new store together, one migrates and the others find it done.
Task<expected<bool, PgFailure>> prepareSchema(PgConnection& connection, const PostgresRunStore::Pool& pool) {
    const std::string& schema = pool.options.schema;
    std::vector<PgQuery> look;
    look.push_back(PgQuery{"BEGIN", {}});
    look.push_back(PgQuery{"SELECT pg_advisory_xact_lock(hashtext($1))", {"reagent run store " + schema}});
    look.push_back(PgQuery{"SELECT to_regclass($1) IS NOT NULL", {schema + ".store"}});
    look.push_back(PgQuery{"SELECT count(*) FROM pg_tables WHERE schemaname = $1", {schema}});
    auto looked = co_await connection.pipeline(std::move(look));
    if (!looked) {
        co_return unexpected(looked.error());
    }
    const Found found{(*looked)[2].text(0, 0) == "t", (*looked)[3].integer(0, 0)};
    std::int64_t version = 0;
    const auto refuse = [&](DurableErrc code, std::string message) {
        return unexpected(
            PgFailure{DurableError{code, "run store " + pool.shown + ": " + std::move(message)}});
    };
    if (found.storeTable) {
        std::vector<PgQuery> read;
        read.push_back(PgQuery{"SELECT application, version FROM " + pool.table("store"), {}});
        auto mark = co_await connection.pipeline(std::move(read));
        if (!mark) {
            co_return unexpected(mark.error());
        }
        if ((*mark)[0].rows() != 1 || (*mark)[0].text(0, 0) != kApplication) {
            co_return refuse(DurableErrc::not_a_store, "schema '" + schema +
                                                           "' belongs to another application; name "
                                                           "another schema (it was left unchanged)");
        }
        version = (*mark)[0].integer(0, 1);
    } else if (found.tables > 0) {
        co_return refuse(DurableErrc::not_a_store,
                         "schema '" + schema +
                             "' holds tables of another application; name another schema "
                             "(it was left unchanged)");
    }
    if (version > PostgresRunStore::kSchemaVersion) {
        co_return refuse(DurableErrc::schema_too_new,
                         "schema '" + schema + "' has version " + std::to_string(version) +
                             ", newer than this reagent's " +
                             std::to_string(PostgresRunStore::kSchemaVersion) +
                             ": use a newer reagent, or another schema (it was left unchanged)");
    }
    if (version == PostgresRunStore::kSchemaVersion) {
        co_return false;  // another process made it meanwhile; the caller rolls back
    }
    std::vector<PgQuery> migrate;
    migrate.push_back(PgQuery{"CREATE SCHEMA IF NOT EXISTS " + schema, {}});
    for (std::int64_t next = version + 1; next <= PostgresRunStore::kSchemaVersion; ++next) {
        for (const char* statement : kMigrations[static_cast<std::size_t>(next - 1)]) {
            migrate.push_back(PgQuery{withSchema(statement, schema), {}});
        }
    }
    migrate.push_back(PgQuery{"INSERT INTO " + pool.table("store") +
                                  " (application, version) VALUES ($1, $2) ON CONFLICT (only_row) DO "
                                  "UPDATE SET application = excluded.application, version = excluded.version",
                              {kApplication, std::to_string(PostgresRunStore::kSchemaVersion)}});
    migrate.push_back(PgQuery{"COMMIT", {}});
    auto migrated = co_await connection.pipeline(std::move(migrate));
    if (!migrated) {
        co_return unexpected(migrated.error());
    }
    co_return true;
}

// A connection listening on the pool's channel; none when the database cannot be reached.
Task<std::unique_ptr<PgConnection>> listenerFor(std::shared_ptr<PostgresRunStore::Pool> pool) {
    auto connection = co_await pool->connect();
    if (!connection) {
        co_return nullptr;
    }
    std::vector<PgQuery> listen;
    listen.push_back(PgQuery{"LISTEN " + pool->channel, {}});
    auto listening = co_await (*connection)->pipeline(std::move(listen));
    if (!listening) {
        co_return nullptr;
    }
    co_return std::move(*connection);
}

}  // namespace

PostgresRunStore::Pool::Pool(std::string conninfo_, std::string shown_, PostgresOptions options_)
    : conninfo(std::move(conninfo_)),
      shown(std::move(shown_)),
      options(std::move(options_)),
      channel("reagent_" + options.schema) {}

std::optional<std::string> PostgresRunStore::Pool::clockParam() const {
    if (!options.clock) {
        return std::nullopt;
    }
    return std::to_string(options.clock());
}

Task<expected<std::unique_ptr<PgConnection>, DurableError>> PostgresRunStore::Pool::connect() {
    auto connection = co_await PgConnection::connect(conninfo, shown, options.connectTimeout);
    if (!connection) {
        co_return unexpected(connection.error());
    }
    std::vector<PgQuery> setup;
    setup.push_back(PgQuery{"SELECT set_config('lock_timeout', $1, false)",
                            {std::to_string(options.lockWait.count()) + "ms"}});
    auto set = co_await (*connection)->pipeline(std::move(setup));
    if (!set) {
        co_return unexpected(set.error().error);
    }
    co_return std::move(*connection);
}

Task<expected<std::unique_ptr<PgConnection>, DurableError>> PostgresRunStore::Pool::acquire() {
    for (;;) {
        while (!idle.empty()) {
            auto connection = std::move(idle.back());
            idle.pop_back();
            if (connection->stillOpen()) {
                co_return connection;
            }
            --opened;  // the server closed it while it was idle: dropped, and another opened
        }
        if (opened < options.connections) {
            ++opened;
            auto connection = co_await connect();
            if (!connection) {
                --opened;
                wakeOne();
            }
            co_return connection;
        }
        const Executor executor = co_await asio::this_coro::executor;
        asio::steady_timer timer(executor, asio::steady_timer::time_point::max());
        waiting.push_back(&timer);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;  // cancelled by `wakeOne` (which unlinked it), or by the caller
        waiting.remove(&timer);
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            wakeOne();  // the wake-up this waiter got, if any, goes to the next
            co_return unexpected(DurableError{
                DurableErrc::cancelled, "cancelled while waiting for a connection to run store " + shown});
        }
    }
}

void PostgresRunStore::Pool::wakeOne() {
    if (!waiting.empty()) {
        waiting.front()->cancel();
        waiting.pop_front();
    }
}

Task<void> PostgresRunStore::Pool::release(std::unique_ptr<PgConnection> connection) {
    if (connection->usable() && connection->inTransaction()) {
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            connection.reset();  // closed: the server rolls back
        } else {
            std::vector<PgQuery> rollback;
            rollback.push_back(PgQuery{"ROLLBACK", {}});
            (void)co_await connection->pipeline(std::move(rollback));
        }
    }
    if (connection && connection->usable()) {
        idle.push_back(std::move(connection));
    } else {
        --opened;
    }
    wakeOne();
}

Task<expected<std::shared_ptr<PostgresRunStore>, DurableError>> PostgresRunStore::open(
    std::string conninfo, PostgresOptions options) {
    if (auto checked = checkOptions(options); !checked) {
        co_return unexpected(checked.error());
    }
    std::string shown = shownDatabase(conninfo);
    auto pool = std::make_shared<Pool>(std::move(conninfo), std::move(shown), std::move(options));
    auto prepared = co_await operate<bool>(pool, Repeatable::yes, [&pool](PgConnection& connection, bool) {
        return prepareSchema(connection, *pool);
    });
    if (!prepared) {
        co_return unexpected(prepared.error());
    }
    co_return std::shared_ptr<PostgresRunStore>(new PostgresRunStore(std::move(pool)));
}

Task<expected<std::shared_ptr<PostgresRunStore>, DurableError>> PostgresRunStore::open(std::string conninfo) {
    return open(std::move(conninfo), PostgresOptions{});
}

PostgresRunStore::PostgresRunStore(std::shared_ptr<Pool> pool) : pool_(std::move(pool)) {}

PostgresRunStore::~PostgresRunStore() = default;

Task<void> PostgresRunStore::waitForWork(std::chrono::milliseconds upTo) {
    // Cancellation (a worker's run ending first) is checked, not thrown, so that `listening` is reset.
    co_await withCheckedCancellation(
        [](PostgresRunStore* self, std::shared_ptr<Pool> pool, std::chrono::milliseconds upTo) -> Task<void> {
            // One coroutine listens at a time; another that waits meanwhile polls, as without notifications.
            if (pool->listening) {
                co_await self->RunStore::waitForWork(upTo);
                co_return;
            }
            pool->listening = true;
            if (!pool->listener || !pool->listener->usable()) {
                // Not cut short by a cancellation (the next wait would open a connection again, each costing
                // the server a process): bounded by the connect timeout.
                const Executor executor = co_await asio::this_coro::executor;
                pool->listener = co_await asio::co_spawn(
                    executor, listenerFor(pool),
                    asio::bind_cancellation_slot(asio::cancellation_slot(), asio::use_awaitable));
            }
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                pool->listening = false;
                co_return;
            }
            if (pool->listener) {
                (void)co_await pool->listener->awaitNotification(upTo);
            } else {
                co_await self->RunStore::waitForWork(upTo);  // the database cannot be reached: poll
            }
            pool->listening = false;
        }(this, pool_, upTo));
}

}  // namespace reagent::durable
