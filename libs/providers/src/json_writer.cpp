#include "json_writer.hpp"

#include <charconv>

#include "reagent/core/detail/utf8.hpp"

namespace reagent::providers::detail {

void appendJsonString(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::size_t start = out.size();
    out.push_back('"');
    std::size_t plain = 0;  // start of the run of bytes copied as they are
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            ++i;
            continue;
        }
        if (c >= 0x80) {
            const std::size_t length = reagent::detail::utf8SequenceLength(text, i);
            if (length == 0) {
                // Invalid UTF-8: rare (tool output); nlohmann's replacement rules apply, so let it write.
                out.resize(start);
                out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
                return;
            }
            i += length;
            continue;
        }
        out.append(text.data() + plain, i - plain);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                out += "\\u00";
                out.push_back(kHex[c >> 4]);
                out.push_back(kHex[c & 0x0F]);
                break;
        }
        plain = ++i;
    }
    out.append(text.data() + plain, text.size() - plain);
    out.push_back('"');
}

std::string dumpJson(const nlohmann::json& json) {
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonWriter::separate() {
    if (out_.empty()) return;
    const char last = out_.back();
    if (last != '{' && last != '[' && last != ':') out_.push_back(',');
}

JsonWriter& JsonWriter::beginObject() {
    separate();
    out_.push_back('{');
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    out_.push_back('}');
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    separate();
    out_.push_back('[');
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    out_.push_back(']');
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    separate();
    out_.push_back('"');
    out_.append(name);
    out_.append("\":", 2);
    return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
    separate();
    appendJsonString(out_, text);
    return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t number) {
    separate();
    char digits[24];
    const char* end = std::to_chars(digits, digits + sizeof digits, number).ptr;
    out_.append(digits, static_cast<std::size_t>(end - digits));
    return *this;
}

JsonWriter& JsonWriter::number(double number) {
    // nlohmann's shortest round-trip form (0.2, 1.0, 1e-05), so bodies do not change with the writer.
    return raw(nlohmann::json(number).dump());
}

JsonWriter& JsonWriter::boolean(bool value) {
    return raw(value ? "true" : "false");
}

JsonWriter& JsonWriter::null() {
    return raw("null");
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    separate();
    out_.append(json);
    return *this;
}

JsonWriter& JsonWriter::value(const nlohmann::json& json) {
    return raw(dumpJson(json));
}

}  // namespace reagent::providers::detail
