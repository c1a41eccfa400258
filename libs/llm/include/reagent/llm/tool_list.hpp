#pragma once
/// \file
/// \brief `ToolSpec` and `ToolList`: the tools offered to a model, shared between requests.

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace reagent::llm {

/// \brief A tool as offered to the model.
struct ToolSpec {
    std::string name;
    std::string description;
    nlohmann::json inputSchema;

    friend bool operator==(const ToolSpec&, const ToolSpec&) = default;
};

/// \brief The tools offered with a request: an immutable list shared by every request that offers it.
///
/// Copying a `ToolList` copies a pointer, not the specs and their schemas: an agent builds its list once
/// per run and offers it on every turn for free, and a provider recognises a list it has already seen
/// (`sameAs`) and reuses what it encoded from it. It reads like a `const std::vector<ToolSpec>`;
/// `push_back` copies the specs first when the list is shared with another `ToolList` (copy on write),
/// so a change never shows through another copy.
///
/// \par Thread safety
/// Distinct `ToolList` objects may be used from different threads even when they share their specs.
class ToolList {
  public:
    using value_type = ToolSpec;
    using const_iterator = std::vector<ToolSpec>::const_iterator;
    using size_type = std::size_t;

    /// \brief No tools.
    ToolList() = default;
    /// \brief Takes over `specs` (implicit: a vector of specs is a tool list).
    ToolList(std::vector<ToolSpec> specs);  // NOLINT(google-explicit-constructor)
    ToolList(std::initializer_list<ToolSpec> specs);

    [[nodiscard]] const_iterator begin() const noexcept { return specs().begin(); }
    [[nodiscard]] const_iterator end() const noexcept { return specs().end(); }
    [[nodiscard]] size_type size() const noexcept { return specs_ ? specs_->size() : 0; }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    [[nodiscard]] const ToolSpec& operator[](size_type index) const { return specs()[index]; }
    [[nodiscard]] const ToolSpec& front() const { return specs().front(); }
    [[nodiscard]] const ToolSpec& back() const { return specs().back(); }
    /// \brief The specs, in the order offered.
    [[nodiscard]] const std::vector<ToolSpec>& specs() const noexcept;

    /// \brief Appends a spec (copying the list first if another `ToolList` shares it).
    void push_back(ToolSpec spec);

    /// \brief True when both share the very same list, not merely equal specs (empty lists never do).
    [[nodiscard]] bool sameAs(const ToolList& other) const noexcept {
        return specs_ != nullptr && specs_ == other.specs_;
    }

    /// \brief Equal specs in the same order.
    friend bool operator==(const ToolList& a, const ToolList& b);

  private:
    /// Null for no tools.
    std::shared_ptr<std::vector<ToolSpec>> specs_;
};

}  // namespace reagent::llm
