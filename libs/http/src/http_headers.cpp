#include "reagent/http/http_headers.hpp"

#include <algorithm>

namespace reagent::http {

namespace {

char lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::string_view trimWhitespace(std::string_view text) noexcept {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

HttpHeaders::HttpHeaders(std::initializer_list<HttpField> fields) : fields_(fields) {}

void HttpHeaders::add(std::string name, std::string value) {
    fields_.push_back(HttpField{std::move(name), std::move(value)});
}

void HttpHeaders::set(std::string name, std::string value) {
    // The first field of that name keeps its place in the order; later duplicates go.
    const auto first = std::find_if(fields_.begin(), fields_.end(), [&](const HttpField& field) {
        return equalsIgnoreCase(field.name, name);
    });
    if (first == fields_.end()) {
        fields_.push_back(HttpField{std::move(name), std::move(value)});
        return;
    }
    first->name = std::move(name);
    first->value = std::move(value);
    fields_.erase(
        std::remove_if(std::next(first), fields_.end(),
                       [&](const HttpField& field) { return equalsIgnoreCase(field.name, first->name); }),
        fields_.end());
}

std::size_t HttpHeaders::remove(std::string_view name) {
    const auto before = fields_.size();
    fields_.erase(std::remove_if(fields_.begin(), fields_.end(),
                                 [&](const HttpField& f) { return equalsIgnoreCase(f.name, name); }),
                  fields_.end());
    return before - fields_.size();
}

std::optional<std::string_view> HttpHeaders::find(std::string_view name) const {
    for (const auto& field : fields_) {
        if (equalsIgnoreCase(field.name, name)) return std::string_view(field.value);
    }
    return std::nullopt;
}

bool HttpHeaders::contains(std::string_view name) const {
    return find(name).has_value();
}

}  // namespace reagent::http
