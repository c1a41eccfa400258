#pragma once
// `EventStream`: one server-sent event stream of an HTTP session, with no I/O: numbered events, the
// ones not yet written, and a bounded replay buffer for clients that resume with `Last-Event-ID`.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace reagent::mcp::detail {

/// An event id on the wire: `<stream>-<sequence>`; sequence 0 is the priming event.
struct EventId {
    std::uint64_t stream = 0;
    std::uint64_t sequence = 0;
};

/// `"3-17"` to {3, 17}; nothing when `text` is not of that form.
[[nodiscard]] std::optional<EventId> parseEventId(std::string_view text) noexcept;

/// One event as written: `id:`, `event: message` and the frame as `data:` lines.
[[nodiscard]] std::string formatEvent(EventId id, std::string_view frame);

/// The first event of a stream (2025-11-25): an id (`id`, the last event the client has) and empty data,
/// so that a client cut off before any message can still resume, and `retry:` (milliseconds).
[[nodiscard]] std::string primingEvent(EventId id, std::uint64_t retryMs);

/// A stream's events. Events are kept (at most `keep`) after they were written, for replay.
class EventStream {
  public:
    EventStream(std::uint64_t number, std::size_t keep) : number_(number), keep_(keep == 0 ? 1 : keep) {}

    [[nodiscard]] std::uint64_t number() const noexcept { return number_; }

    /// Adds an event carrying `frame` and tells the writer (`onData`), if one is attached.
    void push(std::string_view frame);
    /// No more events will come (a POST's responses were all sent, or the session ended).
    void end();
    [[nodiscard]] bool ended() const noexcept { return ended_; }

    /// The text of the kept events after `sequence`, and the sequence of the last of them.
    struct Batch {
        std::string text;
        std::uint64_t last = 0;
    };
    [[nodiscard]] Batch after(std::uint64_t sequence) const;
    /// True when every event after `sequence` is still kept (a resumption from there loses nothing).
    [[nodiscard]] bool canReplayFrom(std::uint64_t sequence) const noexcept;
    /// The sequence of the last event pushed (0: none).
    [[nodiscard]] std::uint64_t last() const noexcept { return next_ - 1; }

    /// Events up to this sequence were written to some connection.
    std::uint64_t written = 0;
    /// A connection is writing this stream.
    bool attached = false;
    /// Called when an event is pushed or the stream ends (the attached writer wakes up).
    std::function<void()> onData;

  private:
    struct Event {
        std::uint64_t sequence;
        std::string text;
    };
    std::uint64_t number_;
    std::size_t keep_;
    std::uint64_t next_ = 1;
    std::deque<Event> events_;
    bool ended_ = false;
};

}  // namespace reagent::mcp::detail
