#include "calculator.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "reagent/core/detail/utf8.hpp"

namespace reagent::cli {

namespace {

// Deep enough for any real expression, shallow enough that hostile input cannot exhaust the stack.
constexpr int kMaxDepth = 64;

/// Grammar:  expr := term (('+' | '-') term)*
///           term := unary (('*' | '/' | '%') unary)*
///           unary := ('-' | '+') unary | primary
///           primary := number | '(' expr ')'
class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}

    expected<double, std::string> parse() {
        auto value = expression(0);
        if (!value) {
            return value;
        }
        skipSpaces();
        if (pos_ < text_.size()) {
            return unexpectedHere();
        }
        return value;
    }

  private:
    expected<double, std::string> expression(int depth) {
        auto left = term(depth);
        while (left) {
            skipSpaces();
            const char op = peek();
            if (op != '+' && op != '-') {
                break;
            }
            ++pos_;
            auto right = term(depth);
            if (!right) {
                return right;
            }
            *left = op == '+' ? *left + *right : *left - *right;
        }
        return left;
    }

    expected<double, std::string> term(int depth) {
        auto left = unary(depth);
        while (left) {
            skipSpaces();
            const char op = peek();
            if (op != '*' && op != '/' && op != '%') {
                break;
            }
            const std::size_t opPos = pos_++;
            auto right = unary(depth);
            if (!right) {
                return right;
            }
            if (op != '*' && *right == 0.0) {
                return fail(std::string(op == '/' ? "division" : "remainder") + " by zero at position " +
                            std::to_string(opPos + 1));
            }
            *left = op == '*' ? *left * *right : op == '/' ? *left / *right : std::fmod(*left, *right);
        }
        return left;
    }

    expected<double, std::string> unary(int depth) {
        if (depth > kMaxDepth) {
            return fail("expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
        }
        skipSpaces();
        const char sign = peek();
        if (sign == '-' || sign == '+') {
            ++pos_;
            auto operand = unary(depth + 1);
            if (operand && sign == '-') {
                *operand = -*operand;
            }
            return operand;
        }
        return primary(depth);
    }

    expected<double, std::string> primary(int depth) {
        skipSpaces();
        if (peek() == '(') {
            const std::size_t open = pos_++;
            auto inner = expression(depth + 1);
            if (!inner) {
                return inner;
            }
            skipSpaces();
            if (peek() != ')') {
                return fail("missing ')' for the '(' at position " + std::to_string(open + 1));
            }
            ++pos_;
            return inner;
        }
        return number();
    }

    expected<double, std::string> number() {
        const std::size_t start = pos_;
        bool digits = false;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            ++pos_;
            digits = true;
        }
        if (peek() == '.') {
            ++pos_;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                ++pos_;
                digits = true;
            }
        }
        if (!digits) {
            pos_ = start;
            return unexpectedHere();
        }
        // strtod needs a terminated buffer; the slice holds only digits and at most one dot.
        const std::string literal(text_.substr(start, pos_ - start));
        return std::strtod(literal.c_str(), nullptr);
    }

    expected<double, std::string> unexpectedHere() const {
        if (pos_ >= text_.size()) {
            return fail(std::string("unexpected end of expression; expected a number or '('"));
        }
        // Quote the whole character (a multi-byte one such as '×' too), never a lone byte of it.
        std::string shown;
        if (const std::size_t size = detail::utf8SequenceLength(text_, pos_); size != 0) {
            shown = "'" + std::string(text_.substr(pos_, size)) + "'";
        } else {
            char hex[16];
            std::snprintf(hex, sizeof hex, "byte 0x%02X",
                          static_cast<unsigned>(static_cast<unsigned char>(text_[pos_])));
            shown = hex;
        }
        return fail("unexpected " + shown + " at position " + std::to_string(pos_ + 1) +
                    "; allowed: numbers, + - * / %, parentheses");
    }

    void skipSpaces() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
            ++pos_;
        }
    }

    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    std::string_view text_;
    std::size_t pos_ = 0;
};

bool isArithmeticChar(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == '*' ||
           c == '/' || c == '%' || c == '(' || c == ')' || c == ' ';
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace

expected<double, std::string> evaluateArithmetic(const std::string& expression) {
    if (trim(expression).empty()) {
        return fail(std::string("the expression is empty"));
    }
    auto value = Parser(expression).parse();
    if (value && !std::isfinite(*value)) {
        return fail(std::string("the result is not a finite number (overflow)"));
    }
    return value;
}

std::string formatNumber(double value) {
    if (value == 0.0) {
        return "0";  // also turns -0 into 0
    }
    if (std::fabs(value) < 1e15 && value == std::trunc(value)) {
        return std::to_string(static_cast<long long>(value));
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.12g", value);
    return buffer;
}

std::string findArithmetic(const std::string& text) {
    std::string_view best;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!isArithmeticChar(text[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < text.size() && isArithmeticChar(text[i])) {
            ++i;
        }
        std::string_view run = trim(std::string_view(text).substr(start, i - start));
        // Prose around a formula leaves stray operators at its ends ("2+2 - thanks"): drop them.
        while (!run.empty() && (run.back() == ' ' || run.back() == '+' || run.back() == '-' ||
                                run.back() == '*' || run.back() == '/' || run.back() == '%')) {
            run.remove_suffix(1);
        }
        bool digit = false;
        bool op = false;
        for (const char c : run) {
            digit = digit || std::isdigit(static_cast<unsigned char>(c));
            op = op || c == '+' || c == '-' || c == '*' || c == '/' || c == '%';
        }
        if (digit && op && run.size() > best.size()) {
            best = run;
        }
    }
    return std::string(best);
}

}  // namespace reagent::cli
