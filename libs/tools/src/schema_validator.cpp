#include "reagent/tools/schema_validator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#include <vector>

#include "schema_walk.hpp"
#include "valijson_linear_regex.hpp"

namespace reagent::tools {

using nlohmann::json;

namespace detail {

// The shape most tool schemas have (what `ToolBuilder::param` writes): an object whose properties are
// strings, numbers, integers or booleans, some required. Arguments that pass this check are valid, and
// skip valijson (about 5k instructions a call); any others are checked by valijson, which words the errors.
struct FlatSchema {
    enum class Kind { string, number, integer, boolean };
    struct Property {
        std::string name;
        Kind kind = Kind::string;
    };
    std::vector<Property> properties;
    std::vector<std::string> required;
    bool closed = false;  // additionalProperties: false

    [[nodiscard]] bool accepts(const json& args) const;
};

}  // namespace detail

struct SchemaValidator::Compiled {
    json source;
    // valijson::Schema is neither copyable nor movable: it lives here, shared by every copy of the validator.
    valijson::Schema schema;
    std::optional<detail::FlatSchema> flat;
};

namespace {

// Deeper nesting than this is not walked for defaults (it protects the stack from hostile schemas).
constexpr int kMaxDepth = 64;
// Enum values listed in an error message; longer lists are cut.
constexpr std::size_t kMaxListedEnumValues = 10;

bool declaresType(const json& schema, std::string_view type) {
    const auto it = schema.find("type");
    if (it == schema.end()) {
        return false;
    }
    if (it->is_string()) {
        return it->get_ref<const std::string&>() == type;
    }
    if (it->is_array()) {
        for (const auto& entry : *it) {
            if (entry.is_string() && entry.get_ref<const std::string&>() == type) {
                return true;
            }
        }
    }
    return false;
}

// JSON has one number type: a model may well write 2.0 for an integer, which is still an integer.
void normaliseInteger(const json& schema, json& value) {
    if (!value.is_number_float() || !declaresType(schema, "integer") || declaresType(schema, "number")) {
        return;
    }
    const double number = value.get<double>();
    constexpr double kLimit = 9007199254740992.0;  // 2^53: beyond it a double is no longer exact
    if (std::isfinite(number) && number == std::trunc(number) && std::fabs(number) <= kLimit) {
        value = static_cast<std::int64_t>(number);
    }
}

// Fills in missing properties that have a "default", in nested objects and array items as well.
void prepare(const json& schema, json& value, int depth) {
    if (!schema.is_object() || depth > kMaxDepth) {
        return;
    }
    normaliseInteger(schema, value);
    if (value.is_object()) {
        const auto properties = schema.find("properties");
        if (properties == schema.end() || !properties->is_object()) {
            return;
        }
        for (const auto& [key, sub] : properties->items()) {
            auto it = value.find(key);
            if (it == value.end()) {
                if (!sub.is_object() || !sub.contains("default")) {
                    continue;
                }
                it = value.emplace(key, sub.at("default")).first;
            }
            prepare(sub, *it, depth + 1);
        }
    } else if (value.is_array()) {
        const auto items = schema.find("items");
        if (items != schema.end() && items->is_object()) {
            for (auto& element : value) {
                prepare(*items, element, depth + 1);
            }
        }
    }
}

std::string typeName(const json& value) {
    if (value.is_number_integer()) {
        return "integer";
    }
    return value.type_name();
}

std::string pointer(const std::vector<std::string>& tokens) {
    json::json_pointer path;
    for (const auto& token : tokens) {
        path /= token;  // escaped (~0, ~1) by to_string
    }
    return path.to_string();
}

// The schema and value at `tokens`, following "properties" and "items" only; nulls when unknown.
std::pair<const json*, const json*> locate(const json& schema, const json& value,
                                           const std::vector<std::string>& tokens) {
    const json* s = &schema;
    const json* v = &value;
    for (const auto& token : tokens) {
        if (!s->is_object()) {
            return {nullptr, nullptr};
        }
        if (v->is_array()) {
            const auto items = s->find("items");
            std::size_t index = 0;
            try {
                index = std::stoul(token);
            } catch (const std::exception&) {
                return {nullptr, nullptr};
            }
            if (items == s->end() || index >= v->size()) {
                return {nullptr, nullptr};
            }
            s = &*items;
            v = &(*v)[index];
        } else if (v->is_object()) {
            const auto properties = s->find("properties");
            if (properties == s->end() || !properties->is_object() || !properties->contains(token) ||
                !v->contains(token)) {
                return {nullptr, nullptr};
            }
            s = &properties->at(token);
            v = &v->at(token);
        } else {
            return {nullptr, nullptr};
        }
    }
    return {s, v};
}

// Adds what the rule expected, when the schema says it plainly: a model fixes "expected integer,
// got string" faster than a bare rule name.
std::string hint(std::string_view description, const json* schema, const json* value) {
    if (schema == nullptr || value == nullptr || !schema->is_object()) {
        return {};
    }
    if (description.find("'type' constraint") != std::string_view::npos && schema->contains("type")) {
        const json& type = schema->at("type");
        std::string expected;
        if (type.is_string()) {
            expected = type.get<std::string>();
        } else if (type.is_array()) {
            for (const auto& entry : type) {
                expected +=
                    (expected.empty() ? "" : " or ") + (entry.is_string() ? entry.get<std::string>() : "?");
            }
        }
        return expected.empty() ? std::string{}
                                : " (expected " + expected + ", got " + typeName(*value) + ")";
    }
    if (description.find("enum values") != std::string_view::npos && schema->contains("enum") &&
        schema->at("enum").is_array()) {
        const json& values = schema->at("enum");
        std::string allowed;
        std::size_t listed = 0;
        for (const auto& entry : values) {
            if (listed++ == kMaxListedEnumValues) {
                allowed += ", ...";
                break;
            }
            allowed += (allowed.empty() ? "" : ", ") +
                       entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
        return " (allowed: " + allowed + ")";
    }
    return {};
}

struct Issue {
    std::vector<std::string> tokens;
    std::string description;
    bool wrapper = false;
};

// valijson reports each failure once per enclosing level ("Failed to validate item #2 in array.");
// these summaries add nothing when a more precise error at or below the same path exists.
bool isWrapper(std::string_view description) {
    constexpr std::string_view kPrefixes[] = {
        "Failed to validate against schema associated with property name",
        "Failed to validate against schema associated with pattern",
        "Failed to validate against additional properties schema",
        "Failed to validate item #",
        "Failed to validate against child schema #",
    };
    for (const auto prefix : kPrefixes) {
        if (description.substr(0, prefix.size()) == prefix) {
            return true;
        }
    }
    return false;
}

bool startsWith(const std::vector<std::string>& tokens, const std::vector<std::string>& prefix) {
    return tokens.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), tokens.begin());
}

std::vector<Issue> issuesOf(const valijson::ValidationResults& results) {
    std::vector<Issue> issues;
    for (const auto& error : results) {
        Issue issue;
        // The first element is "<root>", the others "[name]" or "[index]".
        for (std::size_t i = 1; i < error.context.size(); ++i) {
            const std::string& token = error.context[i];
            const bool bracketed = token.size() >= 2 && token.front() == '[' && token.back() == ']';
            issue.tokens.push_back(bracketed ? token.substr(1, token.size() - 2) : token);
        }
        issue.description = error.description;
        issue.wrapper = isWrapper(issue.description);
        issues.push_back(std::move(issue));
    }
    return issues;
}

bool coveredByLeaf(const Issue& wrapper, const std::vector<Issue>& issues) {
    for (const auto& other : issues) {
        if (!other.wrapper && startsWith(other.tokens, wrapper.tokens)) {
            return true;
        }
    }
    return false;
}

ToolError invalidArguments(const std::vector<std::pair<std::string, std::string>>& failures) {
    std::string message = "invalid arguments: ";
    json details = json::array();
    for (std::size_t i = 0; i < failures.size(); ++i) {
        const auto& [path, text] = failures[i];
        message += (i == 0 ? "at " : "; at ") + (path.empty() ? std::string("root") : path) + ": " + text;
        details.push_back({{"path", path}, {"message", text}});
    }
    return ToolError{ToolErrc::invalid_arguments, std::move(message), std::move(details)};
}

}  // namespace

bool detail::FlatSchema::accepts(const json& args) const {
    if (!args.is_object()) {
        return false;
    }
    for (const std::string& name : required) {
        if (!args.contains(name)) {
            return false;
        }
    }
    std::size_t known = 0;
    for (const Property& property : properties) {
        const auto it = args.find(property.name);
        if (it == args.end()) {
            continue;
        }
        ++known;
        const bool matches = property.kind == Kind::string    ? it->is_string()
                             : property.kind == Kind::boolean ? it->is_boolean()
                             : property.kind == Kind::integer ? it->is_number_integer()
                                                              : it->is_number();
        if (!matches) {
            return false;
        }
    }
    return !closed || known == args.size();
}

namespace {

// The flat shape of `schema`, when it has it: nothing but these keywords, each property a single scalar type.
std::optional<detail::FlatSchema> flatShapeOf(const json& schema) {
    using detail::FlatSchema;
    static constexpr std::string_view kRootKeys[] = {
        "type", "properties", "required", "description", "title", "$schema", "additionalProperties"};
    static constexpr std::string_view kPropertyKeys[] = {"type", "description", "title"};
    const auto only = [](const json& object, const auto& allowed) {
        return std::all_of(object.items().begin(), object.items().end(), [&](const auto& item) {
            return std::find(std::begin(allowed), std::end(allowed), item.key()) != std::end(allowed);
        });
    };
    if (!only(schema, kRootKeys) || schema.value("type", json()) != "object") {
        return std::nullopt;
    }
    FlatSchema flat;
    if (const auto additional = schema.find("additionalProperties"); additional != schema.end()) {
        if (!additional->is_boolean()) {
            return std::nullopt;
        }
        flat.closed = !additional->get<bool>();
    }
    if (const auto required = schema.find("required"); required != schema.end()) {
        if (!required->is_array()) {
            return std::nullopt;
        }
        for (const json& name : *required) {
            if (!name.is_string()) {
                return std::nullopt;
            }
            flat.required.push_back(name.get<std::string>());
        }
    }
    const auto properties = schema.find("properties");
    if (properties == schema.end()) {
        return flat;
    }
    if (!properties->is_object()) {
        return std::nullopt;
    }
    for (const auto& [name, property] : properties->items()) {
        if (!property.is_object() || !only(property, kPropertyKeys)) {
            return std::nullopt;
        }
        const json type = property.value("type", json());
        FlatSchema::Kind kind{};
        if (type == "string") {
            kind = FlatSchema::Kind::string;
        } else if (type == "number") {
            kind = FlatSchema::Kind::number;
        } else if (type == "integer") {
            kind = FlatSchema::Kind::integer;
        } else if (type == "boolean") {
            kind = FlatSchema::Kind::boolean;
        } else {
            return std::nullopt;
        }
        flat.properties.push_back({name, kind});
    }
    return flat;
}

}  // namespace

SchemaValidator::SchemaValidator(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}

expected<SchemaValidator, ToolError> SchemaValidator::compile(const json& schema) {
    if (!schema.is_object()) {
        return fail(
            ToolError{ToolErrc::invalid_definition,
                      std::string("invalid JSON Schema: expected an object, got ") + schema.type_name()});
    }
    // valijson would recurse without end on a $ref cycle, and std::regex must never see these patterns.
    if (std::string problem = detail::schemaProblem(schema); !problem.empty()) {
        return fail(ToolError{ToolErrc::invalid_definition, "invalid JSON Schema: " + problem});
    }
    auto compiled = std::make_shared<Compiled>();
    compiled->source = schema;
    std::string problem;
    try {
        valijson::SchemaParser parser;
        const valijson::adapters::NlohmannJsonAdapter adapter(compiled->source);
        parser.populateSchema(adapter, compiled->schema);
    } catch (const std::exception& e) {
        problem = e.what();
    }
    if (!problem.empty()) {
        return fail(ToolError{ToolErrc::invalid_definition, "invalid JSON Schema: " + problem});
    }
    compiled->flat = flatShapeOf(compiled->source);
    return SchemaValidator(std::move(compiled));
}

expected<json, ToolError> SchemaValidator::validate(json args) const {
    const json& schema = compiled_->source;
    // Models often send nothing at all for a tool without parameters.
    if (args.is_null() && declaresType(schema, "object")) {
        args = json::object();
    }
    if (!args.is_object() && declaresType(schema, "object") && !declaresType(schema, typeName(args))) {
        return fail(
            invalidArguments({{"", "expected a JSON object of named arguments, got " + typeName(args)}}));
    }
    prepare(schema, args, 0);
    if (compiled_->flat && compiled_->flat->accepts(args)) {
        return args;
    }

    // A Validator caches regexes and is not const: one per call keeps validate() safe to run concurrently.
    valijson::Validator validator;
    valijson::ValidationResults results;
    const valijson::adapters::NlohmannJsonAdapter target(args);
    if (validator.validate(compiled_->schema, target, &results)) {
        return args;
    }

    const std::vector<Issue> issues = issuesOf(results);
    std::vector<std::pair<std::string, std::string>> failures;
    for (const auto& issue : issues) {
        if (issue.wrapper && coveredByLeaf(issue, issues)) {
            continue;
        }
        std::string text = issue.description;
        while (!text.empty() && (text.back() == '.' || text.back() == ' ')) {
            text.pop_back();
        }
        const auto [at, value] = locate(schema, args, issue.tokens);
        text += hint(issue.description, at, value);
        auto failure = std::make_pair(pointer(issue.tokens), std::move(text));
        if (std::find(failures.begin(), failures.end(), failure) == failures.end()) {
            failures.push_back(std::move(failure));
        }
    }
    if (failures.empty()) {
        failures.emplace_back("", "arguments do not match the tool's schema");
    }
    return fail(invalidArguments(failures));
}

const json& SchemaValidator::schema() const noexcept {
    return compiled_->source;
}

}  // namespace reagent::tools
