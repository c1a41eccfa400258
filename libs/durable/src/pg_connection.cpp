#include "pg_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/timeout.hpp"

namespace reagent::durable {

namespace {

namespace asio = boost::asio;
using Wait = asio::posix::stream_descriptor::wait_type;

// libpq's message on one line (it breaks lines, and indents the next with a tab).
std::string trimmed(const char* message) {
    std::string text;
    for (const char* c = message != nullptr ? message : ""; *c != '\0'; ++c) {
        if (*c == '\n' || *c == '\t') {
            if (!text.empty() && text.back() != ' ') {
                text.push_back(' ');
            }
        } else {
            text.push_back(*c);
        }
    }
    while (!text.empty() && text.back() == ' ') {
        text.pop_back();
    }
    return text.empty() ? std::string("no reason given") : text;
}

// A statement's error, mapped to a code: a lock not granted in time is `busy` (the operation may be tried
// again), anything else `storage_error`.
DurableError refused(const std::string& shown, const PGresult* result) {
    const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    const std::string_view code = state != nullptr ? state : "";
    const DurableErrc errc = code == "55P03" || code == "40001" || code == "40P01"
                                 ? DurableErrc::busy
                                 : DurableErrc::storage_error;
    return {errc, "run store " + shown + " refused a statement: " + trimmed(PQresultErrorMessage(result)) +
                      (code.empty() ? "" : " (SQLSTATE " + std::string(code) + ")")};
}

}  // namespace

std::int64_t PgResult::integer(int row, int column) const noexcept {
    const char* text = PQgetvalue(result_, row, column);
    const int length = PQgetlength(result_, row, column);
    std::int64_t value = 0;
    std::from_chars(text, text + length, value);
    return value;
}

std::int64_t PgResult::affected() const noexcept {
    const char* tuples = PQcmdTuples(result_);
    std::int64_t value = 0;
    std::from_chars(tuples, tuples + std::char_traits<char>::length(tuples), value);
    return value;
}

std::string shownDatabase(const std::string& conninfo) {
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
    if (options == nullptr) {
        PQfreemem(error);
        return "'(a connection string libpq cannot read)'";
    }
    std::string user;
    std::string host;
    std::string port;
    std::string database;
    for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
        const std::string_view keyword = option->keyword;
        const std::string value = option->val != nullptr ? option->val : "";
        if (keyword == "user") {
            user = value;
        } else if (keyword == "host" || (keyword == "hostaddr" && host.empty())) {
            host = value;
        } else if (keyword == "port") {
            port = value;
        } else if (keyword == "dbname") {
            database = value;
        }
    }
    PQconninfoFree(options);
    return "'postgresql://" + (user.empty() ? "" : user + "@") + host + (port.empty() ? "" : ":" + port) +
           "/" + database + "'";
}

PgConnection::~PgConnection() {
    close();
}

void PgConnection::close() noexcept {
    if (conn_ != nullptr) {
        PQfinish(conn_);
        conn_ = nullptr;
    }
    broken_ = true;
}

bool PgConnection::usable() const noexcept {
    return !broken_ && conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK;
}

bool PgConnection::stillOpen() noexcept {
    if (!usable()) {
        return false;
    }
    // The first read takes what the server sent (its goodbye), the parse consumes it, and the second read
    // meets the end of the stream.
    bool open = PQconsumeInput(conn_) == 1;
    if (open) {
        (void)PQisBusy(conn_);
        open = PQconsumeInput(conn_) == 1 && PQstatus(conn_) == CONNECTION_OK;
    }
    if (!open) {
        close();
    }
    return open;
}

bool PgConnection::inTransaction() const noexcept {
    const PGTransactionStatusType status = PQtransactionStatus(conn_);
    return status == PQTRANS_INTRANS || status == PQTRANS_INERROR;
}

PgFailure PgConnection::lost(std::string_view what) {
    std::string reason = conn_ != nullptr ? trimmed(PQerrorMessage(conn_)) : std::string("closed");
    close();
    return PgFailure{
        DurableError{DurableErrc::storage_error, "lost the connection to run store " + shown_ + " while " +
                                                     std::string(what) + ": " + reason},
        true};
}

Task<bool> PgConnection::await(Wait what) {
    // The descriptor borrows libpq's socket for this wait: released, never closed, however the wait ends
    // (the frame may be destroyed while suspended, when its io_context shuts down).
    struct Borrowed {
        asio::posix::stream_descriptor socket;
        ~Borrowed() {
            if (socket.is_open()) {
                (void)socket.release();
            }
        }
    };
    const int fd = conn_ != nullptr ? PQsocket(conn_) : -1;
    if (fd < 0) {
        co_return false;
    }
    const Executor executor = co_await asio::this_coro::executor;
    Borrowed borrowed{asio::posix::stream_descriptor(executor)};
    boost::system::error_code assigned;
    borrowed.socket.assign(fd, assigned);
    if (assigned) {
        co_return false;
    }
    auto [ec] = co_await borrowed.socket.async_wait(what, asio::as_tuple(asio::use_awaitable));
    co_return !ec;
}

Task<expected<std::unique_ptr<PgConnection>, DurableError>> PgConnection::connect(
    std::string conninfo, std::string shown, std::chrono::milliseconds timeout) {
    PGconn* conn = PQconnectStart(conninfo.c_str());
    if (conn == nullptr) {
        co_return unexpected(DurableError{DurableErrc::storage_error,
                                          "could not connect to run store " + shown + ": out of memory"});
    }
    std::unique_ptr<PgConnection> connection(new PgConnection(conn, std::move(shown)));
    const auto failed = [&connection](std::string why) {
        return unexpected(DurableError{DurableErrc::storage_error,
                                       "could not connect to run store " + connection->shown_ + ": " + why});
    };
    if (PQstatus(conn) == CONNECTION_BAD) {
        co_return failed(trimmed(PQerrorMessage(conn)));
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    PostgresPollingStatusType polled = PGRES_POLLING_WRITING;
    while (polled != PGRES_POLLING_OK) {
        if (polled == PGRES_POLLING_FAILED) {
            co_return failed(trimmed(PQerrorMessage(conn)));
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            co_return failed("no answer within " + std::to_string(timeout.count()) + " ms");
        }
        auto waited = co_await withTimeout(
            connection->await(polled == PGRES_POLLING_READING ? Wait::wait_read : Wait::wait_write), left);
        if (!waited) {
            if (waited.error().code == EffectErrc::cancelled ||
                isCancelled(co_await asio::this_coro::cancellation_state)) {
                co_return unexpected(DurableError{DurableErrc::cancelled,
                                                  "cancelled while connecting to "
                                                  "run store " +
                                                      connection->shown_});
            }
            co_return failed("no answer within " + std::to_string(timeout.count()) + " ms");
        }
        if (!*waited) {
            co_return failed("its socket failed");
        }
        polled = PQconnectPoll(conn);
    }
    // The server's notices (a session ended by an administrator, ...) are not the caller's output.
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
    if (PQsetnonblocking(conn, 1) != 0 || PQenterPipelineMode(conn) != 1) {
        co_return failed(trimmed(PQerrorMessage(conn)));
    }
    co_return connection;
}

Task<expected<void, PgFailure>> PgConnection::flush() {
    for (;;) {
        const int flushed = PQflush(conn_);
        if (flushed == 0) {
            co_return expected<void, PgFailure>{};
        }
        if (flushed < 0) {
            co_return unexpected(lost("sending statements"));
        }
        // The server may be writing to us while we write to it: read what came, then wait for room.
        const bool writable = co_await await(Wait::wait_write);
        if (!writable) {
            const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
            PgFailure failure = lost("sending statements");  // closed: the server rolls back
            if (cancelled) {
                failure.error =
                    DurableError{DurableErrc::cancelled, "cancelled while writing to run store " + shown_};
            }
            co_return unexpected(std::move(failure));
        }
        if (PQconsumeInput(conn_) == 0) {
            co_return unexpected(lost("sending statements"));
        }
    }
}

Task<expected<PGresult*, PgFailure>> PgConnection::next() {
    while (PQisBusy(conn_) == 1) {
        const bool readable = co_await await(Wait::wait_read);
        if (!readable) {
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                close();  // the server rolls back what the statements began
                co_return unexpected(PgFailure{
                    DurableError{DurableErrc::cancelled, "cancelled while waiting for run store " + shown_},
                    true});
            }
            co_return unexpected(lost("waiting for results"));
        }
        if (PQconsumeInput(conn_) == 0) {
            co_return unexpected(lost("reading results"));
        }
    }
    co_return PQgetResult(conn_);
}

Task<expected<std::vector<PgResult>, PgFailure>> PgConnection::pipeline(std::vector<PgQuery> queries) {
    if (!usable()) {
        co_return unexpected(lost("starting a statement"));
    }
    for (const PgQuery& query : queries) {
        std::vector<const char*> values;
        values.reserve(query.params.size());
        for (const auto& param : query.params) {
            values.push_back(param ? param->c_str() : nullptr);
        }
        if (PQsendQueryParams(conn_, query.sql.c_str(), static_cast<int>(values.size()), nullptr,
                              values.data(), nullptr, nullptr, 0) != 1) {
            co_return unexpected(lost("sending statements"));
        }
    }
    if (PQpipelineSync(conn_) != 1) {
        co_return unexpected(lost("sending statements"));
    }
    if (auto flushed = co_await flush(); !flushed) {
        co_return unexpected(flushed.error());
    }
    // Each statement's results end with a null; the pipeline's, with its sync. A statement refused makes
    // the server skip the rest (PGRES_PIPELINE_ABORTED) up to the sync.
    std::vector<PgResult> results;
    results.reserve(queries.size());
    std::optional<DurableError> refusal;
    bool statementEnded = true;
    for (;;) {
        auto next = co_await this->next();
        if (!next) {
            co_return unexpected(next.error());
        }
        if (*next == nullptr) {
            statementEnded = true;
            continue;
        }
        PgResult result(*next);
        const ExecStatusType status = PQresultStatus(*next);
        if (status == PGRES_PIPELINE_SYNC) {
            break;
        }
        if (!statementEnded) {
            continue;  // a statement's second result: none of ours has one
        }
        statementEnded = false;
        if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
            results.push_back(std::move(result));
        } else if (status == PGRES_FATAL_ERROR && !refusal) {
            refusal = refused(shown_, *next);
        } else if (status != PGRES_PIPELINE_ABORTED && !refusal) {
            refusal = DurableError{
                DurableErrc::storage_error,
                "run store " + shown_ + " answered a statement with " + std::string(PQresStatus(status))};
        }
    }
    if (refusal) {
        co_return unexpected(PgFailure{std::move(*refusal), false});
    }
    co_return results;
}

Task<expected<bool, PgFailure>> PgConnection::awaitNotification(std::chrono::milliseconds upTo) {
    if (!usable()) {
        co_return unexpected(lost("listening"));
    }
    const auto deadline = std::chrono::steady_clock::now() + upTo;
    for (;;) {
        bool notified = false;
        while (PGnotify* notification = PQnotifies(conn_)) {
            PQfreemem(notification);
            notified = true;
        }
        if (notified) {
            co_return true;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            co_return false;
        }
        auto readable = co_await withTimeout(await(Wait::wait_read), left);
        if (!readable) {
            if (readable.error().code == EffectErrc::cancelled) {
                co_return unexpected(PgFailure{
                    DurableError{DurableErrc::cancelled, "cancelled while listening to run store " + shown_},
                    false});
            }
            co_return false;
        }
        if (!*readable || PQconsumeInput(conn_) == 0) {
            co_return unexpected(lost("listening"));
        }
    }
}

}  // namespace reagent::durable
