#include "reagent/http/retry_after.hpp"

#include <array>
#include <charconv>
#include <cstdint>

#include "reagent/http/http_headers.hpp"

namespace reagent::http {

namespace {

namespace chr = std::chrono;

// A cursor over the date text; every reader consumes only on success.
class Cursor {
  public:
    explicit Cursor(std::string_view text) : text_(text) {}

    bool literal(std::string_view expected) {
        if (text_.substr(pos_, expected.size()) != expected) {
            return false;
        }
        pos_ += expected.size();
        return true;
    }
    bool number(std::size_t count, int& value) {
        if (pos_ + count > text_.size()) {
            return false;
        }
        int result = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const char c = text_[pos_ + i];
            if (c < '0' || c > '9') {
                return false;
            }
            result = result * 10 + (c - '0');
        }
        value = result;
        pos_ += count;
        return true;
    }
    std::size_t letters() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() &&
               ((text_[pos_] >= 'a' && text_[pos_] <= 'z') || (text_[pos_] >= 'A' && text_[pos_] <= 'Z'))) {
            ++pos_;
        }
        return pos_ - start;
    }
    bool month(int& value) {
        static constexpr std::array<std::string_view, 12> kMonths = {
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        for (std::size_t i = 0; i < kMonths.size(); ++i) {
            if (literal(kMonths[i])) {
                value = static_cast<int>(i) + 1;
                return true;
            }
        }
        return false;
    }
    bool time(int& hour, int& minute, int& second) {
        return number(2, hour) && literal(":") && number(2, minute) && literal(":") && number(2, second);
    }
    [[nodiscard]] bool atEnd() const { return pos_ == text_.size(); }
    [[nodiscard]] char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

struct Fields {
    int year = 0;
    int month = 0;
    int day = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
};

std::optional<chr::system_clock::time_point> toTimePoint(const Fields& f) {
    const chr::year_month_day date{chr::year{f.year}, chr::month{static_cast<unsigned>(f.month)},
                                   chr::day{static_cast<unsigned>(f.day)}};
    if (!date.ok() || f.hour > 23 || f.minute > 59 || f.second > 60) {
        return std::nullopt;
    }
    return chr::sys_days{date} + chr::hours{f.hour} + chr::minutes{f.minute} + chr::seconds{f.second};
}

int currentYear(chr::system_clock::time_point now) {
    return static_cast<int>(chr::year_month_day{chr::floor<chr::days>(now)}.year());
}

}  // namespace

std::optional<chr::system_clock::time_point> parseHttpDate(std::string_view text,
                                                           chr::system_clock::time_point now) {
    Cursor in(text);
    Fields f;
    const std::size_t dayNameLength = in.letters();
    if (dayNameLength < 3) {
        return std::nullopt;
    }
    if (in.literal(", ")) {
        if (!in.number(2, f.day)) {
            return std::nullopt;
        }
        if (in.peek() == ' ') {
            // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
            if (!(in.literal(" ") && in.month(f.month) && in.literal(" ") && in.number(4, f.year) &&
                  in.literal(" ") && in.time(f.hour, f.minute, f.second) && in.literal(" GMT") &&
                  in.atEnd())) {
                return std::nullopt;
            }
            return toTimePoint(f);
        }
        // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
        int shortYear = 0;
        if (!(in.literal("-") && in.month(f.month) && in.literal("-") && in.number(2, shortYear) &&
              in.literal(" ") && in.time(f.hour, f.minute, f.second) && in.literal(" GMT") && in.atEnd())) {
            return std::nullopt;
        }
        const int thisYear = currentYear(now);
        f.year = thisYear - thisYear % 100 + shortYear;
        if (f.year > thisYear + 50) {
            f.year -= 100;
        }
        return toTimePoint(f);
    }
    // asctime: "Sun Nov  6 08:49:37 1994"
    if (!(in.literal(" ") && in.month(f.month) && in.literal(" "))) {
        return std::nullopt;
    }
    if (!(in.number(2, f.day) || (in.literal(" ") && in.number(1, f.day)))) {
        return std::nullopt;
    }
    if (!(in.literal(" ") && in.time(f.hour, f.minute, f.second) && in.literal(" ") && in.number(4, f.year) &&
          in.atEnd())) {
        return std::nullopt;
    }
    return toTimePoint(f);
}

std::optional<std::chrono::milliseconds> parseRetryAfter(std::string_view value,
                                                         std::chrono::system_clock::time_point now) {
    value = trimWhitespace(value);
    if (value.empty()) {
        return std::nullopt;
    }
    if (value.front() >= '0' && value.front() <= '9') {
        std::int64_t seconds = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
        if (ec != std::errc() || end != value.data() + value.size() || seconds > 1'000'000'000) {
            return std::nullopt;
        }
        return std::chrono::milliseconds(seconds * 1000);
    }
    const auto date = parseHttpDate(value, now);
    if (!date) {
        return std::nullopt;
    }
    if (*date <= now) {
        return std::chrono::milliseconds(0);
    }
    return std::chrono::ceil<std::chrono::milliseconds>(*date - now);
}

}  // namespace reagent::http
