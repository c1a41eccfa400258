#include "reagent/core/untrusted_json.hpp"

#include <string>
#include <utility>

#include "reagent/core/enum_name.hpp"

namespace reagent {

namespace {

using nlohmann::json;

// nlohmann's own tree builder, with a count of open arrays and objects in front: the parse stops at the
// first one past the limit, before anything deeper is built.
class BoundedBuilder {
  public:
    BoundedBuilder(json& result, std::size_t maxDepth) : builder_(result, false), maxDepth_(maxDepth) {}

    bool null() { return builder_.null(); }
    bool boolean(bool value) { return builder_.boolean(value); }
    bool number_integer(json::number_integer_t value) { return builder_.number_integer(value); }
    bool number_unsigned(json::number_unsigned_t value) { return builder_.number_unsigned(value); }
    bool number_float(json::number_float_t value, const json::string_t& text) {
        return builder_.number_float(value, text);
    }
    bool string(json::string_t& value) { return builder_.string(value); }
    bool binary(json::binary_t& value) { return builder_.binary(value); }
    bool key(json::string_t& value) { return builder_.key(value); }
    bool start_object(std::size_t size) { return open() && builder_.start_object(size); }
    bool end_object() {
        --depth_;
        return builder_.end_object();
    }
    bool start_array(std::size_t size) { return open() && builder_.start_array(size); }
    bool end_array() {
        --depth_;
        return builder_.end_array();
    }
    bool parse_error(std::size_t position, const std::string& token,
                     const nlohmann::detail::exception& error) {
        problem_ = error.what();
        return builder_.parse_error(position, token, error);
    }

    [[nodiscard]] bool tooDeep() const noexcept { return tooDeep_; }
    [[nodiscard]] const std::string& problem() const noexcept { return problem_; }

  private:
    bool open() {
        if (++depth_ > maxDepth_) {
            tooDeep_ = true;
            return false;
        }
        return true;
    }

    nlohmann::detail::json_sax_dom_parser<json> builder_;
    std::size_t maxDepth_;
    std::size_t depth_ = 0;
    bool tooDeep_ = false;
    std::string problem_;
};

}  // namespace

std::string_view toString(JsonErrc code) noexcept {
    return enumName(code);
}

expected<json, JsonError> parseUntrustedJson(std::string_view text, UntrustedJsonOptions options) {
    json result;
    BoundedBuilder builder(result, options.maxDepth);
    if (json::sax_parse(text.begin(), text.end(), &builder) && !builder.tooDeep()) {
        return result;
    }
    if (builder.tooDeep()) {
        return fail(JsonError{JsonErrc::too_deep, "the JSON nests arrays and objects deeper than " +
                                                      std::to_string(options.maxDepth) + " levels"});
    }
    std::string problem = builder.problem();
    if (problem.empty()) {
        problem = "not a JSON value";
    }
    return fail(JsonError{JsonErrc::syntax, std::move(problem)});
}

}  // namespace reagent
