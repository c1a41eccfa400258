#include "json_outline.hpp"

#include <nlohmann/json.hpp>

#include "utf8.hpp"

namespace reagent::memory::detail {
namespace {

using Json = nlohmann::json;
using Kind = OutlineNode::Kind;

// nlohmann SAX handler that fills an OutlineNode tree within OutlineLimits.
class OutlineBuilder {
  public:
    explicit OutlineBuilder(const OutlineLimits& limits) : limits_(limits) {}

    bool null() { return scalar(Kind::null, "null"); }
    bool boolean(bool value) { return scalar(Kind::boolean, value ? "true" : "false"); }
    bool number_integer(Json::number_integer_t value) {
        if (OutlineNode* node = place(Kind::number)) {
            node->text = std::to_string(value);
        }
        return true;
    }
    bool number_unsigned(Json::number_unsigned_t value) {
        if (OutlineNode* node = place(Kind::number)) {
            node->text = std::to_string(value);
        }
        return true;
    }
    bool number_float(Json::number_float_t /*value*/, const Json::string_t& literal) {
        return scalar(Kind::number, literal);
    }
    bool string(Json::string_t& value) {
        if (OutlineNode* node = place(Kind::string)) {
            node->textCut = keep(node->text, value);
        }
        return true;
    }
    bool binary(Json::binary_t& /*value*/) { return true; }  // JSON text never produces binary values
    bool start_object(std::size_t /*elements*/) { return open(Kind::object); }
    bool key(Json::string_t& name) {
        // Only a kept object needs its member names.
        if (!stack_.empty() && stack_.back() != nullptr) {
            pendingKeyCut_ = keep(pendingKey_, name);
        }
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t /*elements*/) { return open(Kind::array); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const nlohmann::detail::exception& /*error*/) {
        return false;
    }

    [[nodiscard]] OutlineNode& root() noexcept { return root_; }

  private:
    bool scalar(Kind kind, std::string_view text) {
        if (OutlineNode* node = place(kind)) {
            node->text = text;
        }
        return true;
    }

    bool open(Kind kind) {
        stack_.push_back(place(kind));
        return true;
    }

    bool close() {
        stack_.pop_back();
        return true;
    }

    // Copies at most limits_.stringBytes of `from` into `to`; true when it had to cut. The parser has
    // checked that `from` is valid UTF-8, so stepping back over continuation bytes finds a boundary.
    bool keep(std::string& to, std::string_view from) const {
        if (from.size() <= limits_.stringBytes) {
            to.assign(from);
            return false;
        }
        std::size_t end = limits_.stringBytes;
        while (end > 0 && (static_cast<unsigned char>(from[end]) & 0xC0U) == 0x80U) {
            --end;
        }
        to.assign(from.substr(0, end));
        return true;
    }

    [[nodiscard]] std::size_t keepLimit(const OutlineNode& parent, std::size_t depth) const noexcept {
        if (parent.kind == Kind::array) {
            return depth == 0 ? limits_.rootItems : 0;
        }
        return depth < limits_.depth ? limits_.members : 0;
    }

    // The node for a new value, counted in its parent; null when the value is not kept.
    OutlineNode* place(Kind kind) {
        if (stack_.empty()) {
            root_.kind = kind;
            return &root_;
        }
        OutlineNode* parent = stack_.back();
        if (parent == nullptr) {
            return nullptr;
        }
        ++parent->size;
        if (parent->children.size() >= keepLimit(*parent, stack_.size() - 1) || nodes_ >= limits_.nodes) {
            return nullptr;
        }
        ++nodes_;
        OutlineNode& child = parent->children.emplace_back();
        child.kind = kind;
        if (parent->kind == Kind::object) {
            child.key = std::move(pendingKey_);
            child.keyCut = pendingKeyCut_;
            pendingKey_.clear();
        }
        return &child;
    }

    const OutlineLimits& limits_;
    OutlineNode root_;
    // Open containers, innermost last; null for a container that is counted but not kept. Pointers stay
    // valid: a parent's children only grow while the parent itself is the innermost open container.
    std::vector<OutlineNode*> stack_;
    std::string pendingKey_;
    bool pendingKeyCut_ = false;
    std::size_t nodes_ = 0;
};

}  // namespace

std::optional<OutlineNode> outlineJson(std::string_view text, const OutlineLimits& limits) {
    OutlineBuilder builder(limits);
    if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
        return std::nullopt;
    }
    return std::move(builder.root());
}

}  // namespace reagent::memory::detail
