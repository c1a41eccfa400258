#include "schema_walk.hpp"

#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reagent/tools/linear_regex.hpp"

namespace reagent::tools::detail {

namespace {

using nlohmann::json;

// Keywords whose subschemas apply to the value itself: a cycle through these alone never ends.
constexpr std::string_view kInPlaceLists[] = {"allOf", "anyOf", "oneOf"};
constexpr std::string_view kInPlaceSchemas[] = {"not", "if", "then", "else"};
// Keywords whose subschemas apply to a part of the value (a member, an item, a name).
constexpr std::string_view kChildMaps[] = {"properties", "patternProperties"};
constexpr std::string_view kChildSchemas[] = {"additionalProperties", "additionalItems", "contains",
                                              "propertyNames"};

// The JSON pointer to `key` under `pointer`, escaped as RFC 6901 says.
std::string child(const std::string& pointer, std::string_view key) {
    return (json::json_pointer(pointer) / std::string(key)).to_string();
}

const json* resolve(const json& root, const std::string& pointer) {
    try {
        return &root.at(json::json_pointer(pointer));
    } catch (const json::exception&) {
        return nullptr;  // valijson reports a reference to nowhere itself
    }
}

struct Edges {
    std::vector<std::string> inPlace;
    std::vector<std::string> children;
};

Edges edgesOf(const json& node, const std::string& pointer) {
    Edges edges;
    if (const auto ref = node.find("$ref"); ref != node.end()) {
        // valijson follows a $ref and ignores its siblings.
        if (ref->is_string()) {
            const auto& text = ref->get_ref<const std::string&>();
            if (!text.empty() && text.front() == '#') {
                edges.inPlace.push_back(text.substr(1));
            }
        }
        return edges;
    }
    for (const auto keyword : kInPlaceLists) {
        if (const auto list = node.find(keyword); list != node.end() && list->is_array()) {
            for (std::size_t i = 0; i < list->size(); ++i) {
                edges.inPlace.push_back(child(child(pointer, keyword), std::to_string(i)));
            }
        }
    }
    for (const auto keyword : kInPlaceSchemas) {
        if (node.contains(keyword)) {
            edges.inPlace.push_back(child(pointer, keyword));
        }
    }
    if (const auto dependencies = node.find("dependencies");
        dependencies != node.end() && dependencies->is_object()) {
        for (const auto& [name, dependency] : dependencies->items()) {
            if (dependency.is_object()) {
                edges.inPlace.push_back(child(child(pointer, "dependencies"), name));
            }
        }
    }
    for (const auto keyword : kChildMaps) {
        if (const auto map = node.find(keyword); map != node.end() && map->is_object()) {
            for (const auto& item : map->items()) {
                edges.children.push_back(child(child(pointer, keyword), item.key()));
            }
        }
    }
    for (const auto keyword : kChildSchemas) {
        if (node.contains(keyword)) {
            edges.children.push_back(child(pointer, keyword));
        }
    }
    if (const auto items = node.find("items"); items != node.end()) {
        if (items->is_array()) {
            for (std::size_t i = 0; i < items->size(); ++i) {
                edges.children.push_back(child(child(pointer, "items"), std::to_string(i)));
            }
        } else {
            edges.children.push_back(child(pointer, "items"));
        }
    }
    return edges;
}

std::string where(const std::string& pointer) {
    return "#" + pointer;
}

std::string patternProblem(const json& node, const std::string& pointer) {
    const auto refuse = [](const std::string& pattern, const std::string& at, const std::string& why) {
        return "the pattern '" + pattern + "' at " + where(at) + " is not supported (" + why +
               "); patterns use " + std::string(kLinearRegexSyntax);
    };
    if (node.contains("$ref")) {
        return {};
    }
    if (const auto pattern = node.find("pattern"); pattern != node.end() && pattern->is_string()) {
        if (auto compiled = LinearRegex::compile(pattern->get_ref<const std::string&>()); !compiled) {
            return refuse(pattern->get<std::string>(), pointer, compiled.error());
        }
    }
    if (const auto map = node.find("patternProperties"); map != node.end() && map->is_object()) {
        for (const auto& item : map->items()) {
            if (auto compiled = LinearRegex::compile(item.key()); !compiled) {
                return refuse(item.key(), child(child(pointer, "patternProperties"), item.key()),
                              compiled.error());
            }
        }
    }
    return {};
}

enum class Mark { entered, done };

struct Frame {
    std::string pointer;
    std::vector<std::string> inPlace;
    std::size_t next = 0;
};

}  // namespace

std::string schemaProblem(const json& schema) {
    std::unordered_map<std::string, Mark> marks;
    std::vector<std::string> starts{""};
    while (!starts.empty()) {
        std::string start = std::move(starts.back());
        starts.pop_back();
        if (marks.count(start) != 0) {
            continue;
        }
        // A depth-first walk of the in-place edges from `start`: meeting a node still on the path is a
        // cycle. Child edges start walks of their own.
        std::vector<Frame> path;
        const auto enter = [&](std::string pointer) -> std::string {
            const json* node = resolve(schema, pointer);
            marks[pointer] = Mark::entered;
            Frame frame;
            frame.pointer = std::move(pointer);
            if (node != nullptr && node->is_object()) {
                if (std::string problem = patternProblem(*node, frame.pointer); !problem.empty()) {
                    return problem;
                }
                Edges edges = edgesOf(*node, frame.pointer);
                frame.inPlace = std::move(edges.inPlace);
                for (auto& next : edges.children) {
                    starts.push_back(std::move(next));
                }
            }
            path.push_back(std::move(frame));
            return {};
        };
        if (std::string problem = enter(std::move(start)); !problem.empty()) {
            return problem;
        }
        while (!path.empty()) {
            Frame& top = path.back();
            if (top.next == top.inPlace.size()) {
                marks[top.pointer] = Mark::done;
                path.pop_back();
                continue;
            }
            std::string target = top.inPlace[top.next++];
            const auto mark = marks.find(target);
            if (mark == marks.end()) {
                if (std::string problem = enter(std::move(target)); !problem.empty()) {
                    return problem;
                }
            } else if (mark->second == Mark::entered) {
                std::string cycle;
                bool on = false;
                for (const auto& frame : path) {
                    on = on || frame.pointer == target;
                    if (on) {
                        cycle += where(frame.pointer) + " -> ";
                    }
                }
                return "its $ref graph has a cycle that applies a schema to the same value without end (" +
                       cycle + where(target) + ")";
            }
        }
    }
    return {};
}

}  // namespace reagent::tools::detail
