// Previews of JSON arrays and objects: a schema of dotted key paths and `key=value` lines.

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "preview_parts.hpp"

namespace reagent::memory::detail {
namespace {

using Kind = OutlineNode::Kind;

constexpr std::size_t kValueChars = 60;    // longest scalar in a `key=value` field
constexpr std::size_t kKeyChars = 40;      // longest key segment shown
constexpr std::size_t kMaxLeaves = 256;    // fields collected per item
constexpr std::size_t kSchemaSample = 10;  // items whose paths make up the schema
constexpr std::size_t kSchemaPaths = 16;   // paths named in the schema at most
constexpr std::size_t kMinLineChars = 60;
constexpr std::size_t kMaxLineChars = 240;
constexpr std::size_t kLabelChars = 25;  // reserved for `Preview (first N ...):`
constexpr std::size_t kMinObjectKeys = 5;
constexpr std::string_view kMoreFields = " \xE2\x80\xA6";  // " …" after a line whose fields were cut
constexpr std::size_t kMoreFieldsChars = 2;

// A scalar or collapsed container inside an object item, with its path from the item.
struct Leaf {
    std::vector<const OutlineNode*> path;
    bool urlish = false;

    [[nodiscard]] const OutlineNode& node() const { return *path.back(); }
};

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// URLs are long and rarely what the model is after, so they go last.
bool isUrlish(const OutlineNode& node) {
    const std::string_view key = node.key;
    if (key == "url" || endsWith(key, "_url") || endsWith(key, "Url")) {
        return true;
    }
    const std::string_view text = node.text;
    return node.kind == Kind::string && (text.rfind("http://", 0) == 0 || text.rfind("https://", 0) == 0);
}

bool isJsonNumber(std::string_view text) {
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            ++i;
        }
        return i > start;
    };
    if (i < text.size() && text[i] == '-') {
        ++i;
    }
    if (!digits()) {
        return false;
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (!digits()) {
            return false;
        }
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            ++i;
        }
        if (!digits()) {
            return false;
        }
    }
    return i == text.size();
}

// A string may go unquoted when it cannot be mistaken for another value or for the line's syntax.
bool isBare(std::string_view text) {
    if (text.empty() || text == "true" || text == "false" || text == "null" || isJsonNumber(text) ||
        text.front() == '[' || text.front() == '{') {
        return false;
    }
    return std::none_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte <= 0x20U || byte == 0x7FU || c == '"' || c == '\\' || c == '=';
    });
}

void appendEscaped(std::string& out, std::string_view text) {
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
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
                if (static_cast<unsigned char>(c) < 0x20U || c == 0x7F) {
                    char escape[8];
                    std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
                    out += escape;
                } else {
                    out += c;
                }
        }
    }
}

// A string value: bare or quoted, at most `maxChars` characters of content, "…" where cut.
std::string formatString(const OutlineNode& node, std::size_t maxChars) {
    const std::string_view text = node.text;
    const bool cut = node.textCut || utf8::longerThan(text, maxChars);
    const std::string_view shown = text.substr(0, utf8::prefixBytes(text, cut ? maxChars - 1 : maxChars));
    const bool bare = isBare(text);
    std::string out = bare ? "" : "\"";
    appendEscaped(out, shown);
    if (cut) {
        out += utf8::kEllipsis;
    }
    if (!bare) {
        out += '"';
    }
    return out;
}

// Any value in one short token: scalars as written, containers as their size.
std::string formatValue(const OutlineNode& node, std::size_t maxChars = kValueChars) {
    switch (node.kind) {
        case Kind::string:
            return formatString(node, std::max<std::size_t>(maxChars, 2));
        case Kind::array:
            return node.size == 0 ? "[]" : "[" + counted(node.size, "item") + "]";
        case Kind::object:
            return node.size == 0 ? "{}" : "{" + counted(node.size, "key") + "}";
        default:
            return utf8::cut(node.text, std::max<std::size_t>(maxChars, 2));
    }
}

// A key segment as shown: one line, at most kKeyChars characters. A key cut at capture is longer than
// that anyway, so `cut` marks it with "…".
std::string formatKey(const OutlineNode& node) {
    std::string key = utf8::cut(node.key, kKeyChars);
    for (char& c : key) {
        if (static_cast<unsigned char>(c) < 0x20U) {
            c = '?';
        }
    }
    return key;
}

void collectLeaves(const OutlineNode& object, std::vector<const OutlineNode*>& prefix,
                   std::vector<Leaf>& out) {
    for (const OutlineNode& child : object.children) {
        if (out.size() >= kMaxLeaves) {
            return;
        }
        prefix.push_back(&child);
        if (child.kind == Kind::object && !child.children.empty()) {
            collectLeaves(child, prefix, out);
        } else {
            out.push_back(Leaf{prefix, isUrlish(child)});
        }
        prefix.pop_back();
    }
}

// The object's leaves, shallow ones first and URLs last (input order otherwise).
std::vector<Leaf> leavesOf(const OutlineNode& object) {
    std::vector<Leaf> leaves;
    std::vector<const OutlineNode*> prefix;
    collectLeaves(object, prefix, leaves);
    std::stable_sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) {
        return a.urlish != b.urlish ? b.urlish : a.path.size() < b.path.size();
    });
    return leaves;
}

std::string joinPath(const std::vector<const OutlineNode*>& path, std::size_t fromEnd) {
    std::string text;
    for (std::size_t i = path.size() - fromEnd; i < path.size(); ++i) {
        if (!text.empty()) {
            text += '.';
        }
        text += formatKey(*path[i]);
    }
    return text;
}

// Each leaf's name: its own key, lengthened with parent keys only where two leaves would look alike
// (`author.name` and `committer.name`).
std::vector<std::string> displayNames(const std::vector<Leaf>& leaves) {
    std::vector<std::size_t> depth(leaves.size(), 1);
    std::vector<std::string> names(leaves.size());
    for (bool changed = true; changed;) {
        changed = false;
        std::unordered_map<std::string, std::vector<std::size_t>> groups;
        for (std::size_t i = 0; i < leaves.size(); ++i) {
            names[i] = joinPath(leaves[i].path, depth[i]);
            groups[names[i]].push_back(i);
        }
        for (const auto& [name, members] : groups) {
            if (members.size() < 2) {
                continue;
            }
            for (const std::size_t i : members) {
                if (depth[i] < leaves[i].path.size()) {
                    ++depth[i];
                    changed = true;
                }
            }
        }
    }
    return names;
}

// `name=value name=value ...` within `cap` characters; " …" when fields were left out.
std::string formatFields(const OutlineNode& object, std::size_t cap) {
    const std::vector<Leaf> leaves = leavesOf(object);
    if (leaves.empty()) {
        return formatValue(object);
    }
    const std::vector<std::string> names = displayNames(leaves);
    // Members beyond the outline's or the leaf limit exist but were not collected.
    const bool moreThanCollected = object.size > object.children.size() || leaves.size() >= kMaxLeaves;
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
        const std::string field = names[i] + "=" + formatValue(leaves[i].node());
        const std::size_t length = utf8::length(field);
        const bool last = i + 1 == leaves.size() && !moreThanCollected;
        const std::size_t needed = used + (out.empty() ? 0 : 1) + length + (last ? 0 : kMoreFieldsChars);
        if (needed > cap) {
            if (out.empty() && last) {
                return utf8::cut(field, cap);
            }
            if (out.empty()) {
                out = utf8::cut(field, cap > kMoreFieldsChars ? cap - kMoreFieldsChars : 1);
            }
            out += kMoreFields;
            return out;
        }
        if (!out.empty()) {
            out += ' ';
            ++used;
        }
        out += field;
        used += length;
    }
    if (moreThanCollected) {
        out += kMoreFields;
    }
    return out;
}

std::string formatItem(const OutlineNode& item, std::size_t cap) {
    if (item.kind == Kind::object && !item.children.empty()) {
        return formatFields(item, cap);
    }
    return formatValue(item, cap);
}

struct SchemaPath {
    std::string name;
    std::size_t depth = 0;
    bool urlish = false;
};

// Union of the sampled object items' leaf paths, in the leaves' order.
std::vector<SchemaPath> schemaOf(const OutlineNode& root) {
    std::vector<SchemaPath> paths;
    std::unordered_map<std::string, bool> seen;
    const std::size_t sample = std::min(root.children.size(), kSchemaSample);
    for (std::size_t i = 0; i < sample; ++i) {
        if (root.children[i].kind != Kind::object) {
            continue;
        }
        for (const Leaf& leaf : leavesOf(root.children[i])) {
            std::string name = joinPath(leaf.path, leaf.path.size());
            if (seen.emplace(name, true).second) {
                paths.push_back(SchemaPath{std::move(name), leaf.path.size(), leaf.urlish});
            }
        }
    }
    std::stable_sort(paths.begin(), paths.end(), [](const SchemaPath& a, const SchemaPath& b) {
        return a.urlish != b.urlish ? b.urlish : a.depth < b.depth;
    });
    return paths;
}

std::string_view kindName(Kind kind) {
    switch (kind) {
        case Kind::null:
            return "null";
        case Kind::boolean:
            return "boolean";
        case Kind::number:
            return "number";
        case Kind::string:
            return "string";
        case Kind::array:
            return "array";
        case Kind::object:
            return "object";
    }
    return "value";
}

// `prefix` followed by as many `names` as fit in `cap`, then `, +K more` for the rest.
std::string listWithin(std::string prefix, const std::vector<std::string>& names, std::size_t total,
                       std::size_t cap) {
    const std::string reserve = ", +" + std::to_string(total) + " more";
    std::size_t used = utf8::length(prefix);
    std::size_t shown = 0;
    for (const std::string& name : names) {
        const std::size_t length = utf8::length(name) + (shown == 0 ? 0 : 2);
        const bool last = shown + 1 == total;
        if (shown == kSchemaPaths || used + length + (last ? 0 : reserve.size()) > cap) {
            break;
        }
        prefix += (shown == 0 ? "" : ", ") + name;
        used += length;
        ++shown;
    }
    if (shown < total) {
        prefix += (shown == 0 ? "+" : ", +") + std::to_string(total - shown) + " more";
    }
    return prefix;
}

std::string arrayTypeLine(const OutlineNode& root, std::size_t cap) {
    std::string line = "Type: Array(" + std::to_string(root.size) + ")";
    if (root.size == 0) {
        return line;
    }
    const bool hasObjects = std::any_of(root.children.begin(), root.children.end(),
                                        [](const OutlineNode& item) { return item.kind == Kind::object; });
    if (hasObjects) {
        const std::vector<SchemaPath> paths = schemaOf(root);
        if (paths.empty()) {
            return line + " | Schema: (no keys)";
        }
        std::vector<std::string> names;
        for (const SchemaPath& path : paths) {
            names.push_back(path.name);
        }
        return listWithin(line + " | Schema: ", names, names.size(), cap);
    }
    std::vector<std::string> kinds;
    for (const OutlineNode& item : root.children) {
        const std::string name(kindName(item.kind));
        if (std::find(kinds.begin(), kinds.end(), name) == kinds.end()) {
            kinds.push_back(name);
        }
    }
    return listWithin(line + " | Items: ", kinds, kinds.size(), cap);
}

// Keeps adding lines while they fit in `body` characters (at least one line).
template <class MakeLine>
void fillLines(PreviewParts& parts, std::size_t count, std::size_t body, MakeLine makeLine) {
    std::size_t used = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::string line = makeLine(i);
        const std::size_t length = utf8::length(line) + 1;
        if (i > 0 && used + length > body) {
            break;
        }
        used += length;
        parts.lines.push_back(std::move(line));
    }
}

std::size_t lineCap(std::size_t body, std::size_t count) {
    return std::clamp(body / std::max<std::size_t>(count, 1), kMinLineChars, kMaxLineChars);
}

}  // namespace

PreviewParts previewArray(const OutlineNode& root, const PreviewSpace& space) {
    PreviewParts parts;
    parts.typeLine = arrayTypeLine(root, space.typeLineCap);
    const std::size_t count = std::min(space.previewItems, root.children.size());
    const std::size_t body = space.body(parts.typeLine, kLabelChars);
    const std::size_t cap = lineCap(body, count);
    fillLines(parts, count, body, [&](std::size_t i) {
        std::string line = "[" + std::to_string(i) + "] ";
        const std::size_t prefix = line.size();
        line += formatItem(root.children[i], cap > prefix ? cap - prefix : 1);
        return line;
    });
    if (!parts.lines.empty()) {
        parts.label = "Preview (first " + std::to_string(parts.lines.size()) + "):";
    }
    parts.remaining = root.size - parts.lines.size();
    return parts;
}

PreviewParts previewObject(const OutlineNode& root, const PreviewSpace& space) {
    PreviewParts parts;
    std::vector<std::string> keys;
    for (const OutlineNode& child : root.children) {
        keys.push_back(formatKey(child));
    }
    parts.typeLine = listWithin("Type: Object(" + counted(root.size, "key") + ") | Keys: ", keys, root.size,
                                space.typeLineCap);
    const std::size_t count = std::min(std::max(space.previewItems, kMinObjectKeys), root.children.size());
    const std::size_t body = space.body(parts.typeLine, kLabelChars);
    const std::size_t cap = lineCap(body, count);
    fillLines(parts, count, body, [&](std::size_t i) {
        const OutlineNode& child = root.children[i];
        std::string line = keys[i] + "=";
        const std::size_t used = utf8::length(line);
        const std::size_t room = cap > used + 2 ? cap - used : 2;
        if (child.kind == Kind::object && !child.children.empty()) {
            line += "{" + formatFields(child, room - 2) + "}";
        } else {
            line += formatValue(child, room);
        }
        return line;
    });
    if (!parts.lines.empty()) {
        parts.label = "Preview (first " + counted(parts.lines.size(), "key") + "):";
    }
    parts.remaining = root.size - parts.lines.size();
    parts.unit = "key";
    return parts;
}

}  // namespace reagent::memory::detail
