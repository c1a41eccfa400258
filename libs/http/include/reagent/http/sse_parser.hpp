#pragma once
/// \file
/// \brief `SseParser`: an incremental, sans-io parser of `text/event-stream` bodies (server-sent events).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::http {

/// \brief One dispatched server-sent event. Its content comes from the network and is untrusted.
struct SseEvent {
    /// The `event:` field of the event, or "message" when it had none.
    std::string type = "message";
    /// The `data:` lines joined with '\n' (valid UTF-8: invalid bytes are replaced by U+FFFD).
    std::string data;
    /// The last `id:` seen on the stream so far (it persists across events), or empty.
    std::string lastEventId;
    /// The reconnection time in effect when the event was dispatched (the last valid `retry:`), if any.
    std::optional<std::chrono::milliseconds> retry;

    friend bool operator==(const SseEvent&, const SseEvent&) = default;
};

/// \brief Turns the bytes of an event stream into events, following the WHATWG HTML "Server-sent
/// events" parsing and interpretation rules.
///
/// Bytes may arrive split anywhere: inside a field, between CR and LF, inside a multi-byte UTF-8
/// character or inside the leading byte order mark; the events produced do not depend on the split.
/// Lines end with CRLF, LF or CR. One leading UTF-8 BOM is skipped. Lines starting with ':' are comments.
/// An event is dispatched only on a blank line, and only if it carried data; unknown fields are ignored;
/// an `id:` containing NUL is ignored; a `retry:` that is not all ASCII digits is ignored (a value too
/// large for `std::chrono::milliseconds` saturates).
///
/// \par Errors
/// None: every byte sequence is a valid event stream. Invalid UTF-8 becomes U+FFFD.
///
/// \par Thread safety
/// Not thread-safe; one parser per stream.
class SseParser {
  public:
    /// \brief Consumes the next bytes of the stream and returns the events they completed, in order.
    [[nodiscard]] std::vector<SseEvent> feed(std::string_view bytes);

    /// \brief Ends the stream: per the spec an event not yet terminated by a blank line is discarded,
    /// so this always returns no event (it exists so a reader treats both calls alike).
    ///
    /// The parser is then ready for a new stream (a reconnection): the BOM check is re-armed, while the
    /// last event ID and the reconnection time are kept, as an `EventSource` keeps them.
    [[nodiscard]] std::vector<SseEvent> finish();

    /// \brief Bytes held for the event in progress (its unterminated line and its data so far): what a
    /// caller bounds to stop an endless line or event from filling memory.
    [[nodiscard]] std::size_t pendingBytes() const noexcept { return line_.size() + data_.size(); }

    /// \brief The last event ID buffer (what a reconnection sends as `Last-Event-ID`).
    [[nodiscard]] const std::string& lastEventId() const noexcept { return lastEventId_; }
    /// \brief The reconnection time the server set with `retry:`, if it did (even without an event).
    [[nodiscard]] std::optional<std::chrono::milliseconds> reconnectionTime() const noexcept {
        return retry_;
    }

  private:
    void consume(std::string_view bytes, std::vector<SseEvent>& out);
    void processLine(std::string_view line, std::vector<SseEvent>& out);
    void processField(std::string_view field, std::string_view value);
    void dispatch(std::vector<SseEvent>& out);

    /// Bytes of the current line, not yet terminated.
    std::string line_;
    /// The first bytes of the stream while they may still be a split BOM.
    std::string start_;
    bool started_ = false;
    /// The previous chunk ended with CR: an LF opening the next one ends nothing.
    bool skipLf_ = false;
    std::string data_;
    std::string eventType_;
    std::string lastEventId_;
    std::optional<std::chrono::milliseconds> retry_;
};

}  // namespace reagent::http
