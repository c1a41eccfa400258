#include "tool_attachments.hpp"

#include <utility>

#include "reagent/core/base64.hpp"

namespace reagent::agent::detail {

namespace {

using nlohmann::json;

std::string member(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::vector<llm::Attachment> attachmentsOf(const std::vector<json>& content, std::string& notes) {
    std::vector<llm::Attachment> attachments;
    for (const json& block : content) {
        if (!block.is_object()) {
            continue;
        }
        const std::string type = member(block, "type");
        const json* holder = &block;
        std::string data;
        std::string name;
        if (type == "image") {
            data = member(block, "data");
        } else if (type == "resource" && block.contains("resource") && block["resource"].is_object()) {
            holder = &block["resource"];
            data = member(*holder, "blob");
            name = member(*holder, "uri");
            name.erase(0, name.find_last_of("/:") + 1);  // the file name, for the APIs that want one
            if (data.empty()) {
                continue;  // a text resource: in the result's text already
            }
        } else {
            continue;
        }
        const std::string what =
            (type == "image" ? type : member(*holder, "uri")) + " (" + member(*holder, "mimeType") + ")";
        auto bytes = base64Decode(data);
        if (!bytes) {
            notes += "\n[" + what + ": not shown: its data is not base64]";
            continue;
        }
        auto attachment = llm::Attachment::fromBytes(std::move(*bytes), std::move(name));
        if (!attachment) {
            notes += "\n[" + what + ": not shown: " + attachment.error().message + "]";
            continue;
        }
        attachments.push_back(std::move(*attachment));
    }
    return attachments;
}

std::vector<json> contentOf(const std::vector<llm::Attachment>& attachments, std::string& notes) {
    std::vector<json> content;
    for (const llm::Attachment& attachment : attachments) {
        if (!attachment.bytes) {
            notes += "\n[" + attachment.mediaType + " at " + attachment.url + "]";
            continue;
        }
        if (attachment.kind == llm::MediaKind::image) {
            content.push_back({{"type", "image"},
                               {"data", base64Encode(*attachment.bytes)},
                               {"mimeType", attachment.mediaType}});
        } else {
            content.push_back(
                {{"type", "resource"},
                 {"resource",
                  {{"uri", "attachment:" + (attachment.name.empty() ? "document" : attachment.name)},
                   {"mimeType", attachment.mediaType},
                   {"blob", base64Encode(*attachment.bytes)}}}});
        }
    }
    return content;
}

}  // namespace reagent::agent::detail
