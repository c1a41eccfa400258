#pragma once
// Images and documents (`llm::Attachment`) as each API's content parts, and what an API cannot take.
// Internal to the providers library.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_writer.hpp"
#include "reagent/llm/attachment.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/providers/codec_options.hpp"

namespace reagent::providers::detail {

/// The bytes of an attachment by value, in base64.
[[nodiscard]] std::string base64Of(const llm::Attachment& attachment);

/// "data:<media type>;base64,<bytes>" for bytes, the URL for an attachment by URL.
[[nodiscard]] std::string urlOf(const llm::Attachment& attachment);

/// Anthropic: an `image` or `document` block, its source `base64` or `url`.
void writeAnthropicBlock(JsonWriter& out, const llm::Attachment& attachment);

/// OpenAI Chat Completions: an `image_url` part, or a `file` part (a PDF's bytes, with its file name).
void writeOpenAiPart(JsonWriter& out, const llm::Attachment& attachment);

/// Gemini: an `inlineData` part for bytes, a `fileData` part for a URL.
void writeGeminiPart(JsonWriter& out, const llm::Attachment& attachment);

/// What one API can take, for `refusal`.
struct AttachmentSupport {
    std::string_view api;
    bool imageUrls = true;
    bool documents = true;
    bool documentUrls = true;
};

/// Why the API cannot take one of `request`'s attachments ("openai cannot take a PDF document by URL
/// (message 3, 'report.pdf'): ..."), or none. Only user messages and tool results may carry attachments.
[[nodiscard]] std::optional<std::string> refusal(const llm::ModelRequest& request,
                                                 const AttachmentSupport& api);

/// For APIs whose tool messages hold text only (OpenAI, Ollama): calls `write(i)` for each message in
/// turn, and `attach(first, last)` after each run of tool results [first, last) of which one carries
/// attachments, to send them in a user message of their own.
template <class Write, class Attach>
void forEachMessage(const std::vector<llm::Message>& messages, Write write, Attach attach) {
    std::size_t first = 0;
    bool attached = false;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const bool tool = messages[i].role == llm::Role::tool;
        if (tool && (i == 0 || messages[i - 1].role != llm::Role::tool)) {
            first = i;
            attached = false;
        }
        write(i);
        attached = attached || (tool && !messages[i].attachments.empty());
        if (tool && attached && (i + 1 == messages.size() || messages[i + 1].role != llm::Role::tool)) {
            attach(first, i + 1);
        }
    }
}

/// `refusal` for one API's support, as a plain function (`WireFormat::refuse`).
template <const AttachmentSupport& kSupport>
std::optional<std::string> refuseWith(const llm::ModelRequest& request, const CodecOptions& /*options*/) {
    return refusal(request, kSupport);
}

/// The attachments of messages [first, last), in order.
[[nodiscard]] std::vector<llm::Attachment> attachmentsIn(const std::vector<llm::Message>& messages,
                                                         std::size_t first, std::size_t last);

/// The text of the user message that carries tool results' attachments for APIs whose tool messages hold
/// text only: which results they belong to.
[[nodiscard]] std::string toolAttachmentsNote(const std::vector<llm::Message>& messages, std::size_t first,
                                              std::size_t last);

}  // namespace reagent::providers::detail
