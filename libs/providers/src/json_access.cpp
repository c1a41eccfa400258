#include "json_access.hpp"

// Boost.JSON compiled into this library, in this one translation unit (there is no libboost_json in the
// toolchain; the definitions stay out of every other source).
#include <boost/json/parser.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/src.hpp>

#include "reagent/core/untrusted_json.hpp"

namespace reagent::providers::detail {

namespace {

// Nesting a reply may have: the limit of every parse of untrusted JSON (Boost's default of 32 could refuse
// a tool call with deeply nested arguments).
constexpr std::size_t kMaxDepth = reagent::kMaxJsonDepth;

bool isHex(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The code unit of a `\uXXXX` escape starting at `text[pos]` (the backslash), or -1.
long escapedUnit(std::string_view text, std::size_t pos) noexcept {
    if (pos + 6 > text.size() || text[pos] != '\\' || text[pos + 1] != 'u') {
        return -1;
    }
    long unit = 0;
    for (std::size_t i = pos + 2; i < pos + 6; ++i) {
        if (!isHex(text[i])) {
            return -1;
        }
        const char c = text[i];
        unit = unit * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return unit;
}

bool parseInto(std::string_view text, boost::json::monotonic_resource& arena, std::optional<Json>& value) {
    boost::json::parse_options options;
    options.max_depth = kMaxDepth;
    // The parser's own working stack, on the call stack: nothing of it outlives the parse.
    unsigned char stack[1024];
    boost::json::parser parser(boost::json::storage_ptr(), options, stack, sizeof stack);
    parser.reset(&arena);
    boost::system::error_code ec;
    parser.write(text.data(), text.size(), ec);
    if (ec) {
        return false;
    }
    value.emplace(parser.release());
    return true;
}

}  // namespace

std::string repairedJsonText(std::string_view text) {
    constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        const char c = text[pos];
        if (static_cast<unsigned char>(c) >= 0x80) {
            const std::size_t length = reagent::detail::utf8SequenceLength(text, pos);
            if (length == 0) {
                out += kReplacement;
                ++pos;
            } else {
                out.append(text.substr(pos, length));
                pos += length;
            }
            continue;
        }
        if (c != '\\' || pos + 1 >= text.size()) {
            out.push_back(c);
            ++pos;
            continue;
        }
        // A backslash only occurs inside strings: it and the next character are one escape.
        const long unit = escapedUnit(text, pos);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            const long low = escapedUnit(text, pos + 6);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                out.append(text.substr(pos, 12));
                pos += 12;
            } else {
                out += "\\ufffd";
                pos += 6;
            }
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            out += "\\ufffd";
            pos += 6;
        } else {
            out.append(text.substr(pos, 2));
            pos += 2;
        }
    }
    return out;
}

std::string jsonProblem(std::string_view text) {
    boost::json::parse_options options;
    options.max_depth = kMaxDepth;
    boost::json::parser parser(boost::json::storage_ptr(), options);
    boost::system::error_code ec;
    const std::size_t used = parser.write(text.data(), text.size(), ec);
    if (!ec) {
        return {};
    }
    return ec.message() + " at byte " + std::to_string(used) + " of " + std::to_string(text.size());
}

ParsedJson::ParsedJson(std::string_view text) : arena_(buffer_, sizeof buffer_) {
    if (parseInto(text, arena_, value_)) {
        return;
    }
    // One lenient rule for every reply, streamed or not: invalid UTF-8 and lone surrogate escapes become
    // U+FFFD rather than rejecting the whole reply. Only a text that failed pays for the repair.
    const std::string repaired = repairedJsonText(text);
    if (repaired != text) {
        (void)parseInto(repaired, arena_, value_);
    }
}

std::string serialize(const Json& j) {
    return boost::json::serialize(j);
}

nlohmann::json toNlohmann(const Json& j) {
    switch (j.kind()) {
        case boost::json::kind::null:
            return nullptr;
        case boost::json::kind::bool_:
            return j.get_bool();
        // Non-negative integers as unsigned, as nlohmann's own parser reads them.
        case boost::json::kind::int64:
            return j.get_int64() >= 0 ? nlohmann::json(static_cast<std::uint64_t>(j.get_int64()))
                                      : nlohmann::json(j.get_int64());
        case boost::json::kind::uint64:
            return j.get_uint64();
        case boost::json::kind::double_:
            return j.get_double();
        case boost::json::kind::string:
            return std::string(text(j));
        case boost::json::kind::array: {
            nlohmann::json out = nlohmann::json::array();
            for (const Json& item : j.get_array()) {
                out.push_back(toNlohmann(item));
            }
            return out;
        }
        case boost::json::kind::object: {
            nlohmann::json out = nlohmann::json::object();
            for (const auto& entry : j.get_object()) {
                out[std::string(entry.key())] = toNlohmann(entry.value());
            }
            return out;
        }
    }
    return nullptr;
}

}  // namespace reagent::providers::detail
