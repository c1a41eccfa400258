#pragma once
// Private to libs/durable: the PostgreSQL store's connections (opened on demand, up to a bound, reused, a
// broken one dropped), its listening connection, and `operate`, which runs one operation on a connection:
// what it left open rolled back, and tried once more on a new connection when the old one was lost and the
// operation may be repeated.

#include <boost/asio/steady_timer.hpp>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pg_connection.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/durable/postgres_run_store.hpp"

namespace reagent::durable {

struct PostgresRunStore::Pool {
    Pool(std::string conninfo, std::string shown, PostgresOptions options);

    std::string conninfo;
    std::string shown;  // the database, without its password
    PostgresOptions options;
    std::string channel;  // what LISTEN and pg_notify name: `reagent_{schema}`
    std::vector<std::unique_ptr<PgConnection>> idle;
    std::size_t opened = 0;
    // The acquisitions waiting for a connection, oldest first: each waits on a timer of its own executor,
    // which `wakeOne` unlinks and cancels (nothing here belongs to an io_context, so the store may be used
    // from any).
    std::list<boost::asio::steady_timer*> waiting;
    std::unique_ptr<PgConnection> listener;
    bool listening = false;

    /// A connection: an idle one, a new one while fewer than `options.connections` are open, or the next
    /// one given back.
    [[nodiscard]] Task<expected<std::unique_ptr<PgConnection>, DurableError>> acquire();
    /// Wakes the oldest waiting acquisition.
    void wakeOne();
    /// Gives `connection` back: rolled back first if a transaction was left open (closed instead when the
    /// caller was cancelled: the server rolls back), dropped if it is broken.
    [[nodiscard]] Task<void> release(std::unique_ptr<PgConnection> connection);
    /// A new connection, set up (`lock_timeout`).
    [[nodiscard]] Task<expected<std::unique_ptr<PgConnection>, DurableError>> connect();

    /// `$1` of the statements that read the time: the test's clock, or none (the server's).
    [[nodiscard]] std::optional<std::string> clockParam() const;
    /// `name` qualified with the store's schema.
    [[nodiscard]] std::string table(const char* name) const { return options.schema + "." + name; }
};

/// What SQL computes as the time: `$1` when given, else the server's transaction time, in `Millis`.
inline constexpr const char* kNowSql =
    "coalesce($1::int8, (extract(epoch from transaction_timestamp()) * 1000)::int8)";

/// Whether an operation may be tried again on a new connection when the old one was lost while it ran.
enum class Repeatable { yes, no };

/// Runs `attempt(connection, retried)` on a connection of `pool` (see the file's comment). Cancellation is
/// checked, not thrown (`withCheckedCancellation`): the connection is given back (or dropped) whatever
/// happens, and a cancelled operation ends `cancelled`.
template <class T, class Attempt>
Task<expected<T, DurableError>> operate(std::shared_ptr<PostgresRunStore::Pool> pool, Repeatable repeatable,
                                        Attempt attempt) {
    co_return co_await withCheckedCancellation([](std::shared_ptr<PostgresRunStore::Pool> pool,
                                                  Repeatable repeatable,
                                                  Attempt attempt) -> Task<expected<T, DurableError>> {
        for (bool retried = false;; retried = true) {
            if (isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
                co_return unexpected(DurableError{DurableErrc::cancelled,
                                                  "cancelled before run store " + pool->shown + " answered"});
            }
            auto connection = co_await pool->acquire();
            if (!connection) {
                co_return unexpected(connection.error());
            }
            expected<T, PgFailure> outcome = co_await attempt(**connection, retried);
            co_await pool->release(std::move(*connection));
            if (outcome) {
                co_return std::move(*outcome);
            }
            if (!outcome.error().connectionLost || outcome.error().error.code == DurableErrc::cancelled ||
                repeatable == Repeatable::no || retried) {
                co_return unexpected(std::move(outcome.error().error));
            }
        }
    }(std::move(pool), repeatable, std::move(attempt)));
}

}  // namespace reagent::durable
