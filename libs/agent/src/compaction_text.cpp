#include "compaction_text.hpp"

#include <algorithm>
#include <cctype>

#include "reagent/core/detail/utf8.hpp"
#include "reagent/memory/working_memory.hpp"

namespace reagent::agent::detail {

namespace {

constexpr std::string_view kClearedPrefix =
    "[Cleared to save context. The full result is in working memory under ";

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

namespace {

constexpr std::string_view kResultKeyPrefix = memory::WorkingMemory::kToolResultPrefix;

bool isKeyCharacter(char c) noexcept {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == ':' || c == '-';
}

// Calls `found(start, length)` for each whole `_tool_result_N` in `text`.
template <class Found>
void forEachResultKey(std::string_view text, Found found) {
    for (std::size_t at = text.find(kResultKeyPrefix); at != std::string_view::npos;
         at = text.find(kResultKeyPrefix, at + 1)) {
        std::size_t end = at + kResultKeyPrefix.size();
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) {
            ++end;
        }
        const bool whole = end > at + kResultKeyPrefix.size() && (at == 0 || !isKeyCharacter(text[at - 1])) &&
                           (end == text.size() || !isKeyCharacter(text[end]));
        if (whole) {
            found(at, end - at);
        }
    }
}

}  // namespace

void collectStoredKeys(std::string_view text, std::vector<std::string>& keys) {
    forEachResultKey(text, [&](std::size_t at, std::size_t length) {
        const std::string_view key = text.substr(at, length);
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            keys.emplace_back(key);
        }
    });
}

void renameStoredKeys(std::string& text, const std::map<std::string, std::string>& renamed) {
    if (renamed.empty()) {
        return;
    }
    std::string out;
    std::size_t copied = 0;
    forEachResultKey(text, [&](std::size_t at, std::size_t length) {
        const auto it = renamed.find(text.substr(at, length));
        if (it != renamed.end()) {
            out.append(text, copied, at - copied).append(it->second);
            copied = at + length;
        }
    });
    if (copied != 0) {
        text = out.append(text, copied, std::string::npos);
    }
}

std::size_t lastUserMessageWith(const std::vector<llm::Message>& messages, std::size_t from,
                                std::string_view text) {
    for (std::size_t i = messages.size(); i > from; --i) {
        if (messages[i - 1].role == llm::Role::user && messages[i - 1].text == text) {
            return i - 1;
        }
    }
    return static_cast<std::size_t>(-1);
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
