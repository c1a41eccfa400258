// The demo calculator's parser: precedence, signs, decimals, and errors a model can act on.

#include "calculator.hpp"

#include <catch2/catch.hpp>
#include <string>

using reagent::cli::evaluateArithmetic;
using reagent::cli::findArithmetic;
using reagent::cli::formatNumber;

namespace {

std::string errorOf(const std::string& expression) {
    auto result = evaluateArithmetic(expression);
    REQUIRE_FALSE(result.has_value());
    return result.error();
}

}  // namespace

TEST_CASE("evaluateArithmetic follows precedence and associativity", "[cli][calculator]") {
    CHECK(evaluateArithmetic("6*7").value() == 42.0);
    CHECK(evaluateArithmetic("2+3*4").value() == 14.0);
    CHECK(evaluateArithmetic("(2+3)*4").value() == 20.0);
    CHECK(evaluateArithmetic("1 - 2 - 3").value() == -4.0);
    CHECK(evaluateArithmetic("64 / 4 / 2").value() == 8.0);
    CHECK(evaluateArithmetic("10 % 4 * 3").value() == 6.0);
    CHECK(evaluateArithmetic("  ((42))  ").value() == 42.0);
}

TEST_CASE("evaluateArithmetic handles signs and decimals", "[cli][calculator]") {
    CHECK(evaluateArithmetic("-3 + 5").value() == 2.0);
    CHECK(evaluateArithmetic("--3").value() == 3.0);
    CHECK(evaluateArithmetic("2*-3").value() == -6.0);
    CHECK(evaluateArithmetic("-(2+3)").value() == -5.0);
    CHECK(evaluateArithmetic("+4").value() == 4.0);
    CHECK(evaluateArithmetic("7.5/2.5").value() == Approx(3.0));
    CHECK(evaluateArithmetic(".5 + .25").value() == Approx(0.75));
    CHECK(evaluateArithmetic("3.").value() == 3.0);
    CHECK(evaluateArithmetic("5.5 % 2").value() == Approx(1.5));
    CHECK(evaluateArithmetic("-7 % 3").value() == Approx(-1.0));
}

TEST_CASE("evaluateArithmetic reports errors with their position", "[cli][calculator]") {
    CHECK(errorOf("1/0") == "division by zero at position 2");
    CHECK(errorOf("5 % (2-2)") == "remainder by zero at position 3");
    CHECK(errorOf("") == "the expression is empty");
    CHECK(errorOf("   ") == "the expression is empty");
    CHECK(errorOf("2 +") == "unexpected end of expression; expected a number or '('");
    CHECK(errorOf("(1+2") == "missing ')' for the '(' at position 1");
    CHECK(errorOf("2 $ 3") == "unexpected '$' at position 3; allowed: numbers, + - * / %, parentheses");
    CHECK(errorOf("1.2.3").find("unexpected '.' at position 4") == 0);
    CHECK(errorOf("abc").find("unexpected 'a' at position 1") == 0);
    CHECK(errorOf("2)").find("unexpected ')' at position 2") == 0);
    CHECK(errorOf("()").find("unexpected ')' at position 2") == 0);
    CHECK(errorOf("1e5").find("unexpected 'e' at position 2") == 0);  // no exponent syntax
    // A multi-byte character is quoted whole (a lone byte of it would make the message invalid UTF-8).
    CHECK(errorOf("2 \u00d7 3").find("unexpected '\u00d7' at position 3") == 0);
    CHECK(errorOf("2 \xff 3").find("unexpected byte 0xFF at position 3") == 0);
}

TEST_CASE("evaluateArithmetic refuses hostile input without crashing", "[cli][calculator]") {
    const std::string tooDeep = "expression nested too deeply (more than 64 levels)";
    CHECK(errorOf(std::string(10'000, '(') + "1" + std::string(10'000, ')')) == tooDeep);
    CHECK(errorOf(std::string(10'000, '-') + "1") == tooDeep);
    const std::string huge = "1" + std::string(300, '0');
    CHECK(errorOf(huge + "*" + huge) == "the result is not a finite number (overflow)");
    CHECK(evaluateArithmetic(std::string(60, '(') + "1" + std::string(60, ')')).value() == 1.0);
}

TEST_CASE("formatNumber writes integers without decimals", "[cli][calculator]") {
    CHECK(formatNumber(42.0) == "42");
    CHECK(formatNumber(-6.0) == "-6");
    CHECK(formatNumber(-0.0) == "0");
    CHECK(formatNumber(0.5) == "0.5");
    CHECK(formatNumber(1.0 / 3.0) == "0.333333333333");
    CHECK(formatNumber(1e20) == "1e+20");
}

TEST_CASE("findArithmetic picks the formula out of a prompt", "[cli][calculator]") {
    CHECK(findArithmetic("What is 6*7?") == "6*7");
    CHECK(findArithmetic("Compute (2+3)*4 please") == "(2+3)*4");
    CHECK(findArithmetic("What is 2 + 2 - thanks") == "2 + 2");
    CHECK(findArithmetic("first 1+1, then 100 / 7 * 3") == "100 / 7 * 3");
    CHECK(findArithmetic("hello world").empty());
    CHECK(findArithmetic("an x-ray at 12").empty());
    CHECK(findArithmetic("").empty());
}
