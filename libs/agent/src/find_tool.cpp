// find: one search over what the agent can reach (its tools, working memory, episodic memory and find
// sources), hits ranked within each kind. The loop reads the tools it found from the structured result.

#include "find_tool.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agent_state.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "run_meta_tools.hpp"
#include "text_ranking.hpp"

namespace reagent::agent {

namespace {

using nlohmann::json;

constexpr std::int64_t kDefaultLimit = 5;
constexpr std::int64_t kMaxLimit = 20;
// A tool's description and a passage are shown up to this many characters each: the hits of one call stay
// within a few thousand characters (find's result is not compressed; it bounds itself).
constexpr std::size_t kDescriptionChars = 300;
constexpr std::size_t kPassageChars = 1500;

tools::ToolError invalidArguments(std::string message) {
    return tools::ToolError{tools::ToolErrc::invalid_arguments, std::move(message)};
}

std::string clipped(std::string_view text, std::size_t characters) {
    if (memory::characterCount(text) <= characters) {
        return std::string(text);
    }
    return std::string(memory::characterSlice(text, 0, characters)) + "…";
}

// What a tool is searched by: its name counts three times, its parameters' names twice, its description
// and the parameters' descriptions once.
detail::RankedText searchable(const tools::ToolDefinition& definition) {
    detail::RankedText text;
    text.fields.emplace_back(definition.name, 3);
    text.fields.emplace_back(definition.description, 1);
    if (const auto properties = definition.inputSchema.find("properties");
        properties != definition.inputSchema.end() && properties->is_object()) {
        for (const auto& [name, schema] : properties->items()) {
            text.fields.emplace_back(name, 2);
            if (schema.is_object()) {
                text.fields.emplace_back(stringOr(schema, "description"), 1);
            }
        }
    }
    return text;
}

// "owner*, repo*, title*, body": the parameters, the required ones starred.
std::string parameterList(const json& schema) {
    const auto properties = schema.find("properties");
    if (properties == schema.end() || !properties->is_object() || properties->empty()) {
        return "none";
    }
    std::vector<std::string> required;
    if (const auto list = schema.find("required"); list != schema.end() && list->is_array()) {
        for (const json& name : *list) {
            if (name.is_string()) {
                required.push_back(name.get<std::string>());
            }
        }
    }
    std::string out;
    for (const auto& [name, ignored] : properties->items()) {
        out += (out.empty() ? "" : ", ") + name;
        if (std::find(required.begin(), required.end(), name) != required.end()) {
            out += "*";
        }
    }
    return out;
}

struct Search {
    std::string query;
    std::size_t limit = kDefaultLimit;
    std::vector<std::string> kinds;  // empty: every kind

    [[nodiscard]] bool wants(std::string_view kind) const {
        return kinds.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
    }
};

expected<Search, tools::ToolError> parseSearch(const Agent::State& state, const json& args) {
    Search search;
    search.query = stringOr(args, "query");
    if (detail::searchWords(search.query).empty()) {
        return fail(invalidArguments(
            "find needs a \"query\" with at least one word that is not a stop word, e.g. \"create issue\""));
    }
    const std::int64_t limit = integerOr(args, "limit", kDefaultLimit);
    search.limit = static_cast<std::size_t>(std::clamp<std::int64_t>(limit, 1, kMaxLimit));
    std::vector<std::string> known = {"tools", "memory", "episodes"};
    for (const auto& source : state.config.findSources) {
        known.push_back(source->kind());
    }
    if (const auto kinds = args.find("kinds"); kinds != args.end() && kinds->is_array()) {
        for (const json& kind : *kinds) {
            const std::string name = kind.is_string() ? kind.get<std::string>() : kind.dump();
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                std::string list;
                for (const std::string& each : known) {
                    list += (list.empty() ? "" : ", ") + each;
                }
                return fail(invalidArguments("find cannot search \"" + name + "\": this agent has " + list));
            }
            search.kinds.push_back(name);
        }
    }
    return search;
}

void findTools(const Agent::State& state, const Search& search, std::string& text, json& found) {
    std::vector<std::shared_ptr<const tools::RegisteredTool>> candidates;
    for (const auto& registered : state.registry.all()) {
        if (registered->tool.definition.name != kFindTool) {
            candidates.push_back(registered);
        }
    }
    std::vector<detail::RankedText> texts;
    texts.reserve(candidates.size());
    for (const auto& registered : candidates) {
        texts.push_back(searchable(registered->tool.definition));
    }
    const auto ranked = detail::rankTexts(texts, search.query, search.limit);
    json hits = json::array();
    if (ranked.empty()) {
        text += "\nTools: none match.";
    } else {
        text += "\nTools (call any of them by name from your next step; * marks a required parameter):";
    }
    for (const auto& [index, score] : ranked) {
        const tools::ToolDefinition& definition = candidates[index]->tool.definition;
        const std::string description = clipped(definition.description, kDescriptionChars);
        const bool stops = !description.empty() && (description.back() == '.' || description.back() == '!' ||
                                                    description.back() == '?');
        text += "\n- " + definition.name + ": " + description + (stops || description.empty() ? "" : ".") +
                " Parameters: " + parameterList(definition.inputSchema) + ".";
        hits.push_back({{"name", definition.name}, {"description", description}, {"score", score}});
    }
    found["tools"] = std::move(hits);
}

// Literal matches of the whole query, then of each of its words; a value matching more words ranks first.
template <typename Search1, typename KeyOf>
auto byWords(const Search& search, Search1 searchOne, KeyOf keyOf) {
    using Hit = typename decltype(searchOne(std::string()))::value_type;
    std::vector<std::pair<Hit, int>> merged;
    std::vector<std::string> terms{search.query};
    for (std::string& word : detail::searchWords(search.query)) {
        if (word.size() >= 3 && std::find(terms.begin(), terms.end(), word) == terms.end()) {
            terms.push_back(std::move(word));
        }
    }
    for (std::size_t t = 0; t < terms.size(); ++t) {
        for (Hit& hit : searchOne(terms[t])) {
            const auto same = std::find_if(merged.begin(), merged.end(),
                                           [&](const auto& m) { return keyOf(m.first) == keyOf(hit); });
            const int weight = t == 0 ? 100 : 1;  // the whole query, matched literally, ranks first
            if (same == merged.end()) {
                merged.emplace_back(std::move(hit), weight);
            } else {
                same->second += weight;
            }
        }
    }
    std::stable_sort(merged.begin(), merged.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (merged.size() > search.limit) {
        merged.resize(search.limit);
    }
    return merged;
}

void findInMemory(const Agent::State& state, const Search& search, std::string& text, json& found) {
    const auto hits = byWords(
        search, [&](const std::string& term) { return state.workingMemory.search(term, search.limit); },
        [](const memory::SearchHit& hit) { return hit.key; });
    json out = json::array();
    text += hits.empty() ? "\nWorking memory: nothing matches."
                         : "\nWorking memory (read a key with recall {\"key\": ...}):";
    for (const auto& [hit, words] : hits) {
        text += "\n- " + hit.key + ": " + hit.snippet;
        out.push_back({{"key", hit.key}, {"snippet", hit.snippet}});
    }
    found["memory"] = std::move(out);
}

expected<void, tools::ToolError> findEpisodes(const Agent::State& state, const Search& search,
                                              std::string& text, json& found) {
    std::optional<tools::ToolError> failure;
    const auto hits = byWords(
        search,
        [&](const std::string& term) {
            auto episodes = state.episodic->search(term, search.limit);
            if (!episodes) {
                failure = tools::ToolError::failure("episodic memory: " + episodes.error().describe());
                return std::vector<memory::EpisodeHit>{};
            }
            return std::move(*episodes);
        },
        [](const memory::EpisodeHit& hit) { return hit.episode.id; });
    if (failure) {
        return fail(std::move(*failure));
    }
    json out = json::array();
    text += hits.empty() ? "\nEpisodes: nothing matches."
                         : "\nEpisodes (read one with recall {\"episode\": id}):";
    for (const auto& [hit, words] : hits) {
        const std::string& tool = hit.episode.tool.empty() ? hit.episode.action : hit.episode.tool;
        text += "\n- #" + std::to_string(hit.episode.id) + " " + memory::formatTimestamp(hit.episode) + " " +
                tool + ": " + hit.snippet;
        out.push_back({{"id", hit.episode.id}, {"tool", tool}, {"snippet", hit.snippet}});
    }
    found["episodes"] = std::move(out);
    return {};
}

void showPassages(const std::string& kind, const std::vector<FindHit>& hits, std::string& text, json& found) {
    json out = json::array();
    text += hits.empty() ? "\n" + kind + ": nothing matches."
                         : "\n" + kind + " (cite the source in brackets when you use a passage):";
    for (std::size_t i = 0; i < hits.size(); ++i) {
        const FindHit& hit = hits[i];
        text += "\n[" + std::to_string(i + 1) + "] " + hit.citation + "\n" + clipped(hit.text, kPassageChars);
        json item = {{"citation", hit.citation}, {"text", hit.text}, {"score", hit.score}};
        if (!hit.detail.is_null()) {
            item["detail"] = hit.detail;
        }
        out.push_back(std::move(item));
    }
    found[kind] = std::move(out);
}

Task<tools::ToolResult> runFind(Agent::State* state, json args, json* structured) {
    auto search = parseSearch(*state, args);
    if (!search) {
        co_return fail(std::move(search.error()));
    }
    std::string text = "find \"" + search->query + "\":";
    json found = json::object();
    if (search->wants("tools")) {
        findTools(*state, *search, text, found);
    }
    if (search->wants("memory")) {
        findInMemory(*state, *search, text, found);
    }
    if (state->episodic && search->wants("episodes")) {
        if (auto searched = findEpisodes(*state, *search, text, found); !searched) {
            co_return fail(std::move(searched.error()));
        }
    }
    for (const auto& source : state->config.findSources) {
        const std::string kind = source->kind();
        if (!search->wants(kind)) {
            continue;
        }
        auto hits = co_await source->find(search->query, search->limit);
        if (!hits) {
            co_return fail(tools::ToolError{hits.error().code, kind + ": " + hits.error().message});
        }
        showPassages(kind, *hits, text, found);
    }
    if (structured != nullptr) {
        *structured = std::move(found);
    }
    co_return text;
}

json findSchema(const Agent::State& state) {
    json kinds = json::array({"tools", "memory", "episodes"});
    for (const auto& source : state.config.findSources) {
        kinds.push_back(source->kind());
    }
    return json{{"type", "object"},
                {"properties",
                 {{"query",
                   {{"type", "string"},
                    {"description",
                     "What you are looking for, in a few words: \"create github issue\", "
                     "\"deployment status\"."}}},
                  {"kinds",
                   {{"type", "array"},
                    {"items", {{"type", "string"}, {"enum", std::move(kinds)}}},
                    {"description", "Search only these (default: all)."}}},
                  {"limit",
                   {{"type", "integer"},
                    {"minimum", 1},
                    {"maximum", kMaxLimit},
                    {"default", kDefaultLimit},
                    {"description", "Hits per kind."}}}}},
                {"required", {"query"}},
                {"additionalProperties", false}};
}

std::string findDescription(const Agent::State& state, bool onDemand) {
    std::string text =
        "Search what you can reach: tools by name, description and parameters; working memory (stored "
        "tool results and notes)";
    if (state.episodic) {
        text += "; episodes of earlier tool calls";
    }
    for (const auto& source : state.config.findSources) {
        text += "; " + source->kind() + " (passages with their source, to cite)";
    }
    text += ". Hits are ranked within each kind.";
    if (onDemand) {
        text +=
            " Only some tools are offered to you up front: when you need a capability you do not see, find "
            "it first. A tool that find returns can be called from your next step.";
    }
    return text;
}

}  // namespace

tools::Tool findTool(Agent::State& state, bool onDemand) {
    tools::Tool tool = metaTool(kFindTool, findDescription(state, onDemand), findSchema(state), "Searching");
    tool.definition.action = [](const json& args) { return "Finding " + stringOr(args, "query"); };
    tool.handler = [raw = &state](json args, tools::ToolContext context) {
        return runFind(raw, std::move(args), context.structured);
    };
    return tool;
}

}  // namespace reagent::agent
