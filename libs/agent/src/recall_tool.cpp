#include "recall_tool.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "agent_state.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "tool_attachments.hpp"

namespace reagent::agent {

namespace {

using nlohmann::json;

// A value up to this many characters is returned whole by a plain read; a longer one as a preview.
constexpr std::size_t kShortValueChars = 16000;
// Characters per page of a full read.
constexpr std::size_t kDefaultPageChars = 100000;
constexpr std::size_t kDefaultMaxResults = 10;

tools::ToolError invalidArguments(std::string message) {
    return tools::ToolError{tools::ToolErrc::invalid_arguments, std::move(message)};
}

tools::ToolError fromMemory(const memory::MemoryError& error) {
    return tools::ToolError::failure(error.describe());
}

std::size_t sizeArg(const json& args, const char* name, std::size_t fallback) {
    // Validation already checked the minimum; a negative value cannot get here, but stays harmless.
    const std::int64_t value = integerOr(args, name, -1);
    return value < 0 ? fallback : static_cast<std::size_t>(value);
}

// A page of `value`: exactly the value when it fits in one page (so a `_transform` can parse it), else
// the slice with a line saying where it lies and how to read on.
std::string page(std::string_view value, const json& args, const std::string& how) {
    const std::size_t offset = sizeArg(args, "offset", 0);
    const std::size_t limit = sizeArg(args, "limit", kDefaultPageChars);
    const std::size_t total = memory::characterCount(value);
    if (offset == 0 && total <= limit) {
        return std::string(value);
    }
    if (offset >= total) {
        return "[recall: offset " + std::to_string(offset) + " is past the end; the value has " +
               std::to_string(total) + " characters]";
    }
    std::string text(memory::characterSlice(value, offset, limit));
    const std::size_t end = offset + memory::characterCount(text);
    text += "\n[recall: characters " + std::to_string(offset) + "-" + std::to_string(end) + " of " +
            std::to_string(total);
    text += end < total
                ? "; next page: " + how + ", \"full\": true, \"offset\": " + std::to_string(end) + "}]"
                : "; end of value]";
    return text;
}

// The value itself when short or asked for in full, otherwise a structured preview.
std::string readValue(const Agent::State& state, std::string_view value, std::string_view source,
                      std::string_view key, const json& args, const std::string& how) {
    memory::CompressionConfig shortValue;
    shortValue.budget = kShortValueChars;
    if (args.value("full", false) || !memory::exceedsBudget(value, shortValue)) {
        return page(value, args, how);
    }
    memory::CompressionConfig preview = state.config.toolSettings.resultCompression;
    preview.autoStore = true;
    auto compressed = memory::compress(source, value, key, preview);
    return compressed.preview + "\n(" + how + ", \"full\": true} returns the whole value, " +
           std::to_string(sizeArg(args, "limit", kDefaultPageChars)) + " characters at a time)";
}

// What the episode's attachments add to a read of it: a line listing them, and their blocks in `content`
// (so they reach the model with the result, as the original call's did).
std::string episodeAttachments(const memory::Episode& episode, std::vector<json>* content) {
    if (episode.attachments.empty()) {
        return {};
    }
    std::string text = "\nAttachments: " + std::to_string(episode.attachments.size());
    for (const llm::Attachment& attachment : episode.attachments) {
        text += (&attachment == &episode.attachments.front() ? " (" : ", ") + attachment.mediaType;
        if (!attachment.name.empty()) {
            text += " '" + attachment.name + "'";
        }
    }
    text += ")";
    if (content != nullptr) {
        std::vector<json> blocks = detail::contentOf(episode.attachments, text);
        content->insert(content->end(), std::make_move_iterator(blocks.begin()),
                        std::make_move_iterator(blocks.end()));
        text += ", shown with this result";
    }
    return text;
}

tools::ToolResult readKey(const Agent::State& state, const json& args, std::vector<json>* content) {
    if (const auto it = args.find("episode"); it != args.end()) {
        if (!state.episodic) {
            return fail(invalidArguments("episodic memory is not enabled for this agent (withMemory)"));
        }
        const auto id = it->get<std::int64_t>();
        auto episode = state.episodic->find(id);
        if (!episode) {
            return fail(fromMemory(episode.error()));
        }
        const std::string how = "recall({\"episode\": " + std::to_string(id);
        if (args.value("full", false)) {
            return page(episode->result, args, how);
        }
        std::string text = "Episode #" + std::to_string(id) + " | " + episode->action + " | " +
                           (episode->tool.empty() ? "-" : episode->tool) + " | " +
                           memory::formatTimestamp(*episode) + "\nInput: " + episode->input + "\nResult:\n";
        text += readValue(state, episode->result, episode->tool, "episode #" + std::to_string(id), args, how);
        text += episodeAttachments(*episode, content);
        return text;
    }
    const std::string key = stringOr(args, "key");
    if (key.empty()) {
        return fail(
            invalidArguments("read needs \"key\" (for example \"_tool_result_1\") or \"episode\"; "
                             "use {\"action\": \"list\"} to see the keys"));
    }
    auto value = state.workingMemory.read(key);
    if (!value) {
        return fail(fromMemory(value.error()));
    }
    const std::string source = state.workingMemory.source(key);
    return readValue(state, *value, source.empty() ? "note" : source, key, args,
                     "recall({\"key\": \"" + key + "\"");
}

tools::ToolResult listKeys(const Agent::State& state) {
    const auto entries = state.workingMemory.list();
    std::string text = "Working memory: " + std::to_string(entries.size()) + " entr" +
                       (entries.size() == 1 ? "y" : "ies") + ", " +
                       std::to_string(state.workingMemory.bytes()) + " bytes";
    for (const auto& info : entries) {
        text += "\n" + info.key + " | " + std::to_string(info.bytes) + " bytes | " +
                (info.sourceTool.empty() ? std::string("note") : "from " + info.sourceTool);
    }
    if (state.episodic) {
        auto count = state.episodic->count();
        if (!count) {
            return fail(fromMemory(count.error()));
        }
        text +=
            "\nEpisodic memory: " + std::to_string(*count) +
            " episodes from earlier tool calls; search them with {\"action\": \"search\", \"query\": ...}";
    }
    return text;
}

tools::ToolResult search(const Agent::State& state, const json& args) {
    const std::string query = stringOr(args, "query");
    if (query.empty()) {
        return fail(
            invalidArguments("search needs a non-empty \"query\" (a keyword, matched literally and "
                             "ignoring ASCII case)"));
    }
    const std::size_t maxResults = sizeArg(args, "maxResults", kDefaultMaxResults);
    const auto hits = state.workingMemory.search(query, maxResults);
    std::string text = "Working memory: " + std::to_string(hits.size()) + " match" +
                       (hits.size() == 1 ? "" : "es") + " for \"" + query + "\"";
    for (const auto& hit : hits) {
        text += "\n" + hit.key + ": " + hit.snippet;
    }
    if (state.episodic) {
        auto episodes = state.episodic->search(query, maxResults);
        if (!episodes) {
            return fail(fromMemory(episodes.error()));
        }
        text += "\nEpisodic memory: " + std::to_string(episodes->size()) + " match" +
                (episodes->size() == 1 ? "" : "es") + ", newest first";
        for (const auto& hit : *episodes) {
            text += "\n#" + std::to_string(hit.episode.id) + " " + memory::formatTimestamp(hit.episode) +
                    " " + (hit.episode.tool.empty() ? hit.episode.action : hit.episode.tool) + ": " +
                    hit.snippet;
        }
        if (!episodes->empty()) {
            text += "\n(read one with {\"episode\": <id>})";
        }
    }
    return text;
}

tools::ToolResult writeNote(Agent::State& state, const json& args) {
    std::string key = stringOr(args, "key");
    const auto value = args.find("value");
    if (key.empty() || value == args.end() || !value->is_string()) {
        return fail(
            invalidArguments("write needs \"key\" (1-128 characters of [A-Za-z0-9_.:-]) and a string "
                             "\"value\""));
    }
    const std::size_t bytes = value->get_ref<const std::string&>().size();
    if (auto stored = state.workingMemory.put(key, value->get<std::string>(), {}); !stored) {
        return fail(fromMemory(stored.error()));
    }
    return "stored " + std::to_string(bytes) + " bytes under \"" + key + "\"";
}

tools::ToolResult recall(Agent::State& state, const json& args, std::vector<json>* content) {
    const std::string action = args.value("action", std::string("read"));
    if (action == "read") {
        return readKey(state, args, content);
    }
    if (action == "list") {
        return listKeys(state);
    }
    if (action == "search") {
        return search(state, args);
    }
    return writeNote(state, args);
}

// A free coroutine: its frame holds only the arguments and the state pointer.
Task<tools::ToolResult> runRecall(Agent::State* state, json args, std::vector<json>* content) {
    co_return recall(*state, args, content);
}

json recallSchema() {
    return json::parse(R"json({
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["read", "list", "search", "write"], "default": "read",
               "description": "read a key or an episode; list the keys; search stored values and past episodes by keyword; write a note under a key."},
    "key": {"type": "string", "description": "read/write: the key, e.g. \"_tool_result_1\" or a note's name."},
    "full": {"type": "boolean", "default": false,
             "description": "read: return the whole value (paged by offset/limit) rather than a preview of a long one."},
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "read with full: first character to return."},
    "limit": {"type": "integer", "minimum": 1, "default": 100000, "description": "read with full: characters per page."},
    "episode": {"type": "integer", "minimum": 1, "description": "read: the id of a past episode found by search."},
    "query": {"type": "string", "description": "search: the keyword (literal, case-insensitive)."},
    "maxResults": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "search: matches per memory."},
    "value": {"type": "string", "description": "write: the note to store."}
  },
  "additionalProperties": false
})json");
}

// The one place that tells the model about `_transform`: every agent with tools offers `recall`.
std::string recallDescription(bool codeTransform) {
    std::string text =
        "Working memory: read a stored tool result by key (a result too long for the context is shown as a "
        "preview and stored under the key in its header, e.g. _tool_result_1), list keys, search stored "
        "values and past episodes by keyword, or write a note for later.";
    if (codeTransform) {
        text +=
            " Any tool call may also carry the argument \"_transform\": a jq expression applied to that "
            "tool's JSON result so that only its output comes back (the `| transform:` of previews), e.g. "
            "\"_transform\": \".[0:5] | map({sha: .sha[0:7]})\".";
    }
    return text;
}

}  // namespace

tools::Tool recallTool(Agent::State& state) {
    tools::Tool tool;
    tool.definition.name = kRecallTool;
    tool.definition.description =
        recallDescription(state.config.toolSettings.resultCompression.codeTransform);
    tool.definition.inputSchema = recallSchema();
    tool.definition.category = "meta";
    tool.definition.action = [](const json& args) {
        return "Recalling " +
               args.value("key", args.value("query", args.value("action", std::string("memory"))));
    };
    tool.handler = [raw = &state](json args, tools::ToolContext context) {
        return runRecall(raw, std::move(args), context.content);
    };
    return tool;
}

}  // namespace reagent::agent
