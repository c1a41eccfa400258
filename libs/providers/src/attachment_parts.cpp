#include "attachment_parts.hpp"

#include "reagent/core/base64.hpp"

namespace reagent::providers::detail {

namespace {

std::string describeAttachment(const llm::Attachment& attachment) {
    const std::string what = attachment.kind == llm::MediaKind::document ? "a PDF document" : "an image";
    return what + (attachment.url.empty() ? "" : " by URL");
}

}  // namespace

std::string base64Of(const llm::Attachment& attachment) {
    return attachment.bytes ? base64Encode(*attachment.bytes) : std::string();
}

std::string urlOf(const llm::Attachment& attachment) {
    if (!attachment.url.empty()) {
        return attachment.url;
    }
    return "data:" + attachment.mediaType + ";base64," + base64Of(attachment);
}

void writeAnthropicBlock(JsonWriter& out, const llm::Attachment& attachment) {
    out.beginObject().key("source").beginObject();
    if (attachment.url.empty()) {
        out.key("data").string(base64Of(attachment)).key("media_type").string(attachment.mediaType);
        out.key("type").string("base64");
    } else {
        out.key("type").string("url").key("url").string(attachment.url);
    }
    out.endObject();
    out.key("type").string(attachment.kind == llm::MediaKind::document ? "document" : "image").endObject();
}

void writeOpenAiPart(JsonWriter& out, const llm::Attachment& attachment) {
    out.beginObject();
    if (attachment.kind == llm::MediaKind::document) {
        out.key("file").beginObject().key("file_data").string(urlOf(attachment));
        out.key("filename").string(attachment.name.empty() ? "document.pdf" : attachment.name).endObject();
        out.key("type").string("file");
    } else {
        out.key("image_url").beginObject().key("url").string(urlOf(attachment)).endObject();
        out.key("type").string("image_url");
    }
    out.endObject();
}

void writeGeminiPart(JsonWriter& out, const llm::Attachment& attachment) {
    out.beginObject();
    if (attachment.url.empty()) {
        out.key("inlineData").beginObject().key("data").string(base64Of(attachment));
        out.key("mimeType").string(attachment.mediaType).endObject();
    } else {
        out.key("fileData").beginObject().key("fileUri").string(attachment.url);
        out.key("mimeType").string(attachment.mediaType).endObject();
    }
    out.endObject();
}

std::optional<std::string> refusal(const llm::ModelRequest& request, const AttachmentSupport& api) {
    for (std::size_t i = 0; i < request.messages.size(); ++i) {
        const llm::Message& message = request.messages[i];
        for (const llm::Attachment& attachment : message.attachments) {
            const std::string where = " (message " + std::to_string(i + 1) +
                                      (attachment.name.empty() ? "" : ", '" + attachment.name + "'") + ")";
            if (message.role != llm::Role::user && message.role != llm::Role::tool) {
                return "only user messages and tool results carry attachments, not " +
                       std::string(llm::toString(message.role)) +
                       " messages: " + describeAttachment(attachment) + where;
            }
            const bool document = attachment.kind == llm::MediaKind::document;
            const bool byUrl = !attachment.url.empty();
            if ((document && !api.documents) || (document && byUrl && !api.documentUrls) ||
                (!document && byUrl && !api.imageUrls)) {
                return std::string(api.api) + " cannot take " + describeAttachment(attachment) + where +
                       (byUrl && (document ? api.documents : true) ? ": attach the file's bytes instead"
                                                                   : "");
            }
        }
    }
    return std::nullopt;
}

std::vector<llm::Attachment> attachmentsIn(const std::vector<llm::Message>& messages, std::size_t first,
                                           std::size_t last) {
    std::vector<llm::Attachment> attachments;
    for (std::size_t i = first; i < last; ++i) {
        attachments.insert(attachments.end(), messages[i].attachments.begin(), messages[i].attachments.end());
    }
    return attachments;
}

std::string toolAttachmentsNote(const std::vector<llm::Message>& messages, std::size_t first,
                                std::size_t last) {
    std::string note = "Attached by the tool results above:";
    for (std::size_t i = first; i < last; ++i) {
        const llm::Message& message = messages[i];
        if (message.attachments.empty()) {
            continue;
        }
        note += " " + message.toolName + " (call " + message.toolCallId +
                "): " + std::to_string(message.attachments.size()) + " file(s);";
    }
    note.back() = '.';
    return note;
}

}  // namespace reagent::providers::detail
