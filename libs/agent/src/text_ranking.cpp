#include "text_ranking.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>
#include <utility>

namespace reagent::agent::detail {

namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

bool isStopWord(std::string_view word) {
    static constexpr std::array<std::string_view, 24> kStop = {
        "a",  "an", "and", "are", "as",  "at",   "be",   "by", "for",  "from", "in",   "is",
        "it", "of", "on",  "or",  "the", "that", "this", "to", "with", "can",  "will", "its"};
    return std::find(kStop.begin(), kStop.end(), word) != kStop.end();
}

bool isLower(char c) {
    return c >= 'a' && c <= 'z';
}
bool isUpper(char c) {
    return c >= 'A' && c <= 'Z';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

void keep(std::string& word, std::vector<std::string>& out) {
    if (word.size() > 3 && word.back() == 's' && word[word.size() - 2] != 's') {
        word.pop_back();  // issues → issue, lists → list; "class" and "status" stay
    }
    if (!word.empty() && !isStopWord(word)) {
        out.push_back(std::move(word));
    }
    word.clear();
}

}  // namespace

std::vector<std::string> searchWords(std::string_view text) {
    std::vector<std::string> out;
    std::string word;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x80) {
            word.push_back(c);  // part of a UTF-8 sequence: kept in the word
        } else if (isUpper(c)) {
            if (!word.empty() && i > 0 && (isLower(text[i - 1]) || isDigit(text[i - 1]))) {
                keep(word, out);
            }
            word.push_back(static_cast<char>(c - 'A' + 'a'));
        } else if (isLower(c) || isDigit(c)) {
            word.push_back(c);
        } else {
            keep(word, out);
        }
    }
    keep(word, out);
    return out;
}

std::vector<std::pair<std::size_t, double>> rankTexts(const std::vector<RankedText>& texts,
                                                      std::string_view query, std::size_t limit) {
    std::vector<std::string> terms = searchWords(query);
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    if (terms.empty() || texts.empty() || limit == 0) {
        return {};
    }
    // Term frequencies per text (only the query's terms are counted) and the texts' lengths.
    std::vector<std::vector<int>> frequency(texts.size(), std::vector<int>(terms.size(), 0));
    std::vector<double> length(texts.size(), 0);
    std::vector<int> containing(terms.size(), 0);
    for (std::size_t t = 0; t < texts.size(); ++t) {
        for (const auto& [field, weight] : texts[t].fields) {
            for (const std::string& word : searchWords(field)) {
                length[t] += weight;
                const auto at = std::lower_bound(terms.begin(), terms.end(), word);
                if (at != terms.end() && *at == word) {
                    frequency[t][static_cast<std::size_t>(at - terms.begin())] += weight;
                }
            }
        }
        for (std::size_t q = 0; q < terms.size(); ++q) {
            containing[q] += frequency[t][q] > 0 ? 1 : 0;
        }
    }
    double average = 0;
    for (const double l : length) {
        average += l;
    }
    average = std::max(1.0, average / static_cast<double>(texts.size()));
    const auto n = static_cast<double>(texts.size());
    std::vector<std::pair<std::size_t, double>> scored;
    for (std::size_t t = 0; t < texts.size(); ++t) {
        double score = 0;
        for (std::size_t q = 0; q < terms.size(); ++q) {
            const double f = frequency[t][q];
            if (f == 0) {
                continue;
            }
            const double idf = std::log(1 + (n - containing[q] + 0.5) / (containing[q] + 0.5));
            score += idf * f * (kK1 + 1) / (f + kK1 * (1 - kB + kB * length[t] / average));
        }
        if (score > 0) {
            scored.emplace_back(t, score);
        }
    }
    // Ties keep registration order: the same query finds the same tools in the same order every time.
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (scored.size() > limit) {
        scored.resize(limit);
    }
    return scored;
}

}  // namespace reagent::agent::detail
