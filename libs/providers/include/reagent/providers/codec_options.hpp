#pragma once
/// \file
/// \brief `CodecOptions`: what a wire codec needs besides the `ModelRequest`.

#include <string>

namespace reagent::providers {

/// \brief Whether a request's output form (`ModelRequest::output`) goes in the API's own structured-output
/// field, which constrains the model's decoding to the schema.
enum class NativeOutput {
    /// Yes, except where the model is known to refuse it: Gemini models before Gemini 3 ("gemini-1...",
    /// "gemini-2...") on a request that also declares tools get none; Claude models before structured
    /// outputs ("claude-3...", "claude-sonnet-4-0", "claude-opus-4-0", ...) get the `tool` form. The
    /// default.
    automatic,
    /// On every request that has one.
    always,
    /// Anthropic: as a tool the model must call, whose input is the answer (`tool_choice` names it, or is
    /// `any` beside the agent's tools), as for models without structured outputs. Other APIs: `always`.
    tool,
    /// Never: the schema reaches the model through the prompt only (for servers that refuse the field).
    never,
};

/// \brief Settings of a provider codec that do not come from the request.
struct CodecOptions {
    /// The model id the provider expects ("claude-sonnet-4-5", "gpt-4.1", "gemini-2.5-flash", "qwen3").
    /// No default; Gemini also accepts a full resource name ("models/...", "tunedModels/...").
    std::string model;
    /// Ask for a streamed reply: SSE (Anthropic, OpenAI, Gemini) or NDJSON (Ollama). Default false.
    bool stream = false;
    /// Token limit sent when the request sets none but the wire format requires one (Anthropic's
    /// `max_tokens`). Default 4096; must be positive. Other codecs leave the limit to the provider.
    int defaultMaxTokens = 4096;
    /// OpenAI: send the limit as `max_completion_tokens` (OpenAI's current name, which its reasoning
    /// models require) rather than `max_tokens` (what OpenAI-compatible servers read). Default false.
    bool openAiMaxCompletionTokens = false;
    /// Gemini: declare tool schemas as `parametersJsonSchema`, which takes any JSON Schema as it is
    /// (default true). False sends them as `parameters`, Gemini's OpenAPI-subset `Schema`, for models
    /// without JSON Schema support: that subset has no `additionalProperties` or `$schema` and its SDK
    /// types spell types in capitals, so the tool's schema must keep within it.
    bool geminiJsonSchemaParameters = true;
    /// Whether an output schema is sent in the API's structured-output field. Default `automatic`.
    NativeOutput nativeOutput = NativeOutput::automatic;
    /// Anthropic: mark cache breakpoints (`cache_control: {type: "ephemeral"}`) on the last tool, the
    /// system prompt and the last message, so each turn reads the prefix the previous one wrote (default
    /// true). The API ignores a breakpoint below its minimum prompt length. Other APIs cache on their own.
    bool promptCaching = true;
    /// OpenAI: sent as `prompt_cache_key` when not empty, to route requests that share a prefix to the
    /// same cache (a conversation's or a user's id). Default empty: not sent, as compatible servers may
    /// refuse the field.
    std::string promptCacheKey;
};

}  // namespace reagent::providers
