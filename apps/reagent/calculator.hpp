#pragma once
/// \file
/// \brief A small, safe arithmetic evaluator for the demo `calculator` tool.

#include <string>

#include "reagent/core/expected.hpp"

namespace reagent::cli {

/// \brief Evaluates `expression`: numbers (decimals allowed), + - * / %, parentheses and unary minus.
///
/// A recursive-descent parser over the text; nothing is ever handed to an interpreter, so untrusted
/// model input is safe here. `%` is the floating-point remainder.
///
/// \returns the value, or a message a model can act on: a syntax error with its position, division or
/// remainder by zero, nesting too deep, or a result that is not a finite number.
[[nodiscard]] expected<double, std::string> evaluateArithmetic(const std::string& expression);

/// \brief The value as a person writes it: `42` for integral values, otherwise up to 12 significant digits.
[[nodiscard]] std::string formatNumber(double value);

/// \brief The longest run of arithmetic text in `text` with a digit and an operator (`"6*7"` in
/// `"What is 6*7?"`), or an empty string when there is none.
[[nodiscard]] std::string findArithmetic(const std::string& text);

}  // namespace reagent::cli
