#include "pg_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>

#include "reagent/core/cancellation.hpp"

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

Task<PgConnection::Waited> PgConnection::await(Wait what, std::chrono::milliseconds limit) {
    // The descriptor borrows libpq's socket for this wait: released, never closed, however the wait ends
    // (the frame may be destroyed while suspended, when its io_context shuts down). The limit is a timer
    // that cancels the wait: no task is spawned, and the caller's cancellation reaches the wait directly.
    struct Borrowed {
        explicit Borrowed(const Executor& executor) : socket(executor) {}
        Borrowed(const Borrowed&) = delete;
        Borrowed& operator=(const Borrowed&) = delete;
        asio::posix::stream_descriptor socket;
        bool expired = false;
        ~Borrowed() {
            if (socket.is_open()) {
                (void)socket.release();
            }
        }
    };
    const int fd = conn_ != nullptr ? PQsocket(conn_) : -1;
    if (fd < 0) {
        co_return Waited::failed;
    }
    const Executor executor = co_await asio::this_coro::executor;
    auto borrowed = std::make_shared<Borrowed>(executor);
    boost::system::error_code assigned;
    borrowed->socket.assign(fd, assigned);
    if (assigned) {
        co_return Waited::failed;
    }
    asio::steady_timer timer(executor);
    if (limit != std::chrono::milliseconds::max()) {
        timer.expires_after(limit);
        timer.async_wait([weak = std::weak_ptr<Borrowed>(borrowed)](const boost::system::error_code& ec) {
            if (auto waiting = weak.lock(); !ec && waiting) {
                waiting->expired = true;
                waiting->socket.cancel();
            }
        });
    }
    auto [ec] = co_await borrowed->socket.async_wait(what, asio::as_tuple(asio::use_awaitable));
    timer.cancel();
    if (!ec) {
        co_return Waited::ready;
    }
    co_return borrowed->expired ? Waited::timed_out : Waited::failed;
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
        const Wait what = polled == PGRES_POLLING_READING ? Wait::wait_read : Wait::wait_write;
        const Waited waited = co_await connection->await(what, left);
        if (waited != Waited::ready) {
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                co_return unexpected(DurableError{
                    DurableErrc::cancelled, "cancelled while connecting to run store " + connection->shown_});
            }
            co_return failed(waited == Waited::timed_out
                                 ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                 : std::string("its socket failed"));
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
        const Waited writable = co_await await(Wait::wait_write);
        if (writable != Waited::ready) {
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
        const Waited readable = co_await await(Wait::wait_read);
        if (readable != Waited::ready) {
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
    // A statement with parameters is prepared once per connection (named after the order it was first
    // seen), in the same pipeline as its first execution: the server plans it once, not on every call.
    // Each prepare is a result slot of its own, before its statement's.
    std::vector<std::string> preparing;  // per slot: the statement a prepare names, or empty
    for (const PgQuery& query : queries) {
        std::vector<const char*> values;
        values.reserve(query.params.size());
        for (const auto& param : query.params) {
            values.push_back(param ? param->c_str() : nullptr);
        }
        const int count = static_cast<int>(values.size());
        int sent = 0;
        if (query.params.empty()) {
            sent = PQsendQueryParams(conn_, query.sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
        } else {
            const std::string* name = nullptr;
            if (const auto ready = prepared_.find(query.sql); ready != prepared_.end()) {
                name = &ready->second;
            } else if (const auto coming = pending_.find(query.sql); coming != pending_.end()) {
                name = &coming->second;
            } else {
                name = &pending_.emplace(query.sql, "reagent_" + std::to_string(++statements_)).first->second;
                if (PQsendPrepare(conn_, name->c_str(), query.sql.c_str(), count, nullptr) != 1) {
                    co_return unexpected(lost("sending statements"));
                }
                preparing.push_back(query.sql);
            }
            sent = PQsendQueryPrepared(conn_, name->c_str(), count, values.data(), nullptr, nullptr, 0);
        }
        if (sent != 1) {
            co_return unexpected(lost("sending statements"));
        }
        preparing.emplace_back();
    }
    if (PQpipelineSync(conn_) != 1) {
        co_return unexpected(lost("sending statements"));
    }
    if (auto flushed = co_await flush(); !flushed) {
        co_return unexpected(flushed.error());
    }
    // Each slot's results end with a null; the pipeline's, with its sync. A statement refused makes the
    // server skip the rest (PGRES_PIPELINE_ABORTED) up to the sync.
    std::vector<PgResult> results;
    results.reserve(queries.size());
    std::optional<DurableError> refusal;
    std::size_t slot = 0;
    bool slotEnded = true;
    for (;;) {
        auto next = co_await this->next();
        if (!next) {
            pending_.clear();
            co_return unexpected(next.error());
        }
        if (*next == nullptr) {
            if (!slotEnded) {
                ++slot;
            }
            slotEnded = true;
            continue;
        }
        PgResult result(*next);
        const ExecStatusType status = PQresultStatus(*next);
        if (status == PGRES_PIPELINE_SYNC) {
            break;
        }
        if (!slotEnded) {
            continue;  // a statement's second result: none of ours has one
        }
        slotEnded = false;
        const bool prepare = slot < preparing.size() && !preparing[slot].empty();
        if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
            if (prepare) {
                prepared_.insert(pending_.extract(preparing[slot]));
            } else {
                results.push_back(std::move(result));
            }
        } else if (status == PGRES_FATAL_ERROR && !refusal) {
            refusal = refused(shown_, *next);
        } else if (status != PGRES_PIPELINE_ABORTED && !refusal) {
            refusal = DurableError{
                DurableErrc::storage_error,
                "run store " + shown_ + " answered a statement with " + std::string(PQresStatus(status))};
        }
    }
    pending_.clear();  // prepares the server skipped: made again next time
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
        const Waited readable = co_await await(Wait::wait_read, left);
        if (readable == Waited::timed_out) {
            co_return false;
        }
        if (readable == Waited::failed && isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return unexpected(PgFailure{
                DurableError{DurableErrc::cancelled, "cancelled while listening to run store " + shown_},
                false});
        }
        if (readable != Waited::ready || PQconsumeInput(conn_) == 0) {
            co_return unexpected(lost("listening"));
        }
    }
}

}  // namespace reagent::durable
