#pragma once
// Private to reagent::agent: the JSON value a streamed answer has reached so far ("healed" partial JSON),
// for `PartialOutput` events.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::agent::detail {

/// Reads JSON text as it arrives, piece by piece, and gives the value its longest complete prefix
/// stands for: open strings, arrays and objects closed, an unfinished key, literal or number left out.
/// `{"city": "Par` heals to {"city": "Par"}; `{"a": [1, tr` to {"a": [1]}. One leading fence line
/// (```json) and whitespace are skipped. Text that stops being JSON freezes the value where it was.
///
/// Feeding is linear in the input; each `heal` parses the healed prefix once.
class PartialJson {
  public:
    void feed(std::string_view text);

    /// The value so far; none before the first value starts, or when nothing of it is complete enough.
    [[nodiscard]] std::optional<nlohmann::json> heal() const;

    /// Bytes fed so far.
    [[nodiscard]] std::size_t size() const noexcept { return text_.size(); }

  private:
    enum class Expect : unsigned char { first, key, colon, value, comma };
    struct Frame {
        char close;  // '}' or ']'
        Expect expect;
    };
    enum class Token : unsigned char { none, string, number, literal };

    void step(char c);
    void valueDone(std::size_t cut);
    void markGood(std::size_t cut);
    [[nodiscard]] std::string closers() const;

    std::string text_;
    std::size_t scanned_ = 0;
    bool started_ = false;  // the leading whitespace and fence are behind
    bool fence_ = false;    // inside the fence's first line
    bool broken_ = false;   // the text stopped being JSON
    bool done_ = false;     // a whole top-level value was read
    std::vector<Frame> stack_;
    Token token_ = Token::none;
    bool keyString_ = false;  // the string in progress is an object key
    bool escape_ = false;
    int unicode_ = 0;  // hex digits of a \u escape still to come
    std::size_t tokenStart_ = 0;
    std::size_t begin_ = 0;  // where the JSON text starts
    // The last point where the text, closed, is valid JSON.
    std::size_t goodCut_ = 0;
    std::string goodClosers_;
    bool haveGood_ = false;
};

}  // namespace reagent::agent::detail
