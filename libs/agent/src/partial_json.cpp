#include "partial_json.hpp"

namespace reagent::agent::detail {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool inNumber(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// Bytes at the end of `text` that begin a UTF-8 sequence the text does not finish.
std::size_t unfinishedUtf8(std::string_view text) {
    for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
        const auto byte = static_cast<unsigned char>(text[text.size() - back]);
        if ((byte & 0xC0) == 0x80) {
            continue;  // a continuation byte: look further back for its lead
        }
        const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
        return length > back ? back : 0;
    }
    return 0;
}

// True when `text` ends with a complete \uD800-\uDBFF escape: a high surrogate still waiting for its pair.
bool endsWithHighSurrogate(std::string_view text) {
    if (text.size() < 6 || text[text.size() - 6] != '\\' || text[text.size() - 5] != 'u') {
        return false;
    }
    const char first = static_cast<char>(text[text.size() - 4] | 0x20);
    const char second = static_cast<char>(text[text.size() - 3] | 0x20);
    return first == 'd' && second >= '8' && second <= 'b';
}

}  // namespace

void PartialJson::feed(std::string_view text) {
    text_.append(text);
    for (; scanned_ < text_.size() && !broken_; ++scanned_) {
        step(text_[scanned_]);
    }
}

void PartialJson::markGood(std::size_t cut) {
    goodCut_ = cut;
    goodClosers_ = closers();
    haveGood_ = true;
}

void PartialJson::valueDone(std::size_t cut) {
    if (stack_.empty()) {
        done_ = true;
    } else {
        stack_.back().expect = Expect::comma;
    }
    markGood(cut);
}

std::string PartialJson::closers() const {
    std::string out;
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
        out += it->close;
    }
    return out;
}

void PartialJson::step(char c) {
    const std::size_t at = scanned_;
    if (done_) {
        return;  // what follows a whole value (a closing fence) is not part of it
    }
    if (!started_) {
        if (fence_) {
            fence_ = c != '\n';
        } else if (c == '`') {
            fence_ = true;
        } else if (!isSpace(c)) {
            started_ = true;
            begin_ = at;
        }
        if (!started_) {
            return;
        }
    }
    switch (token_) {
        case Token::string:
            if (escape_) {
                escape_ = false;
                unicode_ = c == 'u' ? 4 : 0;
            } else if (unicode_ > 0) {
                broken_ = !isHex(c);
                --unicode_;
            } else if (c == '\\') {
                escape_ = true;
            } else if (c == '"') {
                token_ = Token::none;
                if (keyString_) {
                    stack_.back().expect = Expect::colon;
                } else {
                    valueDone(at + 1);
                }
            } else if (static_cast<unsigned char>(c) < 0x20) {
                broken_ = true;
            }
            return;
        case Token::number:
        case Token::literal: {
            // A number or a literal ends at the first character that cannot continue it.
            if (token_ == Token::number ? inNumber(c) : (c >= 'a' && c <= 'z')) {
                return;
            }
            const std::string_view word = std::string_view(text_).substr(tokenStart_, at - tokenStart_);
            if (token_ == Token::literal && word != "true" && word != "false" && word != "null") {
                broken_ = true;
                return;
            }
            token_ = Token::none;
            valueDone(at);
            if (done_) {
                return;
            }
            break;
        }
        case Token::none:
            break;
    }
    if (isSpace(c)) {
        return;
    }
    const Expect expect = stack_.empty() ? Expect::value : stack_.back().expect;
    const bool inObject = !stack_.empty() && stack_.back().close == '}';
    const bool valueHere = expect == Expect::value || (expect == Expect::first && !inObject);
    switch (c) {
        case '{':
        case '[':
            if (!valueHere) {
                broken_ = true;
                return;
            }
            stack_.push_back(Frame{c == '{' ? '}' : ']', Expect::first});
            markGood(at + 1);
            return;
        case '}':
        case ']':
            if (stack_.empty() || stack_.back().close != c ||
                (expect != Expect::first && expect != Expect::comma)) {
                broken_ = true;
                return;
            }
            stack_.pop_back();
            valueDone(at + 1);
            return;
        case ':':
            if (expect != Expect::colon) {
                broken_ = true;
                return;
            }
            stack_.back().expect = Expect::value;
            return;
        case ',':
            if (expect != Expect::comma) {
                broken_ = true;
                return;
            }
            stack_.back().expect = inObject ? Expect::key : Expect::value;
            return;
        case '"':
            keyString_ = inObject && (expect == Expect::first || expect == Expect::key);
            if (!keyString_ && !valueHere) {
                broken_ = true;
                return;
            }
            token_ = Token::string;
            tokenStart_ = at;
            return;
        default:
            if (!valueHere) {
                broken_ = true;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                token_ = Token::number;
                tokenStart_ = at;
            } else if (c == 't' || c == 'f' || c == 'n') {
                token_ = Token::literal;
                tokenStart_ = at;
            } else {
                broken_ = true;
            }
            return;
    }
}

std::optional<nlohmann::json> PartialJson::heal() const {
    if (!started_) {
        return std::nullopt;
    }
    std::string candidate;
    if (!broken_ && token_ == Token::string && !keyString_) {
        // A string value in progress: kept, closed, without a half-written escape or character.
        std::string_view body = std::string_view(text_).substr(begin_);
        if (escape_) {
            body.remove_suffix(1);
        } else if (unicode_ > 0) {
            body.remove_suffix(static_cast<std::size_t>(6 - unicode_));
        }
        if (endsWithHighSurrogate(body)) {
            body.remove_suffix(6);
        }
        body.remove_suffix(unfinishedUtf8(body));
        candidate.assign(body).append("\"").append(closers());
    } else if (!broken_ && token_ == Token::number && text_.back() >= '0' && text_.back() <= '9') {
        candidate.assign(text_, begin_).append(closers());
    } else if (haveGood_) {
        candidate.assign(text_, begin_, goodCut_ - begin_).append(goodClosers_);
    } else {
        return std::nullopt;
    }
    nlohmann::json value = nlohmann::json::parse(candidate, nullptr, false);
    if (value.is_discarded() && haveGood_) {
        // A number or string in progress that does not parse after all ("01"): the last whole point.
        candidate.assign(text_, begin_, goodCut_ - begin_).append(goodClosers_);
        value = nlohmann::json::parse(candidate, nullptr, false);
    }
    if (value.is_discarded()) {
        return std::nullopt;
    }
    return value;
}

}  // namespace reagent::agent::detail
