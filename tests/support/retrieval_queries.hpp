#pragma once
// Retrieval questions about this repository's docs/ whose right document is known, asked as a user would
// (not with the documents' own sentences); and recall@5 over them.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace reagent::test {

struct Query {
    const char* words;
    const char* document;  // the file the answer is in
};

// Asked as a user would, not with the documents' own sentences.
inline constexpr Query kDocsQueries[] = {
    {"roll back the workspace to a checkpoint", "builtins.md"},
    {"OTLP exporter batch queue full dropped spans", "observability.md"},
    {"lease expires and another worker claims the run", "durable-runs.md"},
    {"SKILL.md front matter name and description", "skills.md"},
    {"tools on demand find threshold", "tools.md"},
    {"answer must match a JSON Schema output retries", "structured-output.md"},
    {"price table and cost budget per run", "cost.md"},
    {"compaction summarizes older turns of a conversation", "conversations.md"},
    {"jq transform applied to a tool result", "transforms.md"},
    {"MCP server OAuth authorization token", "mcp.md"},
    {"Anthropic prompt caching cache read tokens", "providers.md"},
    {"remote A2A agent card", "multi-agent.md"},
    {"episodic memory search past episodes", "memory.md"},
    {"tool source list_changed adds and removes tools", "tool-sources.md"},
    {"HTTP connection pool keep-alive TLS", "http.md"},
    {"cold CI run minutes", "benchmarks.md"},
    {"command line max iterations timeout", "cli.md"},
    {"sans-io core with thin coroutine drivers", "architecture.md"},
    {"working memory byte budget limit", "limits.md"},
    {"deferred approval pauses the run for a decision", "tools.md"},
};

/// The share of `kDocsQueries` whose document is among the sources `topFive` returns for the words.
inline double recallAtFive(const std::function<std::vector<std::string>(const std::string&)>& topFive) {
    int found = 0;
    for (const Query& query : kDocsQueries) {
        const std::string name = query.document;
        bool hit = false;
        for (const std::string& source : topFive(query.words)) {
            hit = hit || (source.size() >= name.size() &&
                          source.compare(source.size() - name.size(), name.size(), name) == 0);
        }
        found += hit ? 1 : 0;
    }
    return static_cast<double>(found) / static_cast<double>(std::size(kDocsQueries));
}

}  // namespace reagent::test
