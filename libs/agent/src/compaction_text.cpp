#include "compaction_text.hpp"

#include "reagent/core/detail/utf8.hpp"

namespace reagent::agent::detail {

namespace {

constexpr std::string_view kClearedPrefix =
    "[Cleared to save context. The full result is in working memory under ";
constexpr std::string_view kStoredPrefix = "[STORED: ";

std::string cut(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) {
        return std::string(text);
    }
    const std::string_view kept = reagent::detail::utf8Prefix(text, limit);
    return std::string(kept) + " … (" + std::to_string(text.size() - kept.size()) + " more bytes)";
}

}  // namespace

std::string clearedResult(std::string_view key) {
    return std::string(kClearedPrefix) + std::string(key) + ": read it with recall if you need it again.]";
}

bool isClearedResult(std::string_view text) noexcept {
    return text.substr(0, kClearedPrefix.size()) == kClearedPrefix;
}

std::string storedKeyOf(std::string_view text) {
    if (text.substr(0, kStoredPrefix.size()) != kStoredPrefix) {
        return {};
    }
    const std::string_view rest = text.substr(kStoredPrefix.size());
    const std::size_t end = rest.find(" | ");
    if (end == std::string_view::npos || end == 0 ||
        rest.substr(0, end).find('\n') != std::string_view::npos) {
        return {};
    }
    return std::string(rest.substr(0, end));
}

std::size_t pinnedEnd(const std::vector<llm::Message>& messages) noexcept {
    std::size_t end = 0;
    while (end < messages.size() && messages[end].role == llm::Role::system) {
        ++end;
    }
    for (std::size_t i = end; i < messages.size(); ++i) {
        if (messages[i].role == llm::Role::user) {
            return i + 1;
        }
    }
    return end;
}

bool isSummary(const llm::Message& message) noexcept {
    return message.role == llm::Role::user &&
           std::string_view(message.text).substr(0, kSummaryHeading.size()) == kSummaryHeading;
}

std::string transcriptLine(const llm::Message& message, std::size_t maxToolCharacters) {
    std::string line;
    switch (message.role) {
        case llm::Role::system:
            return {};
        case llm::Role::user:
            line = isSummary(message)
                       ? "Summary of the turns before: " +
                             std::string(std::string_view(message.text).substr(kSummaryHeading.size()))
                       : "User: " + message.text;
            break;
        case llm::Role::assistant:
            if (!message.text.empty()) {
                line = "Assistant: " + message.text + "\n";
            }
            for (const llm::ToolCall& call : message.toolCalls) {
                line += "Assistant called " + call.name + " " +
                        cut(call.arguments.dump(), maxToolCharacters) + "\n";
            }
            if (!line.empty()) {
                line.pop_back();
            }
            break;
        case llm::Role::tool:
            line = (message.isError ? "Error from " : "Result of ") + message.toolName + ": " +
                   cut(message.text, maxToolCharacters);
            break;
    }
    if (!message.attachments.empty()) {
        line += " [" + std::to_string(message.attachments.size()) + " attachment(s)]";
    }
    return line + "\n";
}

}  // namespace reagent::agent::detail
