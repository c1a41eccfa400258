#pragma once
/// \file
/// \brief `StreamDelta`: one increment of a streamed model reply (text, or a tool call taking shape).

#include <cstddef>
#include <string>

namespace reagent::llm {

/// \brief One increment of a reply as it streams in; its content is untrusted model output.
///
/// A streamed reply is a sequence of deltas: text pieces, and for each tool call one `tool_call_start`
/// followed by zero or more `tool_call_arguments` fragments. Concatenating the text pieces gives the
/// reply's text; concatenating a call's fragments gives its arguments as JSON text (complete only when
/// the stream ends). The final `ModelReply` is assembled by the stream decoder, not from the deltas.
struct StreamDelta {
    enum class Kind {
        /// A piece of the reply's text, in `text`.
        text,
        /// A tool call begins: `toolIndex`, `toolCallId` (may be empty if the provider sends it later)
        /// and `toolName` are set.
        tool_call_start,
        /// A fragment of the JSON arguments of call `toolIndex`, in `text`.
        tool_call_arguments,
    };

    Kind kind = Kind::text;
    /// The text piece, or the arguments fragment.
    std::string text;
    /// Position of the tool call in the reply's `toolCalls` (0-based).
    std::size_t toolIndex = 0;
    std::string toolCallId;
    /// The tool's name as the agent knows it (already mapped back from the provider's wire name).
    std::string toolName;

    friend bool operator==(const StreamDelta&, const StreamDelta&) = default;
};

}  // namespace reagent::llm
