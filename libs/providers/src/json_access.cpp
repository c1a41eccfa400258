#include "json_access.hpp"

// Boost.JSON compiled into this library, in this one translation unit (there is no libboost_json in the
// toolchain; the definitions stay out of every other source).
#include <boost/json/parser.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/src.hpp>

namespace reagent::providers::detail {

namespace {

// Nesting a reply may have: far beyond any real reply (Boost's default of 32 could refuse a tool call
// with deeply nested arguments), still a bound on recursion.
constexpr std::size_t kMaxDepth = 512;

}  // namespace

ParsedJson::ParsedJson(std::string_view text) : arena_(buffer_, sizeof buffer_) {
    boost::json::parse_options options;
    options.max_depth = kMaxDepth;
    // The parser's own working stack, on the call stack: nothing of it outlives the parse.
    unsigned char stack[1024];
    boost::json::parser parser(boost::json::storage_ptr(), options, stack, sizeof stack);
    parser.reset(&arena_);
    boost::system::error_code ec;
    parser.write(text.data(), text.size(), ec);
    if (!ec) {
        value_.emplace(parser.release());
    }
}

std::string serialize(const Json& j) {
    return boost::json::serialize(j);
}

nlohmann::json toNlohmann(const Json& j) {
    switch (j.kind()) {
        case boost::json::kind::null: return nullptr;
        case boost::json::kind::bool_: return j.get_bool();
        // Non-negative integers as unsigned, as nlohmann's own parser reads them.
        case boost::json::kind::int64:
            return j.get_int64() >= 0 ? nlohmann::json(static_cast<std::uint64_t>(j.get_int64()))
                                      : nlohmann::json(j.get_int64());
        case boost::json::kind::uint64: return j.get_uint64();
        case boost::json::kind::double_: return j.get_double();
        case boost::json::kind::string: return std::string(text(j));
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
