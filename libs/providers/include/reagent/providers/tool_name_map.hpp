#pragma once
/// \file
/// \brief `ToolNameMap`: tool names as providers accept them, and back.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/llm/model_request.hpp"

namespace reagent::providers {

/// \brief Which tool names a provider accepts.
enum class ToolNameRules {
    /// `^[a-zA-Z0-9_-]{1,64}$` (Anthropic, OpenAI, Ollama).
    standard,
    /// Gemini: `^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$`. Gemini's published rules vary between API versions (dots
    /// and colons in some, 63 or 64 characters); this is the subset every version accepts.
    gemini,
};

/// \brief A per-request, two-way mapping between the agent's tool names and names a provider accepts.
///
/// MCP-style names such as `server/tool` are not valid function names for providers. The map is built
/// from the request's tool list: a valid name maps to itself; an invalid one has each invalid byte
/// replaced by '_' (and a '_' prefix where the rules demand a leading letter); if that result is taken
/// by another tool or is too long, it is shortened and given a suffix `_<8 hex digits>` (FNV-1a of the
/// original name). The result depends only on the set of names, not on their order, and is
/// collision-free: distinct tools always get distinct wire names.
///
/// Every codec uses it for the tools it declares, for the tool calls replayed in the history, and to
/// map decoded calls back (a wire name the map does not know comes back unchanged).
///
/// \par Thread safety
/// Immutable after construction; safe to share for reading. Copies share the mapping (a pointer copy).
class ToolNameMap {
  public:
    /// \brief The identity map with `standard` rules (for requests without tools).
    ToolNameMap() = default;
    /// \brief Builds the map for `tools` under `rules`.
    ToolNameMap(const std::vector<llm::ToolSpec>& tools, ToolNameRules rules);

    /// \brief The wire name of `name`. A name not in the tool list (a tool called earlier in the history,
    /// since removed) is made valid the same way, deterministically.
    [[nodiscard]] std::string toWire(std::string_view name) const;
    /// \brief The agent's name for a wire name the provider returned; unknown names come back unchanged.
    [[nodiscard]] std::string toLocal(std::string_view wireName) const;

    /// \brief True if `name` is acceptable as is under `rules`.
    [[nodiscard]] static bool isValid(std::string_view name, ToolNameRules rules) noexcept;

    [[nodiscard]] ToolNameRules rules() const noexcept { return rules_; }

    /// \brief A tool declared by the codec itself to carry the reply's answer (Anthropic's forced-tool form
    /// of an output schema): a call of it is the answer, not a call for the agent to run.
    struct AnswerTool {
        /// The tool's wire name, which no tool of the list has.
        std::string wireName;
        /// True when the answer sits under the input's `value` member (an output schema whose root is
        /// not an object, wrapped because tool inputs must be objects).
        bool wrapped = false;
    };
    /// \brief A copy of this map that also marks `answer` (see `ReplyAssembler`).
    [[nodiscard]] ToolNameMap withAnswerTool(AnswerTool answer) const;
    /// \brief The answer tool of this request; null when none.
    [[nodiscard]] const AnswerTool* answerTool() const noexcept { return answer_.get(); }
    /// \brief True if a tool of the list goes by `wireName` on the wire.
    [[nodiscard]] bool hasWireName(std::string_view wireName) const;

  private:
    struct Maps {
        std::map<std::string, std::string, std::less<>> wireByLocal;
        std::map<std::string, std::string, std::less<>> localByWire;
    };

    ToolNameRules rules_ = ToolNameRules::standard;
    /// Null for the identity map.
    std::shared_ptr<const Maps> maps_;
    std::shared_ptr<const AnswerTool> answer_;
};

}  // namespace reagent::providers
