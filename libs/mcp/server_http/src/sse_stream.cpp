// EventStream: numbered server-sent events, kept for replay.

#include "sse_stream.hpp"

#include <charconv>

namespace reagent::mcp::detail {

namespace {

[[nodiscard]] std::optional<std::uint64_t> number(std::string_view text) noexcept {
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) {
        return std::nullopt;
    }
    return value;
}

}  // namespace

std::optional<EventId> parseEventId(std::string_view text) noexcept {
    const std::size_t dash = text.find('-');
    if (dash == std::string_view::npos) {
        return std::nullopt;
    }
    const auto stream = number(text.substr(0, dash));
    const auto sequence = number(text.substr(dash + 1));
    if (!stream || !sequence) {
        return std::nullopt;
    }
    return EventId{*stream, *sequence};
}

std::string formatEvent(EventId id, std::string_view frame) {
    std::string text =
        "id: " + std::to_string(id.stream) + "-" + std::to_string(id.sequence) + "\nevent: message\n";
    text.reserve(text.size() + frame.size() + 16);
    // A frame is one line (JSON escapes newlines); should it hold some, each line is its own `data:`.
    while (true) {
        const std::size_t newline = frame.find('\n');
        text += "data: ";
        text += frame.substr(0, newline);
        text += '\n';
        if (newline == std::string_view::npos) {
            break;
        }
        frame.remove_prefix(newline + 1);
    }
    text += '\n';
    return text;
}

std::string primingEvent(EventId id, std::uint64_t retryMs) {
    return "id: " + std::to_string(id.stream) + "-" + std::to_string(id.sequence) +
           "\nretry: " + std::to_string(retryMs) + "\ndata: \n\n";
}

void EventStream::push(std::string_view frame) {
    if (ended_) {
        return;
    }
    const std::uint64_t sequence = next_++;
    events_.push_back(Event{sequence, formatEvent(EventId{number_, sequence}, frame)});
    while (events_.size() > keep_) {
        events_.pop_front();
    }
    if (onData) {
        onData();
    }
}

void EventStream::end() {
    if (ended_) {
        return;
    }
    ended_ = true;
    if (onData) {
        onData();
    }
}

EventStream::Batch EventStream::after(std::uint64_t sequence) const {
    Batch batch{{}, sequence};
    for (const auto& event : events_) {
        if (event.sequence > sequence) {
            batch.text += event.text;
            batch.last = event.sequence;
        }
    }
    return batch;
}

bool EventStream::canReplayFrom(std::uint64_t sequence) const noexcept {
    if (sequence > last()) {
        return false;
    }
    return events_.empty() ? sequence == last() : events_.front().sequence <= sequence + 1;
}

}  // namespace reagent::mcp::detail
