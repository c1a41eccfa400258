#include "reagent/providers/tool_name_map.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "hash.hpp"

namespace reagent::providers {

namespace {

constexpr std::size_t kSuffixLength = 9;  // "_" + 8 hex digits

std::size_t maxLength(ToolNameRules rules) noexcept {
    return rules == ToolNameRules::gemini ? 63 : 64;
}

bool isWordByte(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool isLeadByte(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Every invalid byte becomes '_' (so a multi-byte character becomes several), then a leading '_' where
// the rules want a letter first.
std::string sanitize(std::string_view name, ToolNameRules rules) {
    std::string out;
    out.reserve(name.size() + 1);
    for (const char c : name) {
        out.push_back(isWordByte(c) ? c : '_');
    }
    if (out.empty() || (rules == ToolNameRules::gemini && !isLeadByte(out.front()))) {
        out.insert(out.begin(), '_');
    }
    return out;
}

// `taken(candidate)` says whether a wire name is already in use.
template <class Taken>
std::string makeWireName(std::string_view name, ToolNameRules rules, Taken taken) {
    std::string wire = sanitize(name, rules);
    if (wire.size() <= maxLength(rules) && !taken(wire)) {
        return wire;
    }
    // Shorten and disambiguate with a hash of the original name; salt it in the (astronomically rare)
    // case that the hashed form is taken too.
    const std::string stem = wire.substr(0, maxLength(rules) - kSuffixLength);
    std::string salted(name);
    for (std::uint32_t salt = 0;; ++salt) {
        wire = stem + "_" + detail::hex8(detail::fnv1a(salted));
        if (!taken(wire)) {
            return wire;
        }
        salted = std::string(name) + '\x01' + std::to_string(salt);
    }
}

}  // namespace

bool ToolNameMap::isValid(std::string_view name, ToolNameRules rules) noexcept {
    if (name.empty() || name.size() > maxLength(rules)) {
        return false;
    }
    if (rules == ToolNameRules::gemini && !isLeadByte(name.front())) {
        return false;
    }
    return std::all_of(name.begin(), name.end(), isWordByte);
}

ToolNameMap::ToolNameMap(const std::vector<llm::ToolSpec>& tools, ToolNameRules rules) : rules_(rules) {
    if (tools.empty()) {
        return;
    }
    auto maps = std::make_shared<Maps>();
    // Valid names keep themselves and are reserved first, so no renamed tool can take them; renamed
    // tools are then assigned in sorted order, which makes the result independent of the list order.
    std::set<std::string, std::less<>> invalid;
    for (const llm::ToolSpec& tool : tools) {
        if (isValid(tool.name, rules)) {
            maps->wireByLocal.emplace(tool.name, tool.name);
            maps->localByWire.emplace(tool.name, tool.name);
        } else {
            invalid.insert(tool.name);
        }
    }
    const auto taken = [&maps](const std::string& wire) { return maps->localByWire.count(wire) != 0; };
    for (const std::string& name : invalid) {
        std::string wire = makeWireName(name, rules, taken);
        maps->localByWire.emplace(wire, name);
        maps->wireByLocal.emplace(name, std::move(wire));
    }
    maps_ = std::move(maps);
}

std::string ToolNameMap::toWire(std::string_view name) const {
    if (maps_) {
        if (const auto found = maps_->wireByLocal.find(name); found != maps_->wireByLocal.end()) {
            return found->second;
        }
    }
    if (isValid(name, rules_)) {
        return std::string(name);
    }
    return makeWireName(name, rules_, [this](const std::string& wire) {
        return maps_ != nullptr && maps_->localByWire.count(wire) != 0;
    });
}

std::string ToolNameMap::toLocal(std::string_view wireName) const {
    if (maps_) {
        if (const auto found = maps_->localByWire.find(wireName); found != maps_->localByWire.end()) {
            return found->second;
        }
    }
    return std::string(wireName);
}

ToolNameMap ToolNameMap::withAnswerTool(AnswerTool answer) const {
    ToolNameMap copy = *this;
    copy.answer_ = std::make_shared<const AnswerTool>(std::move(answer));
    return copy;
}

bool ToolNameMap::hasWireName(std::string_view wireName) const {
    return maps_ && maps_->localByWire.find(wireName) != maps_->localByWire.end();
}

}  // namespace reagent::providers
