#include "reagent/llm/price_table.hpp"

#include <fstream>
#include <sstream>

#include "model_id.hpp"
#include "reagent/core/enum_name.hpp"

namespace reagent::llm {

namespace {

PriceError invalid(std::string message) {
    return PriceError{PriceErrc::invalid, std::move(message)};
}

// Member `key` of a model's entry: a finite, non-negative number, or none when absent.
expected<std::optional<double>, PriceError> priceMember(const nlohmann::json& entry, const char* key,
                                                        const std::string& model) {
    const auto it = entry.find(key);
    if (it == entry.end()) {
        return std::optional<double>{};
    }
    if (!it->is_number() || it->get<double>() < 0 || it->get<double>() != it->get<double>()) {
        return fail(
            invalid("models." + model + "." + key + " must be a non-negative number (per million tokens)"));
    }
    return std::optional<double>{it->get<double>()};
}

}  // namespace

std::string_view toString(PriceErrc code) noexcept {
    return enumName(code);
}

double ModelPrice::cost(const Usage& usage) const noexcept {
    const auto uncached =
        static_cast<double>(usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
    return (uncached * input + static_cast<double>(usage.cacheReadTokens) * cacheRead +
            static_cast<double>(usage.cacheWriteTokens) * cacheWrite +
            static_cast<double>(usage.outputTokens) * output) /
           1e6;
}

expected<PriceTable, PriceError> PriceTable::fromJson(const nlohmann::json& document) {
    if (!document.is_object()) {
        return fail(invalid("a price table must be a JSON object with \"models\""));
    }
    PriceTable table;
    if (const auto it = document.find("currency"); it != document.end()) {
        if (!it->is_string() || it->get<std::string>().empty()) {
            return fail(invalid("currency must be a non-empty string"));
        }
        table.currency_ = it->get<std::string>();
    }
    if (const auto it = document.find("date"); it != document.end()) {
        if (!it->is_string()) {
            return fail(invalid("date must be a string"));
        }
        table.date_ = it->get<std::string>();
    }
    const auto models = document.find("models");
    if (models == document.end() || !models->is_object()) {
        return fail(invalid("models must be an object of model ids to prices"));
    }
    for (auto it = models->begin(); it != models->end(); ++it) {
        const std::string& model = it.key();
        if (model.empty() || !it->is_object()) {
            return fail(
                invalid("models." + model + " must be an object {input, output, cacheRead, cacheWrite}"));
        }
        ModelPrice price;
        for (const auto& [key, slot] :
             {std::pair{"input", &price.input}, std::pair{"output", &price.output}}) {
            auto value = priceMember(*it, key, model);
            if (!value) {
                return fail(std::move(value.error()));
            }
            if (!*value) {
                return fail(invalid("models." + model + "." + key + " is missing"));
            }
            *slot = **value;
        }
        auto cacheRead = priceMember(*it, "cacheRead", model);
        auto cacheWrite = priceMember(*it, "cacheWrite", model);
        if (!cacheRead || !cacheWrite) {
            return fail(std::move(!cacheRead ? cacheRead.error() : cacheWrite.error()));
        }
        price.cacheRead = cacheRead->value_or(price.input);
        price.cacheWrite = cacheWrite->value_or(price.input);
        table.models_.emplace(model, price);
    }
    return table;
}

expected<PriceTable, PriceError> PriceTable::fromFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail(PriceError{PriceErrc::unreadable, "cannot read the price table '" + path.string() + "'"});
    }
    std::ostringstream text;
    text << in.rdbuf();
    const auto document = nlohmann::json::parse(text.str(), nullptr, false);
    if (document.is_discarded()) {
        return fail(invalid("the price table '" + path.string() + "' is not JSON"));
    }
    auto table = fromJson(document);
    if (!table) {
        table.error().message = "the price table '" + path.string() + "': " + table.error().message;
    }
    return table;
}

const ModelPrice* PriceTable::find(std::string_view model) const {
    return detail::findModel(model, [this](std::string_view id) -> const ModelPrice* {
        const auto it = models_.find(id);
        return it != models_.end() ? &it->second : nullptr;
    });
}

std::optional<double> PriceTable::cost(std::string_view model, const Usage& usage) const {
    const ModelPrice* price = find(model);
    if (price == nullptr) {
        return std::nullopt;
    }
    return price->cost(usage);
}

}  // namespace reagent::llm
