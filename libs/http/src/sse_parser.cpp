#include "reagent/http/sse_parser.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace reagent::http {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The WHATWG "UTF-8 decode" with replacement: each maximal invalid subpart becomes one U+FFFD and the
// byte that broke a sequence is examined again. Lines are complete here, so a sequence cut by the end of
// the line is invalid, exactly as it is for the stream decoder (CR and LF are never continuation bytes).
void appendValidUtf8(std::string& out, std::string_view in) {
    const std::size_t n = in.size();
    std::size_t i = 0;
    while (i < n) {
        const auto lead = static_cast<unsigned char>(in[i]);
        if (lead < 0x80) {
            out.push_back(static_cast<char>(lead));
            ++i;
            continue;
        }
        std::size_t needed = 0;
        unsigned char lower = 0x80;
        unsigned char upper = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            needed = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            needed = 2;
            lower = lead == 0xE0 ? 0xA0 : lower;  // no overlong forms
            upper = lead == 0xED ? 0x9F : upper;  // no surrogates
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            needed = 3;
            lower = lead == 0xF0 ? 0x90 : lower;
            upper = lead == 0xF4 ? 0x8F : upper;  // nothing above U+10FFFF
        } else {
            out += kReplacement;
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        std::size_t seen = 0;
        while (seen < needed && j < n) {
            const auto next = static_cast<unsigned char>(in[j]);
            if (next < lower || next > upper) {
                break;
            }
            lower = 0x80;
            upper = 0xBF;
            ++seen;
            ++j;
        }
        if (seen == needed) {
            out.append(in.substr(i, j - i));
        } else {
            out += kReplacement;
        }
        i = j;
    }
}

bool allAsciiDigits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::chrono::milliseconds parseMillis(std::string_view digits) {
    using Rep = std::chrono::milliseconds::rep;
    constexpr Rep kMax = std::numeric_limits<Rep>::max();
    Rep value = 0;
    for (const char c : digits) {
        const Rep digit = c - '0';
        if (value > (kMax - digit) / 10) {
            return std::chrono::milliseconds(kMax);
        }
        value = value * 10 + digit;
    }
    return std::chrono::milliseconds(value);
}

}  // namespace

std::vector<SseEvent> SseParser::feed(std::string_view bytes) {
    std::vector<SseEvent> out;
    if (!started_) {
        // A BOM may itself be split across chunks: hold the first bytes back until they are known to be
        // one or not.
        const std::size_t take = std::min(bytes.size(), kBom.size() - start_.size());
        start_.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        if (start_.size() < kBom.size() && kBom.substr(0, start_.size()) == start_) {
            return out;
        }
        started_ = true;
        const std::string head = std::exchange(start_, std::string());
        if (head != kBom) {
            consume(head, out);
        }
    }
    consume(bytes, out);
    return out;
}

std::vector<SseEvent> SseParser::finish() {
    // An event not terminated by a blank line is discarded (spec: "Once the end of the file is reached,
    // any pending data must be discarded").
    line_.clear();
    start_.clear();
    data_.clear();
    eventType_.clear();
    started_ = false;
    skipLf_ = false;
    return {};
}

void SseParser::consume(std::string_view bytes, std::vector<SseEvent>& out) {
    std::size_t pos = 0;
    if (skipLf_ && !bytes.empty()) {
        // CR ended the last chunk; an LF here completes that CRLF and must not end another line.
        pos = bytes.front() == '\n' ? 1 : 0;
        skipLf_ = false;
    }
    while (pos < bytes.size()) {
        std::size_t eol = bytes.find_first_of("\r\n", pos);
        if (eol == std::string_view::npos) {
            line_.append(bytes.substr(pos));
            return;
        }
        line_.append(bytes.substr(pos, eol - pos));
        processLine(line_, out);
        line_.clear();
        if (bytes[eol] == '\r') {
            if (eol + 1 == bytes.size()) {
                skipLf_ = true;
            } else if (bytes[eol + 1] == '\n') {
                ++eol;
            }
        }
        pos = eol + 1;
    }
}

void SseParser::processLine(std::string_view raw, std::vector<SseEvent>& out) {
    if (raw.empty()) {
        dispatch(out);
        return;
    }
    std::string decoded;
    appendValidUtf8(decoded, raw);
    const std::string_view line = decoded;
    if (line.front() == ':') {
        return;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
        processField(line, {});
        return;
    }
    std::string_view value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    processField(line.substr(0, colon), value);
}

void SseParser::processField(std::string_view field, std::string_view value) {
    // Field names compare literally, without case folding.
    if (field == "event") {
        eventType_ = value;
    } else if (field == "data") {
        data_ += value;
        data_ += '\n';
    } else if (field == "id") {
        if (value.find('\0') == std::string_view::npos) {
            lastEventId_ = value;
        }
    } else if (field == "retry") {
        if (allAsciiDigits(value)) {
            retry_ = parseMillis(value);
        }
    }
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
    if (data_.empty()) {
        eventType_.clear();
        return;
    }
    data_.pop_back();  // the LF appended after the last data line
    SseEvent event;
    if (!eventType_.empty()) {
        event.type = std::move(eventType_);
    }
    event.data = std::move(data_);
    event.lastEventId = lastEventId_;
    event.retry = retry_;
    out.push_back(std::move(event));
    data_.clear();
    eventType_.clear();
}

}  // namespace reagent::http
