#pragma once
/// \file
/// \brief `ReplyAssembler`: builds a `ModelReply` from the pieces a provider sends, streamed or not.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/tool_name_map.hpp"

namespace reagent::providers {

/// \brief Accumulates text, tool calls, stop reason and usage, and reports each piece as a `StreamDelta`.
///
/// The codecs share it, streamed and not: a streamed call is opened under the provider's own key (the
/// Anthropic content-block index, the OpenAI `tool_calls` index) and its arguments arrive as JSON text
/// fragments; a call that arrives whole (Gemini, Ollama, non-streamed replies) is added at once. Wire
/// tool names are mapped back through the `ToolNameMap`.
///
/// `finish` parses each call's accumulated arguments (empty text means `{}`), gives calls without a
/// provider id a stable synthesized one (`call_<index>_<8 hex digits>` from the name and arguments), and
/// reports `tool_use` instead of `end_turn` when the reply has tool calls (Gemini and Ollama say "stop").
///
/// A call of the request's answer tool (`ToolNameMap::answerTool`) is the reply's answer instead: its
/// arguments stream as text deltas (a wrapped answer's only whole), and `finish` returns them as the
/// reply's text, without the other calls of the reply, with `end_turn` for `tool_use`.
///
/// \par Errors
/// `finish` fails with `malformed_response` naming the tool when a call's arguments are not valid JSON
/// (a truncated stream or a model writing broken JSON), or when a call never received a name. The raw
/// text is not kept: running a tool on guessed arguments would be worse than asking again.
class ReplyAssembler {
  public:
    /// \param provider Prefix of error messages ("anthropic").
    ReplyAssembler(std::string provider, ToolNameMap names);

    /// \brief Appends reply text; an empty piece is ignored.
    void appendText(std::string_view text, std::vector<llm::StreamDelta>& out);

    /// \brief Opens a streamed call under `key`, if not open yet; `id` or `wireName` may be empty and
    /// be supplied later through `completeCallHeader`.
    void openCall(std::int64_t key, std::string id, std::string wireName, std::vector<llm::StreamDelta>& out);
    /// \brief Sets the id or name of call `key` if still empty (some servers send them after opening).
    void completeCallHeader(std::int64_t key, std::string_view id, std::string_view wireName);
    /// \brief Appends a fragment of the JSON arguments of call `key` (opening it, nameless, if unknown).
    void appendArguments(std::int64_t key, std::string_view fragment, std::vector<llm::StreamDelta>& out);
    [[nodiscard]] bool hasCall(std::int64_t key) const noexcept;

    /// \brief Adds a call whose arguments arrived whole as a JSON value; `signature` is kept verbatim
    /// (Gemini's `thoughtSignature`). An empty `id` is synthesized at once.
    void addCall(std::string id, std::string wireName, nlohmann::json arguments, std::string signature,
                 std::vector<llm::StreamDelta>& out);
    /// \brief Adds a call whose arguments arrived whole as JSON text (OpenAI's non-streamed `arguments`),
    /// parsed by `finish`.
    void addCallText(std::string id, std::string wireName, std::string argumentsText,
                     std::vector<llm::StreamDelta>& out);

    void setStopReason(llm::StopReason reason) noexcept;
    [[nodiscard]] bool stopReasonKnown() const noexcept { return stopKnown_; }
    void setModel(std::string model) { model_ = std::move(model); }
    /// The response's id, as the API named it (`ModelReply::id`).
    void setId(std::string id) { id_ = std::move(id); }
    [[nodiscard]] llm::Usage& usage() noexcept { return usage_; }
    [[nodiscard]] const llm::Usage& usage() const noexcept { return usage_; }
    [[nodiscard]] std::size_t callCount() const noexcept { return calls_.size(); }

    /// \brief The reply so far, or `malformed_response` (see the class comment).
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> finish() const;

  private:
    struct Call {
        std::int64_t key = -1;
        bool keyed = false;
        std::string id;
        std::string wireName;
        std::string argumentsText;
        nlohmann::json arguments;
        bool parsed = false;
        std::string signature;
        bool answer = false;  // a call of the request's answer tool
    };

    Call* find(std::int64_t key) noexcept;
    Call& open(std::int64_t key, std::string id, std::string wireName, std::vector<llm::StreamDelta>& out);
    void emitStart(std::size_t index, std::vector<llm::StreamDelta>& out) const;
    [[nodiscard]] bool isAnswer(std::string_view wireName) const noexcept;
    void emitAnswerText(std::string_view text, std::vector<llm::StreamDelta>& out) const;
    [[nodiscard]] std::string answerText(const Call& call) const;

    std::string provider_;
    ToolNameMap names_;
    std::string text_;
    std::vector<Call> calls_;
    llm::StopReason stop_ = llm::StopReason::end_turn;
    bool stopKnown_ = false;
    llm::Usage usage_;
    std::string model_;
    std::string id_;
};

}  // namespace reagent::providers
