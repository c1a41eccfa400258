// `parseSkill`: a SKILL.md's front matter, in the part of YAML its fields use, and its body.

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "reagent/core/enum_name.hpp"
#include "reagent/skills/skill.hpp"

namespace reagent::skills {

std::string_view toString(SkillErrc code) noexcept {
    return enumName(code);
}

namespace {

struct Line {
    std::size_t number = 0;  // 1-based, in the file
    std::string_view text;
};

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

std::size_t indentOf(std::string_view text) {
    std::size_t n = 0;
    while (n < text.size() && text[n] == ' ') {
        ++n;
    }
    return n;
}

bool blankOrComment(std::string_view text) {
    const std::string_view t = trimmed(text);
    return t.empty() || t.front() == '#';
}

class Reader {
  public:
    Reader(std::vector<Line> lines, const std::string& file) : lines_(std::move(lines)), file_(file) {}

    expected<ParsedSkill, SkillError> read(std::string body) {
        ParsedSkill parsed;
        parsed.body = std::move(body);
        bool sawName = false;
        bool sawDescription = false;
        while (at_ < lines_.size()) {
            const Line line = lines_[at_++];
            if (blankOrComment(line.text)) {
                continue;
            }
            if (indentOf(line.text) > 0) {
                return invalid(line, "an indented line where a key was expected");
            }
            const auto colon = line.text.find(':');
            if (colon == std::string_view::npos || colon == 0) {
                return invalid(line, "a line that is not 'key: value'");
            }
            const std::string key(trimmed(line.text.substr(0, colon)));
            const std::string_view rest = trimmed(line.text.substr(colon + 1));
            if (key == "metadata") {
                auto map = mapAfter(line, rest);
                if (!map) {
                    return unexpected(map.error());
                }
                parsed.info.metadata = std::move(*map);
                continue;
            }
            if (key == "allowed-tools") {
                auto tools = listOrWordsAfter(line, rest);
                if (!tools) {
                    return unexpected(tools.error());
                }
                parsed.info.allowedTools = std::move(*tools);
                continue;
            }
            auto value = scalarAfter(line, rest);
            if (!value) {
                return unexpected(value.error());
            }
            if (key == "name") {
                parsed.info.name = std::move(*value);
                sawName = true;
            } else if (key == "description") {
                parsed.info.description = std::move(*value);
                sawDescription = true;
            } else if (key == "license") {
                parsed.info.license = std::move(*value);
            } else if (key == "compatibility") {
                parsed.info.compatibility = std::move(*value);
            }
            // Other keys (hosts add their own) are read and left out.
        }
        return check(std::move(parsed), sawName, sawDescription);
    }

  private:
    SkillError invalidError(const Line& line, const std::string& what) const {
        return {SkillErrc::invalid_skill, file_ + ":" + std::to_string(line.number) + ": " + what};
    }
    unexpected<SkillError> invalid(const Line& line, const std::string& what) const {
        return unexpected(invalidError(line, what));
    }

    // The indented lines after the current one (blank ones kept inside a block).
    std::vector<Line> block() {
        std::vector<Line> out;
        while (at_ < lines_.size() && (indentOf(lines_[at_].text) > 0 || trimmed(lines_[at_].text).empty())) {
            out.push_back(lines_[at_++]);
        }
        while (!out.empty() && trimmed(out.back().text).empty()) {
            out.pop_back();
        }
        return out;
    }

    // A scalar: plain, "double" or 'single' quoted, or a block (`|` keeps the lines, `>` folds them).
    expected<std::string, SkillError> scalarAfter(const Line& line, std::string_view rest) {
        if (rest == "|" || rest == ">" || rest == "|-" || rest == ">-") {
            const bool literal = rest.front() == '|';
            const std::vector<Line> lines = block();
            std::size_t indent = std::string_view::npos;
            for (const Line& l : lines) {
                if (!trimmed(l.text).empty()) {
                    indent = std::min(indent, indentOf(l.text));
                }
            }
            std::string out;
            for (const Line& l : lines) {
                const std::string_view text =
                    l.text.size() > indent ? l.text.substr(indent) : std::string_view{};
                if (!out.empty()) {
                    out += literal || trimmed(text).empty() ? "\n" : " ";
                }
                out += trimmed(text).empty() ? std::string_view{} : trimmed(text);
            }
            return out;
        }
        if (rest.empty()) {
            if (at_ < lines_.size() && indentOf(lines_[at_].text) > 0 && !blankOrComment(lines_[at_].text)) {
                return invalid(lines_[at_], "a map or a list where a text value was expected");
            }
            return std::string();
        }
        return quotedOrPlain(line, rest);
    }

    expected<std::string, SkillError> quotedOrPlain(const Line& line, std::string_view rest) const {
        if (rest.front() == '"') {
            std::string out;
            for (std::size_t i = 1; i < rest.size(); ++i) {
                const char c = rest[i];
                if (c == '"') {
                    if (!blankOrComment(rest.substr(i + 1))) {
                        return invalid(line, "text after a closing quote");
                    }
                    return out;
                }
                if (c == '\\' && i + 1 < rest.size()) {
                    const char next = rest[++i];
                    out += next == 'n' ? '\n' : next == 't' ? '\t' : next;
                } else {
                    out += c;
                }
            }
            return invalid(line, "a double-quoted value not closed on its line");
        }
        if (rest.front() == '\'') {
            std::string out;
            for (std::size_t i = 1; i < rest.size(); ++i) {
                if (rest[i] == '\'') {
                    if (i + 1 < rest.size() && rest[i + 1] == '\'') {
                        out += '\'';
                        ++i;
                        continue;
                    }
                    if (!blankOrComment(rest.substr(i + 1))) {
                        return invalid(line, "text after a closing quote");
                    }
                    return out;
                }
                out += rest[i];
            }
            return invalid(line, "a single-quoted value not closed on its line");
        }
        if (rest.front() == '[' || rest.front() == '{' || rest.front() == '&' || rest.front() == '*' ||
            rest.front() == '!') {
            return invalid(line,
                           "YAML flow collections, anchors and tags are not read here; write the value "
                           "as text (in quotes if it starts with " +
                               std::string(1, rest.front()) + ")");
        }
        // A plain scalar ends at a comment.
        std::string_view plain = rest;
        if (const auto comment = plain.find(" #"); comment != std::string_view::npos) {
            plain = trimmed(plain.substr(0, comment));
        }
        return std::string(plain);
    }

    expected<std::map<std::string, std::string>, SkillError> mapAfter(const Line& line,
                                                                      std::string_view rest) {
        if (!rest.empty()) {
            return invalid(line,
                           "metadata must be a map of keys to text, one indented 'key: value' per line");
        }
        std::map<std::string, std::string> out;
        for (const Line& entry : block()) {
            if (blankOrComment(entry.text)) {
                continue;
            }
            const std::string_view text = trimmed(entry.text);
            const auto colon = text.find(':');
            if (colon == std::string_view::npos || colon == 0) {
                return invalid(entry, "a metadata line that is not 'key: value'");
            }
            auto value = quotedOrPlain(entry, trimmed(text.substr(colon + 1)).empty()
                                                  ? std::string_view("''")
                                                  : trimmed(text.substr(colon + 1)));
            if (!value) {
                return unexpected(value.error());
            }
            out[std::string(trimmed(text.substr(0, colon)))] = std::move(*value);
        }
        return out;
    }

    expected<std::vector<std::string>, SkillError> listOrWordsAfter(const Line& line, std::string_view rest) {
        std::vector<std::string> out;
        if (!rest.empty()) {
            auto words = quotedOrPlain(line, rest);
            if (!words) {
                return unexpected(words.error());
            }
            std::string_view left = *words;
            while (!(left = trimmed(left)).empty()) {
                const auto space = left.find(' ');
                out.emplace_back(left.substr(0, space));
                left = space == std::string_view::npos ? std::string_view{} : left.substr(space);
            }
            return out;
        }
        for (const Line& entry : block()) {
            if (blankOrComment(entry.text)) {
                continue;
            }
            const std::string_view text = trimmed(entry.text);
            if (text.size() < 2 || text.substr(0, 2) != "- ") {
                return invalid(entry, "a list item that does not start with '- '");
            }
            auto item = quotedOrPlain(entry, trimmed(text.substr(2)));
            if (!item) {
                return unexpected(item.error());
            }
            out.push_back(std::move(*item));
        }
        return out;
    }

    expected<ParsedSkill, SkillError> check(ParsedSkill parsed, bool sawName, bool sawDescription) const {
        const SkillInfo& info = parsed.info;
        const auto bad = [this](std::string what) {
            return unexpected(SkillError{SkillErrc::invalid_skill, file_ + ": " + std::move(what)});
        };
        if (!sawName || info.name.empty()) {
            return bad("the front matter has no 'name' (required)");
        }
        if (info.name.size() > 64) {
            return bad("the name '" + info.name + "' is longer than 64 characters");
        }
        const bool lowercase = std::all_of(info.name.begin(), info.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        });
        if (!lowercase || info.name.front() == '-' || info.name.back() == '-' ||
            info.name.find("--") != std::string::npos) {
            return bad("the name '" + info.name +
                       "' may hold only lowercase letters, digits and single hyphens, not first or last");
        }
        if (!sawDescription || info.description.empty()) {
            return bad(
                "the front matter has no 'description' (required: what the skill does and when to "
                "use it)");
        }
        if (info.description.size() > 1024) {
            return bad("the description is " + std::to_string(info.description.size()) +
                       " characters; at most 1024");
        }
        if (info.compatibility.size() > 500) {
            return bad("the compatibility is " + std::to_string(info.compatibility.size()) +
                       " characters; at most 500");
        }
        return parsed;
    }

    std::vector<Line> lines_;
    std::size_t at_ = 0;
    const std::string& file_;
};

}  // namespace

expected<ParsedSkill, SkillError> parseSkill(std::string_view text, const std::string& file) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);  // a byte-order mark
    }
    std::vector<Line> lines;
    std::size_t number = 0;
    std::size_t start = 0;
    std::optional<std::size_t> bodyAt;
    bool opened = false;
    while (start <= text.size()) {
        const auto end = text.find('\n', start);
        const std::string_view line =
            text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        ++number;
        const std::size_t next = end == std::string_view::npos ? text.size() + 1 : end + 1;
        if (!opened) {
            if (trimmed(line) != "---") {
                return unexpected(SkillError{SkillErrc::invalid_skill,
                                             file + ":1: a SKILL.md begins with YAML front matter between "
                                                    "'---' lines (name and description)"});
            }
            opened = true;
        } else if (trimmed(line) == "---" && indentOf(line) == 0) {
            bodyAt = std::min(next, text.size());
            break;
        } else {
            lines.push_back(Line{number, line});
        }
        start = next;
    }
    if (!bodyAt) {
        return unexpected(
            SkillError{SkillErrc::invalid_skill, file + ": the front matter is not closed by a '---' line"});
    }
    std::string body(trimmed(text.substr(*bodyAt)).empty() ? std::string_view{} : text.substr(*bodyAt));
    while (!body.empty() && (body.front() == '\n' || body.front() == '\r')) {
        body.erase(0, 1);
    }
    Reader reader(std::move(lines), file);
    return reader.read(std::move(body));
}

}  // namespace reagent::skills
