#include "model_id.hpp"

namespace reagent::llm::detail {

namespace {

bool isDigits(std::string_view text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::string_view withoutModelsPrefix(std::string_view model) noexcept {
    if (model.rfind("models/", 0) == 0) {
        model.remove_prefix(7);
    }
    return model;
}

std::string_view undated(std::string_view id) noexcept {
    if (id.size() > 9 && id[id.size() - 9] == '-' && isDigits(id.substr(id.size() - 8))) {
        return id.substr(0, id.size() - 9);
    }
    if (id.size() > 11 && id[id.size() - 11] == '-' && isDigits(id.substr(id.size() - 10, 4)) &&
        id[id.size() - 6] == '-' && isDigits(id.substr(id.size() - 5, 2)) && id[id.size() - 3] == '-' &&
        isDigits(id.substr(id.size() - 2))) {
        return id.substr(0, id.size() - 11);
    }
    return {};
}

}  // namespace reagent::llm::detail
