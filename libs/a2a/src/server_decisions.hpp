#pragma once
// The A2A server's decisions, with no I/O: what each HTTP request gets. A reply now, or a task to wait
// for or to stream; server.cpp performs the waits and the streams.

#include "reagent/http/server_connections.hpp"
#include "server_state.hpp"
#include "server_trace.hpp"

namespace reagent::a2a::detail {

/// What a request gets.
struct Decision {
    enum class Then {
        /// `reply`, now.
        reply,
        /// The task's events as an event stream (`message/stream`), then the connection closes.
        stream,
        /// When the task is terminal, the send's result (a blocking `message/send`).
        sendResultWhenTerminal,
        /// When the task is accepted (or terminal), the send's result (a `message/send` that returns at
        /// once, on a server with a task directory).
        sendResultWhenAccepted,
        /// When the task is terminal, the task (`tasks/cancel`, whose cancellation was requested).
        taskWhenTerminal,
        /// The task `taskId` as `directory` has it (`tasks/get`).
        findInDirectory,
        /// The task `taskId` cancelled in `directory`, unless it is terminal (`tasks/cancel`).
        cancelInDirectory,
    };
    Then then = Then::reply;
    http::ServerReply reply;
    EntryPtr entry;
    std::shared_ptr<TaskDirectory> directory;
    std::string taskId;
    jsonrpc::RequestId id;
    ProtocolVersion version = ProtocolVersion::v1_0;
    /// The JSON-RPC method asked for; `_OTHER` for one the server does not know (sent as
    /// `rpcMethodOriginal`); empty when the body was no request.
    std::string rpcMethod;
    std::string rpcMethodOriginal;
    /// The code of the JSON-RPC error answered; 0 when none.
    int rpcErrorCode = 0;
};

/// Decides what `request` gets. Applies the rules of reagent's HTTP servers first (Host, Origin, bearer
/// token, a JSON POST), then routes: the card, or a JSON-RPC call. A send starts its task; a cancel
/// requests the task's cancellation.
[[nodiscard]] Decision decide(const StatePtr& s, http::ServerRequest request, const SpanContext& trace);
// `decide`, continuing the trace the request's own headers name (`callerTrace`).
[[nodiscard]] inline Decision decide(const StatePtr& s, http::ServerRequest request) {
    const SpanContext trace = callerTrace(request.headers);
    return decide(s, std::move(request), trace);
}

/// A JSON reply: status, body, and `WWW-Authenticate` when `challenge` is not empty.
[[nodiscard]] http::ServerReply jsonReply(unsigned status, std::string body,
                                          const std::string& challenge = {});

}  // namespace reagent::a2a::detail
