#pragma once
// JsonWriter: request bodies written straight to text, with no JSON tree in between. Internal to the
// providers library.
//
// The output is what nlohmann's `dump(-1, ' ', false, error_handler_t::replace)` gives for the same
// document, byte for byte: compact, UTF-8 kept as is, control characters escaped (`\n`, `\u001f`), and
// invalid UTF-8 (tool output is arbitrary bytes) replaced by U+FFFD. The codecs write object keys in
// sorted order, as nlohmann's objects are, so bodies keep the shape they always had.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace reagent::providers::detail {

class JsonWriter {
  public:
    explicit JsonWriter(std::string& out) : out_(out) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    /// An object member's key; the value written next belongs to it. Written as is: the codecs' keys are
    /// literals that need no escaping.
    JsonWriter& key(std::string_view name);

    JsonWriter& string(std::string_view text);
    JsonWriter& integer(std::int64_t number);
    JsonWriter& number(double number);
    JsonWriter& boolean(bool value);
    JsonWriter& null();
    /// A value given as JSON text, written as is (it must be one valid JSON value).
    JsonWriter& raw(std::string_view json);
    /// A JSON value, serialized.
    JsonWriter& value(const nlohmann::json& json);

  private:
    // Siblings are separated by a comma: needed unless the previous character opened a container or
    // ended a key.
    void separate();

    std::string& out_;
};

/// Appends `text` as a JSON string literal (quoted and escaped) to `out`.
void appendJsonString(std::string& out, std::string_view text);

/// `json` serialized as the codecs send it (invalid UTF-8 replaced).
[[nodiscard]] std::string dumpJson(const nlohmann::json& json);

}  // namespace reagent::providers::detail
