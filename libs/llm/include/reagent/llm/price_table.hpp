#pragma once
/// \file
/// \brief `PriceTable`: what a model's tokens cost, read from a JSON file, to turn `Usage` into money.

#include <boost/describe/enum.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/llm/usage.hpp"

namespace reagent::llm {

enum class PriceErrc {
    /// The file cannot be read.
    unreadable,
    /// Not JSON, or not the form below; the message names the member at fault.
    invalid,
};
BOOST_DESCRIBE_ENUM(PriceErrc, unreadable, invalid)

[[nodiscard]] std::string_view toString(PriceErrc code) noexcept;

using PriceError = Error<PriceErrc>;

/// \brief One model's prices, in the table's currency per million tokens.
struct ModelPrice {
    double input = 0;
    double output = 0;
    /// Prompt tokens read from the cache; `input` when the table gives none.
    double cacheRead = 0;
    /// Prompt tokens written to the cache; `input` when the table gives none.
    double cacheWrite = 0;

    /// \brief What `usage` costs: uncached input at `input`, cache reads and writes at theirs, all output
    /// (reasoning included) at `output`.
    [[nodiscard]] double cost(const Usage& usage) const noexcept;
};

/// \brief Prices per model, as a JSON document the user keeps up to date (no price is compiled in):
///
/// ```json
/// {"date": "2026-11-01", "currency": "USD",
///  "models": {"claude-sonnet-4-5": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}}
/// ```
///
/// `models` is required; each entry needs `input` and `output` (non-negative numbers, per million tokens);
/// `date` and `currency` (default "USD") are kept for display. A model is found by its exact id, else by
/// the id without a dated snapshot suffix (`claude-sonnet-4-5-20250929` and `gpt-4.1-2025-04-14` find
/// `claude-sonnet-4-5` and `gpt-4.1`) or a `models/` prefix (Gemini). Nothing else matches: `gpt-4.1-mini`
/// does not take `gpt-4.1`'s price.
class PriceTable {
  public:
    PriceTable() = default;

    /// \brief The table in `document`; `invalid` naming the member at fault.
    [[nodiscard]] static expected<PriceTable, PriceError> fromJson(const nlohmann::json& document);
    /// \brief The table in the file at `path`; `unreadable`, or `invalid` with the path and the problem.
    [[nodiscard]] static expected<PriceTable, PriceError> fromFile(const std::filesystem::path& path);

    /// \brief The price of `model`, or none.
    [[nodiscard]] const ModelPrice* find(std::string_view model) const;
    /// \brief What `usage` of `model` costs; none when the model has no price.
    [[nodiscard]] std::optional<double> cost(std::string_view model, const Usage& usage) const;

    /// \brief Adds or replaces `model`'s price.
    void set(std::string model, ModelPrice price) { models_[std::move(model)] = price; }

    [[nodiscard]] const std::string& currency() const noexcept { return currency_; }
    [[nodiscard]] const std::string& date() const noexcept { return date_; }
    [[nodiscard]] std::size_t size() const noexcept { return models_.size(); }

  private:
    std::map<std::string, ModelPrice, std::less<>> models_;
    std::string currency_ = "USD";
    std::string date_;
};

}  // namespace reagent::llm
