#include "reagent/memory/working_memory.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "utf8.hpp"

namespace reagent::memory {
namespace {

constexpr std::size_t kSnippetRadius = 40;  // characters shown on each side of a search match
constexpr std::size_t kKeysInMessage = 10;

bool isKeyChar(char c) noexcept {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == ':' || c == '-';
}

// A key as shown inside an error message: quoted, cut, one line, valid UTF-8 (keys are untrusted).
std::string quoted(std::string_view key) {
    std::string text = "'";
    for (const char c : utf8::cut(key, 64)) {
        text += static_cast<unsigned char>(c) < 0x20U ? '?' : c;
    }
    text += "'";
    return text;
}

MemoryError invalidKey(std::string_view key, std::string_view rule) {
    return {MemoryErrc::invalid_key, "invalid key " + quoted(key) + ": " + std::string(rule)};
}

char lower(char c) noexcept {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

WorkingMemory::WorkingMemory(WorkingMemoryConfig config) : config_(config) {}

expected<void, MemoryError> WorkingMemory::validateKey(std::string_view key) {
    if (key.empty()) {
        return fail(invalidKey(key, "a key needs at least one character of A-Z a-z 0-9 _ . : -"));
    }
    if (key.size() > kMaxKeyLength) {
        return fail(invalidKey(key, "a key has at most 128 characters (this one has " +
                                        std::to_string(utf8::length(key)) + "); choose a shorter name"));
    }
    if (!std::all_of(key.begin(), key.end(), isKeyChar)) {
        return fail(
            invalidKey(key, "a key may use only A-Z a-z 0-9 _ . : - (no spaces or other characters)"));
    }
    if (key.substr(0, kToolResultPrefix.size()) == kToolResultPrefix) {
        return fail(invalidKey(key,
                               "keys starting with _tool_result_ are reserved for stored tool results; "
                               "choose another name"));
    }
    return {};
}

expected<void, MemoryError> WorkingMemory::checkSize(std::size_t size) const {
    if (fits(size)) {
        return {};
    }
    return fail(
        MemoryError{MemoryErrc::too_large,
                    "a value of " + std::to_string(size) +
                        " bytes exceeds the whole working memory "
                        "budget of " +
                        std::to_string(config_.byteBudget) +
                        " bytes; store a smaller part (select fields or summarise) or raise byteBudget"});
}

expected<std::string, MemoryError> WorkingMemory::store(std::string toolName, std::string value) {
    if (auto checked = checkSize(value.size()); !checked) {
        return fail(std::move(checked.error()));
    }
    std::string key = nextKey();
    ++nextResult_;
    insert(key, std::move(value), std::move(toolName));
    return key;
}

expected<void, MemoryError> WorkingMemory::put(std::string key, std::string value, std::string source) {
    if (auto valid = validateKey(key); !valid) {
        return valid;
    }
    if (auto checked = checkSize(value.size()); !checked) {
        return checked;
    }
    insert(std::move(key), std::move(value), std::move(source));
    return {};
}

void WorkingMemory::insert(std::string key, std::string value, std::string source) {
    auto existing = entries_.find(key);
    if (existing != entries_.end()) {
        // The old value makes room for the new one before anything else is evicted.
        bytes_ -= existing->second.value.size();
        order_.erase(existing->second.sequence);
        entries_.erase(existing);
    }
    evictFor(value.size());
    const std::uint64_t sequence = nextSequence_++;
    bytes_ += value.size();
    order_.emplace(sequence, key);
    entries_.emplace(std::move(key), Entry{std::move(value), std::move(source), sequence});
}

void WorkingMemory::evictFor(std::size_t incoming) {
    while (bytes_ + incoming > config_.byteBudget && !order_.empty()) {
        const auto oldest = order_.begin();
        const auto entry = entries_.find(oldest->second);
        bytes_ -= entry->second.value.size();
        entries_.erase(entry);
        order_.erase(oldest);
    }
}

const std::string* WorkingMemory::find(std::string_view key) const {
    auto entry = entries_.find(key);
    return entry == entries_.end() ? nullptr : &entry->second.value;
}

expected<std::string_view, MemoryError> WorkingMemory::read(std::string_view key) const {
    if (const std::string* value = find(key)) {
        return std::string_view(*value);
    }
    std::string message = "nothing is stored under " + quoted(key);
    const std::string_view suffix = key.substr(std::min(key.size(), kToolResultPrefix.size()));
    const auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
    // `_tool_result_N` with N already handed out: the entry existed once.
    const bool pastResult = key.substr(0, kToolResultPrefix.size()) == kToolResultPrefix && !suffix.empty() &&
                            suffix.size() < 20 && suffix.front() != '0' &&
                            std::all_of(suffix.begin(), suffix.end(), isDigit) &&
                            std::stoull(std::string(suffix)) < nextResult_;
    if (pastResult) {
        message += ": that tool result was evicted to keep working memory within its " +
                   std::to_string(config_.byteBudget) + "-byte budget, or was erased; call the tool again";
    } else if (entries_.empty()) {
        message += ": working memory is empty";
    } else {
        message += "; stored keys (oldest first): ";
        std::size_t shown = 0;
        for (auto it = order_.begin(); it != order_.end() && shown < kKeysInMessage; ++it, ++shown) {
            message += (shown == 0 ? "" : ", ") + it->second;
        }
        if (order_.size() > kKeysInMessage) {
            message += ", +" + std::to_string(order_.size() - kKeysInMessage) + " more";
        }
    }
    return fail(MemoryError{MemoryErrc::not_found, std::move(message)});
}

std::string WorkingMemory::source(std::string_view key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? std::string() : it->second.source;
}

std::vector<KeyInfo> WorkingMemory::list() const {
    std::vector<KeyInfo> infos;
    infos.reserve(order_.size());
    for (const auto& [sequence, key] : order_) {
        const Entry& entry = entries_.find(key)->second;
        infos.push_back(KeyInfo{key, entry.value.size(), entry.source, sequence});
    }
    return infos;
}

std::vector<SearchHit> WorkingMemory::search(std::string_view keyword, std::size_t maxHits) const {
    std::vector<SearchHit> hits;
    if (keyword.empty()) {
        return hits;
    }
    const auto sameLetter = [](char a, char b) { return lower(a) == lower(b); };
    for (auto it = order_.begin(); it != order_.end() && hits.size() < maxHits; ++it) {
        const std::string& value = entries_.find(it->second)->second.value;
        const auto match =
            std::search(value.begin(), value.end(), keyword.begin(), keyword.end(), sameLetter);
        if (match == value.end()) {
            continue;
        }
        const auto begin = static_cast<std::size_t>(std::distance(value.begin(), match));
        hits.push_back(
            SearchHit{it->second, utf8::snippetAround(value, begin, begin + keyword.size(), kSnippetRadius)});
    }
    return hits;
}

bool WorkingMemory::erase(std::string_view key) {
    auto entry = entries_.find(key);
    if (entry == entries_.end()) {
        return false;
    }
    bytes_ -= entry->second.value.size();
    order_.erase(entry->second.sequence);
    entries_.erase(entry);
    return true;
}

void WorkingMemory::clear() noexcept {
    entries_.clear();
    order_.clear();
    bytes_ = 0;
}

std::string WorkingMemory::nextKey() const {
    return std::string(kToolResultPrefix) + std::to_string(nextResult_);
}

nlohmann::json WorkingMemory::save() const {
    std::vector<std::string> keys;
    keys.reserve(order_.size());
    for (const auto& [sequence, key] : order_) {
        keys.push_back(key);
    }
    return save(keys);
}

nlohmann::json WorkingMemory::save(const std::vector<std::string>& keys) const {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& [sequence, key] : order_) {  // oldest first, as they are to be stored again
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            continue;
        }
        const Entry& entry = entries_.find(key)->second;
        entries.push_back({{"key", key}, {"value", entry.value}, {"source", entry.source}});
    }
    return {{"format", "reagent.memory/1"}, {"nextResult", nextResult_}, {"entries", std::move(entries)}};
}

expected<std::map<std::string, std::string>, MemoryError> WorkingMemory::load(const nlohmann::json& saved) {
    const auto invalid = [](std::string what) {
        return fail(
            MemoryError{MemoryErrc::invalid_data, "cannot load the working memory: " + std::move(what)});
    };
    if (!saved.is_object() || saved.value("format", std::string()) != "reagent.memory/1") {
        return invalid("it is not a saved working memory (format reagent.memory/1)");
    }
    const auto next = saved.find("nextResult");
    const auto entries = saved.find("entries");
    if (next == saved.end() || !next->is_number_unsigned() || entries == saved.end() ||
        !entries->is_array()) {
        return invalid("nextResult (a count) or entries (an array) is missing");
    }
    for (std::size_t i = 0; i < entries->size(); ++i) {
        const nlohmann::json& entry = (*entries)[i];
        const std::string at = "entries[" + std::to_string(i) + "]";
        if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string() ||
            !entry.contains("value") || !entry["value"].is_string() ||
            !entry.value("source", nlohmann::json("")).is_string()) {
            return invalid(at + " needs a key and a value (strings)");
        }
        const auto& key = entry["key"].get_ref<const std::string&>();
        const bool result = key.substr(0, kToolResultPrefix.size()) == kToolResultPrefix;
        if (!result && !validateKey(key)) {
            return invalid(at + ".key is not a valid key");
        }
    }
    // Numbers handed out in the saved memory are not handed out again here.
    nextResult_ = std::max(nextResult_, next->get<std::uint64_t>());
    std::map<std::string, std::string> renamed;
    for (const nlohmann::json& entry : *entries) {
        const auto& value = entry["value"].get_ref<const std::string&>();
        std::string key = entry["key"].get<std::string>();
        std::string source = entry.value("source", std::string());
        if (!fits(value.size())) {
            continue;
        }
        const std::string* existing = find(key);
        if (existing != nullptr && *existing == value) {
            continue;  // already here
        }
        if (existing != nullptr) {
            std::string moved;
            if (key.substr(0, kToolResultPrefix.size()) == kToolResultPrefix) {
                moved = nextKey();
                ++nextResult_;
            } else {
                moved = key + ".restored";
                for (int n = 2; find(moved) != nullptr || !validateKey(moved); ++n) {
                    moved = (key.size() > kMaxKeyLength - 12 ? key.substr(0, kMaxKeyLength - 12) : key) +
                            ".restored" + std::to_string(n);
                }
            }
            renamed.emplace(key, moved);
            key = std::move(moved);
        }
        insert(std::move(key), value, std::move(source));
    }
    return renamed;
}

}  // namespace reagent::memory
