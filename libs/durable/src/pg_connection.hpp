#pragma once
// Private to libs/durable: one PostgreSQL connection driven from Asio. libpq runs non-blocking in pipeline
// mode; each wait watches its socket through a stream_descriptor of the waiting coroutine's executor that
// borrows the socket for that wait only, so that an idle connection belongs to no io_context (a store may
// be used from one, then another), and a cancelled wait reaches the socket (the connection is closed, and
// the server rolls back what it had begun).

#include <libpq-fe.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/durable/durable_error.hpp"

namespace reagent::durable {

/// One statement of a pipeline, its parameters as text (none: SQL NULL).
struct PgQuery {
    std::string sql;
    std::vector<std::optional<std::string>> params;
};

/// A statement's result, owning libpq's.
class PgResult {
  public:
    explicit PgResult(PGresult* result) noexcept : result_(result) {}
    PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
    PgResult& operator=(PgResult&& other) noexcept {
        std::swap(result_, other.result_);
        return *this;
    }
    PgResult(const PgResult&) = delete;
    PgResult& operator=(const PgResult&) = delete;
    ~PgResult() { PQclear(result_); }

    [[nodiscard]] int rows() const noexcept { return PQntuples(result_); }
    [[nodiscard]] bool isNull(int row, int column) const noexcept {
        return PQgetisnull(result_, row, column) == 1;
    }
    [[nodiscard]] std::string text(int row, int column) const {
        return {PQgetvalue(result_, row, column),
                static_cast<std::size_t>(PQgetlength(result_, row, column))};
    }
    /// The column as an integer; 0 for NULL or text that is not one.
    [[nodiscard]] std::int64_t integer(int row, int column) const noexcept;
    /// Rows an INSERT, UPDATE or DELETE touched.
    [[nodiscard]] std::int64_t affected() const noexcept;

  private:
    PGresult* result_;
};

/// Why a pipeline failed: the error, and whether the connection was lost (what the server did of the
/// statements sent is then unknown) rather than a statement refused (nothing was done).
struct PgFailure {
    DurableError error;
    bool connectionLost = false;
};

class PgConnection {
  public:
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;
    ~PgConnection();

    /// Connects to `conninfo` (a URL or key=value pairs) within `timeout`, on the caller's executor;
    /// `shown` names the database in errors (the URL without its password).
    [[nodiscard]] static Task<expected<std::unique_ptr<PgConnection>, DurableError>> connect(
        std::string conninfo, std::string shown, std::chrono::milliseconds timeout);

    /// Sends `queries` at once, with one sync, and returns each one's result, in order: one round trip.
    /// The first statement the server refuses fails the pipeline (the rest are skipped by the server).
    [[nodiscard]] Task<expected<std::vector<PgResult>, PgFailure>> pipeline(std::vector<PgQuery> queries);

    /// Waits up to `upTo` for a notification on a channel this connection listens to (`LISTEN`, sent with
    /// `pipeline`): true when one came (all those that came are consumed), false when the time passed.
    [[nodiscard]] Task<expected<bool, PgFailure>> awaitNotification(std::chrono::milliseconds upTo);

    /// False once the connection is lost, closed after a cancellation, or left mid-transaction: it is
    /// dropped rather than reused.
    [[nodiscard]] bool usable() const noexcept;
    /// For an idle connection about to be reused: false (and closed) when the server has closed it
    /// meanwhile (restarted, or ended the session), read from what the socket holds, without waiting.
    [[nodiscard]] bool stillOpen() noexcept;
    /// Whether a transaction was left open (a statement failed inside BEGIN ... COMMIT).
    [[nodiscard]] bool inTransaction() const noexcept;
    [[nodiscard]] const std::string& shown() const noexcept { return shown_; }

  private:
    PgConnection(PGconn* conn, std::string shown) : conn_(conn), shown_(std::move(shown)) {}
    enum class Waited { ready, timed_out, failed };
    /// Waits until the socket can be read (or written), for `limit` at most; `failed` when the wait was
    /// cancelled or the socket failed.
    [[nodiscard]] Task<Waited> await(boost::asio::posix::stream_descriptor::wait_type what,
                                     std::chrono::milliseconds limit = std::chrono::milliseconds::max());
    /// Writes what libpq has buffered.
    [[nodiscard]] Task<expected<void, PgFailure>> flush();
    /// The next result (nullptr: the end of one statement's results), reading as needed.
    [[nodiscard]] Task<expected<PGresult*, PgFailure>> next();
    [[nodiscard]] PgFailure lost(std::string_view what);
    void close() noexcept;

    PGconn* conn_;
    std::string shown_;
    bool broken_ = false;
    // Statements prepared on this connection, by their text: their names; and those being prepared by the
    // pipeline under way.
    std::unordered_map<std::string, std::string> prepared_;
    std::unordered_map<std::string, std::string> pending_;
    std::uint64_t statements_ = 0;  // names made
};

/// The conninfo's server and database, without its password: how errors name the database.
[[nodiscard]] std::string shownDatabase(const std::string& conninfo);

}  // namespace reagent::durable
