#include "param_headers.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace reagent::mcp::detail {

using nlohmann::json;

namespace {

// RFC 9110 §5.6.2 tchar.
bool token(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return std::isalnum(byte) != 0 ||
               std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    });
}

std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

struct Walk {
    std::vector<ParamHeader> found;
    std::set<std::string> seen;
    std::string problem;

    // `schema` at `path`; `reachable`: every step from the root was a `properties` key.
    void visit(const json& schema, std::vector<std::string>& path, bool reachable) {
        if (!problem.empty() || !schema.is_object()) {
            return;
        }
        if (const auto annotation = schema.find("x-mcp-header"); annotation != schema.end()) {
            check(schema, *annotation, path, reachable);
        }
        for (const auto& [keyword, value] : schema.items()) {
            if (keyword == "properties" && value.is_object()) {
                for (const auto& [name, property] : value.items()) {
                    path.push_back(name);
                    visit(property, path, reachable);
                    path.pop_back();
                }
            } else if (value.is_object()) {
                visit(value, path, false);
            } else if (value.is_array()) {
                for (const auto& item : value) {
                    visit(item, path, false);
                }
            }
        }
    }

    void check(const json& schema, const json& annotation, const std::vector<std::string>& path,
               bool reachable) {
        const std::string where = path.empty() ? std::string("the schema's root") : "argument " + path.back();
        if (!annotation.is_string() || !token(annotation.get_ref<const std::string&>())) {
            problem =
                where + ": x-mcp-header " + annotation.dump() + " is not a header name (an RFC 9110 token)";
            return;
        }
        const std::string& name = annotation.get_ref<const std::string&>();
        if (!reachable || path.empty()) {
            problem = where + ": x-mcp-header " + name + " is not on a property reached through properties";
            return;
        }
        const std::string type =
            schema.value("type", json()).is_string() ? schema["type"].get<std::string>() : "";
        if (type != "string" && type != "integer" && type != "boolean") {
            problem = where + ": x-mcp-header " + name + " is on a property of type " +
                      (type.empty() ? std::string("(none)") : type) + "; only string, integer and boolean";
            return;
        }
        if (!seen.insert(lowered(name)).second) {
            problem = "x-mcp-header " + name + " is used twice";
            return;
        }
        found.push_back(ParamHeader{path, name});
    }
};

}  // namespace

expected<std::vector<ParamHeader>, std::string> paramHeadersOf(const json& inputSchema) {
    Walk walk;
    std::vector<std::string> path;
    walk.visit(inputSchema, path, true);
    if (!walk.problem.empty()) {
        return unexpected(std::move(walk.problem));
    }
    return std::move(walk.found);
}

}  // namespace reagent::mcp::detail
