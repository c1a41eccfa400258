#pragma once
/// \file
/// \brief What the `find` meta-tool searches besides the agent's own tools and memory: a `FindSource`, such
/// as a document index (`reagent::documents`), attached with `AgentBuilder::withFindSource`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::agent {

/// \brief Name of the meta-tool that searches the agent's tools, memory and find sources.
inline constexpr const char* kFindTool = "find";

/// \brief One passage or item a `FindSource` found.
struct FindHit {
    /// Where it comes from, as the model should cite it (a file and its lines, a URL with a heading).
    std::string citation;
    /// The passage itself, or a snippet of it.
    std::string text;
    /// Higher is better; comparable within one source's hits only.
    double score = 0;
    /// Anything else the source wants the structured result to carry (ids, positions); null for none.
    nlohmann::json detail = nullptr;
};

/// \brief A searchable collection `find` reaches. Implementations must be safe to call from the agent's
/// executor while other runs use it, and must not throw: a failure is a `ToolError` value.
class FindSource {
  public:
    FindSource() = default;
    FindSource(const FindSource&) = delete;
    FindSource& operator=(const FindSource&) = delete;
    virtual ~FindSource() = default;

    /// \brief The kind of its hits, a plural noun shown to the model and accepted in `find`'s `kinds`
    /// ("documents"). Letters, digits and '-' only.
    [[nodiscard]] virtual std::string kind() const = 0;
    /// \brief Up to `limit` hits for `query` (the model's words, not a query language), best first.
    [[nodiscard]] virtual Task<expected<std::vector<FindHit>, tools::ToolError>> find(std::string query,
                                                                                      std::size_t limit) = 0;
};

}  // namespace reagent::agent
