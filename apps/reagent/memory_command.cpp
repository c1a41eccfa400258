// `reagent memory search|recent|show`: reads the episodic memory that `reagent run --memory` writes.

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "terminal_text.hpp"
#include "trace.hpp"

namespace reagent::cli {

namespace {

using nlohmann::ordered_json;

// Stored text is untrusted and may hold invalid UTF-8 (tool output is stored byte for byte): each byte
// that does not start a well-formed sequence becomes U+FFFD in JSON output. Text output goes through
// terminalSafe, which also makes escape sequences visible.
std::string shown(std::string_view text) {
    std::string out;
    detail::appendValidUtf8(out, text);
    return out;
}

// The JSON text of `value`; invalid UTF-8 that slipped through becomes U+FFFD rather than an exception.
std::string dumped(const ordered_json& value) {
    return value.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

// An attachment as `show` describes it: its type, name and size, or its URL (never the bytes).
ordered_json toJson(const llm::Attachment& attachment) {
    ordered_json out{{"mediaType", attachment.mediaType}, {"name", shown(attachment.name)}};
    if (attachment.bytes) {
        out["bytes"] = attachment.size();
        out["sha256"] = llm::contentHash(*attachment.bytes);
    } else {
        out["url"] = shown(attachment.url);
    }
    return out;
}

ordered_json toJson(const memory::Episode& episode) {
    ordered_json out{{"id", episode.id},
                     {"timestamp", shown(memory::formatTimestamp(episode))},
                     {"timestampValid", !episode.invalidTimestamp.has_value()},
                     {"action", shown(episode.action)},
                     {"tool", shown(episode.tool)},
                     {"input", shown(episode.input)},
                     {"result", shown(episode.result)}};
    if (!episode.attachments.empty()) {
        auto attachments = ordered_json::array();
        for (const llm::Attachment& attachment : episode.attachments) {
            attachments.push_back(toJson(attachment));
        }
        out["attachments"] = std::move(attachments);
    }
    return out;
}

void printLine(const memory::Episode& episode, const std::string& excerpt) {
    std::cout << "#" << episode.id << "  " << terminalSafe(memory::formatTimestamp(episode)) << "  "
              << terminalSafe(episode.tool) << "  " << oneLine(excerpt, 120) << "\n";
}

int search(const memory::EpisodicStore& store, const MemoryOptions& options) {
    auto hits = store.search(options.argument, options.limit);
    if (!hits) {
        std::cerr << "reagent: " << hits.error().describe() << "\n";
        return kExitRunFailed;
    }
    if (options.json) {
        auto out = ordered_json::array();
        for (const auto& hit : *hits) {
            auto item = toJson(hit.episode);
            item["snippet"] = shown(hit.snippet);
            out.push_back(std::move(item));
        }
        std::cout << dumped(out) << "\n";
        return kExitSuccess;
    }
    for (const auto& hit : *hits) {
        printLine(hit.episode, hit.snippet);
    }
    std::cerr << hits->size() << (hits->size() == 1 ? " episode matches" : " episodes match") << " \""
              << terminalSafe(options.argument) << "\"\n";
    return kExitSuccess;
}

int recent(const memory::EpisodicStore& store, const MemoryOptions& options) {
    auto episodes = store.recent(options.limit);
    if (!episodes) {
        std::cerr << "reagent: " << episodes.error().describe() << "\n";
        return kExitRunFailed;
    }
    if (options.json) {
        auto out = ordered_json::array();
        for (const auto& episode : *episodes) {
            out.push_back(toJson(episode));
        }
        std::cout << dumped(out) << "\n";
        return kExitSuccess;
    }
    for (const auto& episode : *episodes) {
        printLine(episode, episode.result);
    }
    return kExitSuccess;
}

int show(const memory::EpisodicStore& store, const MemoryOptions& options) {
    std::int64_t id = 0;
    const auto* end = options.argument.data() + options.argument.size();
    if (auto [ptr, ec] = std::from_chars(options.argument.data(), end, id); ec != std::errc{} || ptr != end) {
        std::cerr << "reagent: show needs an episode id (a number, as search and recent print it), got '"
                  << options.argument << "'\n";
        return kExitUsage;
    }
    auto episode = store.find(id);
    if (!episode) {
        std::cerr << "reagent: " << episode.error().describe() << "\n";
        return kExitRunFailed;
    }
    if (options.json) {
        std::cout << dumped(toJson(*episode)) << "\n";
        return kExitSuccess;
    }
    std::cout << "#" << episode->id << "  " << terminalSafe(memory::formatTimestamp(*episode)) << "  "
              << terminalSafe(episode->action) << "  " << terminalSafe(episode->tool)
              << "\ninput: " << terminalSafe(episode->input) << "\nresult:\n"
              << terminalSafe(episode->result) << "\n";
    for (const llm::Attachment& attachment : episode->attachments) {
        std::cout << "attachment: " << attachment.mediaType;
        if (!attachment.name.empty()) {
            std::cout << " '" << terminalSafe(attachment.name) << "'";
        }
        std::cout << (attachment.bytes ? ", " + std::to_string(attachment.size()) + " bytes"
                                       : " at " + terminalSafe(attachment.url))
                  << "\n";
    }
    return kExitSuccess;
}

}  // namespace

int memoryCommand(const MemoryOptions& options) {
    // Reading never creates, writes or converts a file: a mistyped path is reported, not made a store.
    auto store = memory::EpisodicStore::openReadOnly(options.path);
    if (!store) {
        std::error_code ec;
        if (!std::filesystem::exists(std::filesystem::symlink_status(options.path, ec))) {
            std::cerr << "reagent: no episodic memory at '" << options.path
                      << "' (it is written by `reagent run --memory " << options.path << " ...`)\n";
        } else {
            std::cerr << "reagent: " << store.error().describe() << "\n";
        }
        return kExitRunFailed;
    }
    if (options.action == "search") {
        return search(*store, options);
    }
    if (options.action == "recent") {
        return recent(*store, options);
    }
    return show(*store, options);
}

}  // namespace reagent::cli
