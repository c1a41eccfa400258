#include "fts_query.hpp"

namespace reagent::documents::detail {

namespace {

constexpr int kMaxWords = 64;

bool isWordByte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

std::string ftsQuery(std::string_view text) {
    std::string query;
    int words = 0;
    std::size_t i = 0;
    while (i < text.size() && words < kMaxWords) {
        while (i < text.size() && !isWordByte(text[i])) {
            ++i;
        }
        const std::size_t start = i;
        while (i < text.size() && isWordByte(text[i])) {
            ++i;
        }
        if (i > start) {
            // The quotes make it a phrase of one word: no operator, column filter or prefix can get in.
            query += (words == 0 ? "\"" : " OR \"") + std::string(text.substr(start, i - start)) + "\"";
            ++words;
        }
    }
    return query;
}

}  // namespace reagent::documents::detail
