#include "frame_decoding.hpp"

#include <string>
#include <utility>

#include "reagent/http/sse_parser.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::detail {

namespace {

class FrameDecoding final : public StreamDecoding {
  public:
    FrameDecoding(const StreamRules& rules, ToolNameMap names)
        : rules_(rules), assembler_(std::string(rules.provider), std::move(names)) {}

    expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(std::string_view bytes) override {
        std::vector<llm::StreamDelta> out;
        if (rules_.framing == Framing::sse) {
            for (const http::SseEvent& event : parser_.feed(bytes)) {
                if (!frame(event.type, event.data, out)) {
                    return fail(failed());
                }
            }
            return out;
        }
        for (auto newline = bytes.find('\n'); newline != std::string_view::npos; newline = bytes.find('\n')) {
            pending_.append(bytes.substr(0, newline));
            const std::string line = std::exchange(pending_, std::string());
            if (!ndjsonLine(line, out)) {
                return fail(failed());
            }
            bytes.remove_prefix(newline + 1);
        }
        pending_.append(bytes);
        return out;
    }

    std::size_t pendingBytes() const noexcept override {
        return rules_.framing == Framing::sse ? parser_.pendingBytes() : pending_.size();
    }

    std::size_t framesSeen() const noexcept override { return frames_; }
    llm::Usage usageSoFar() const override { return assembler_.usage(); }

    expected<llm::ModelReply, llm::ProviderError> finish() override {
        if (rules_.framing == Framing::sse) {
            (void)parser_.finish();  // an event without its blank line is not complete: dropped
        } else if (!pending_.empty()) {
            // A last line may end without its newline.
            const std::string line = std::exchange(pending_, std::string());
            std::vector<llm::StreamDelta> unused;
            (void)ndjsonLine(line, unused);
        }
        if (failure_) {
            return fail(failed());
        }
        if (!done_ && !assembler_.stopReasonKnown()) {
            failure_ = incompleteStream(rules_.provider, rules_.missing);
            return fail(failed());
        }
        return assembler_.finish();
    }

  private:
    // The stream's failure, with what it had spent.
    llm::ProviderError failed() const {
        llm::ProviderError error = *failure_;
        error.usage = assembler_.usage();
        return error;
    }

    // Reads one frame; false once the stream has failed.
    bool frame(std::string_view type, std::string_view data, std::vector<llm::StreamDelta>& out) {
        if (failure_) {
            return false;
        }
        ++frames_;
        failure_ = rules_.read(type, data, assembler_, done_, out);
        return !failure_;
    }

    bool ndjsonLine(std::string_view line, std::vector<llm::StreamDelta>& out) {
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (line.find_first_not_of(" \t") == std::string_view::npos) {
            return !failure_;
        }
        return frame({}, line, out);
    }

    const StreamRules& rules_;
    ReplyAssembler assembler_;
    http::SseParser parser_;
    std::string pending_;
    std::size_t frames_ = 0;
    bool done_ = false;
    std::optional<llm::ProviderError> failure_;
};

}  // namespace

std::unique_ptr<StreamDecoding> decodeStream(const StreamRules& rules, ToolNameMap names) {
    return std::make_unique<FrameDecoding>(rules, std::move(names));
}

}  // namespace reagent::providers::detail
