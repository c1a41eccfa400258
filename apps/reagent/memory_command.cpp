// `reagent memory search|recent|show`: reads the episodic memory that `reagent run --memory` writes.

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "trace.hpp"

namespace reagent::cli {

namespace {

using nlohmann::ordered_json;

ordered_json toJson(const memory::Episode& episode) {
    return ordered_json{{"id", episode.id},         {"timestamp", memory::formatTimestamp(episode.timestamp)},
                        {"action", episode.action}, {"tool", episode.tool},
                        {"input", episode.input},   {"result", episode.result}};
}

void printLine(const memory::Episode& episode, const std::string& excerpt) {
    std::cout << "#" << episode.id << "  " << memory::formatTimestamp(episode.timestamp) << "  "
              << episode.tool << "  " << oneLine(excerpt, 120) << "\n";
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
            item["snippet"] = hit.snippet;
            out.push_back(std::move(item));
        }
        std::cout << out.dump(2) << "\n";
        return kExitSuccess;
    }
    for (const auto& hit : *hits) {
        printLine(hit.episode, hit.snippet);
    }
    std::cerr << hits->size() << (hits->size() == 1 ? " episode matches" : " episodes match") << " \""
              << options.argument << "\"\n";
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
        std::cout << out.dump(2) << "\n";
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
        std::cout << toJson(*episode).dump(2) << "\n";
        return kExitSuccess;
    }
    std::cout << "#" << episode->id << "  " << memory::formatTimestamp(episode->timestamp) << "  "
              << episode->action << "  " << episode->tool << "\ninput: " << episode->input << "\nresult:\n"
              << episode->result << "\n";
    return kExitSuccess;
}

}  // namespace

int memoryCommand(const MemoryOptions& options) {
    // Reading never creates a database: a mistyped path should be reported, not become an empty file.
    std::error_code ec;
    if (!std::filesystem::exists(options.path, ec)) {
        std::cerr << "reagent: no episodic memory at '" << options.path
                  << "' (it is written by `reagent run --memory " << options.path << " ...`)\n";
        return kExitRunFailed;
    }
    auto store = memory::EpisodicStore::open(options.path);
    if (!store) {
        std::cerr << "reagent: " << store.error().describe() << "\n";
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
