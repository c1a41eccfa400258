#pragma once
// The stream decoding of the SSE wire formats. Internal to the providers library.

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/http/sse_parser.hpp"
#include "reagent/providers/wire_format.hpp"

namespace reagent::providers::detail {

/// Bytes -> SSE events -> `Decoder`, a format's event decoder: `feed(const http::SseEvent&)` returning
/// the event's deltas, `finish()` returning the reply.
template <class Decoder>
class SseDecoding final : public StreamDecoding {
  public:
    explicit SseDecoding(ToolNameMap names) : decoder_(std::move(names)) {}

    expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(std::string_view bytes) override {
        std::vector<llm::StreamDelta> out;
        for (const http::SseEvent& event : parser_.feed(bytes)) {
            ++frames_;
            auto deltas = decoder_.feed(event);
            if (!deltas) {
                return fail(std::move(deltas.error()));
            }
            for (auto& delta : *deltas) {
                out.push_back(std::move(delta));
            }
        }
        return out;
    }

    std::size_t pendingBytes() const noexcept override { return parser_.pendingBytes(); }
    std::size_t framesSeen() const noexcept override { return frames_; }

    expected<llm::ModelReply, llm::ProviderError> finish() override {
        (void)parser_.finish();
        return decoder_.finish();
    }

  private:
    http::SseParser parser_;
    Decoder decoder_;
    std::size_t frames_ = 0;
};

}  // namespace reagent::providers::detail
