#pragma once
// `HttpSession`: one MCP session of the streamable HTTP server seen from HTTP, with no I/O. It routes the
// frames of the session's core to the POST that owes them (by `OutgoingFrame::relatedRequest`) or to the
// standalone GET stream, and keeps the streams a client may resume.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/mcp/server.hpp"
#include "sse_stream.hpp"

namespace reagent::mcp::detail {

/// A frame a POST hands to its session: its text, and the requests in it (views into the POST).
struct PostedFrame {
    std::string_view text;
    std::span<const RequestId> requests;
    /// The POST's MCP headers, for a 2026-07-28 request (checked against its body); null otherwise.
    const RequestHeaders* headers = nullptr;
};

/// A POST that carried requests: the responses it still owes, and where its messages go (its event
/// stream, or, in JSON mode, the responses gathered for one body).
struct Exchange {
    Exchange(std::uint64_t number, std::size_t keep, bool jsonReply)
        : events(number, keep), json(jsonReply) {}
    EventStream events;
    bool json;
    std::vector<std::string> responses;
    std::set<RequestId> open;
    /// The last response routed here (in either mode), and its refusal code (`OutgoingFrame::refusal`).
    std::string response;
    int refusal = 0;
};

class HttpSession {
  public:
    HttpSession(std::string id, std::size_t keep) : id_(std::move(id)), keep_(keep), standalone_(0, keep) {}
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    [[nodiscard]] const std::string& id() const noexcept { return id_; }

    /// The session's core (set once, right after the session is made).
    std::shared_ptr<ServerSession> core;
    /// The last request or stream end seen, for the idle expiry.
    std::chrono::steady_clock::time_point lastSeen = std::chrono::steady_clock::now();
    /// Connections writing one of the session's streams now.
    std::size_t streamsOpen = 0;

    /// A new exchange for a POST (SSE or JSON reply).
    [[nodiscard]] std::shared_ptr<Exchange> openExchange(bool json);
    /// Hands `frames` to the core, in order, on behalf of `exchange`, which owes responses to their
    /// requests. Responses made at once land in the exchange; a frame the core refuses whole (malformed:
    /// one error, with no request of it run) owes nothing more; an exchange with nothing left open is ended.
    void deliver(const std::vector<PostedFrame>& frames, const std::shared_ptr<Exchange>& exchange);
    /// One frame, `body`, owing responses to `requests`.
    void deliver(std::string_view body, const std::shared_ptr<Exchange>& exchange,
                 const std::vector<RequestId>& requests) {
        deliver(std::vector<PostedFrame>{PostedFrame{body, requests}}, exchange);
    }
    /// The core's frames (its `FrameSink`).
    void route(OutgoingFrame frame);

    /// The standalone stream (number 0): messages tied to no request.
    [[nodiscard]] EventStream& standalone() noexcept { return standalone_; }
    /// The stream numbered `number` (0, or a POST's kept for resumption), or null.
    [[nodiscard]] std::shared_ptr<EventStream> stream(std::uint64_t number,
                                                      const std::shared_ptr<HttpSession>& self);
    /// A POST's stream was written to its end: it need not be kept for resumption.
    void release(std::uint64_t number);

    /// Ends every stream (the session was deleted, expired or the server stops).
    void end();
    [[nodiscard]] bool ended() const noexcept { return ended_; }

  private:
    std::string id_;
    std::size_t keep_;
    EventStream standalone_;
    std::uint64_t nextExchange_ = 1;
    std::shared_ptr<Exchange> current_;
    // The core answered the frame being delivered with an error tied to no request: it refused it whole.
    bool refusedWhole_ = false;
    std::map<RequestId, std::shared_ptr<Exchange>> routes_;
    // Event-stream exchanges a client may resume: not finished, or cut off before their end was written.
    std::map<std::uint64_t, std::shared_ptr<Exchange>> kept_;
    bool ended_ = false;
};

}  // namespace reagent::mcp::detail
