#include "reagent/llm/tool_list.hpp"

#include <utility>

namespace reagent::llm {

ToolList::ToolList(std::vector<ToolSpec> specs)
    : specs_(specs.empty() ? nullptr : std::make_shared<std::vector<ToolSpec>>(std::move(specs))) {}

ToolList::ToolList(std::initializer_list<ToolSpec> specs) : ToolList(std::vector<ToolSpec>(specs)) {}

const std::vector<ToolSpec>& ToolList::specs() const noexcept {
    static const std::vector<ToolSpec> kNone;
    return specs_ ? *specs_ : kNone;
}

void ToolList::push_back(ToolSpec spec) {
    // Shared with another ToolList (a request, a provider's cache): never change it under them.
    if (!specs_ || specs_.use_count() > 1) {
        auto copy = specs_ ? std::make_shared<std::vector<ToolSpec>>(*specs_)
                           : std::make_shared<std::vector<ToolSpec>>();
        specs_ = std::move(copy);
    }
    specs_->push_back(std::move(spec));
}

bool operator==(const ToolList& a, const ToolList& b) {
    return a.sameAs(b) || a.specs() == b.specs();
}

}  // namespace reagent::llm
