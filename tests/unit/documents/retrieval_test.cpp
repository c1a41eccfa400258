// Retrieval quality on this repository's docs/: queries whose right document is known, recall@5 printed
// (docs/documents.md quotes it) and held above a floor that leaves room for the docs to change.

#include <catch2/catch.hpp>
#include <cstdio>
#include <reagent/documents/documents.hpp>
#include <reagent/documents/sqlite_document_index.hpp>

#include "run_coro.hpp"

using reagent::test::runCoro;

namespace {

struct Query {
    const char* words;
    const char* document;  // the file the answer is in
};

// Asked as a user would, not with the documents' own sentences.
constexpr Query kQueries[] = {
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

}  // namespace

TEST_CASE("BM25 over the repository's docs finds the right document in the top five", "[documents][recall]") {
    auto index = reagent::documents::SqliteDocumentIndex::open(":memory:");
    REQUIRE(index);
    reagent::documents::Documents docs(*index);
    auto report = runCoro(docs.ingest({std::filesystem::path(REAGENT_SOURCE_DIR) / "docs"}));
    REQUIRE(report);
    REQUIRE(report->added >= 15);
    int found = 0;
    for (const Query& query : kQueries) {
        auto passages = runCoro(docs.search(query.words, 5));
        REQUIRE(passages);
        bool hit = false;
        for (const auto& passage : *passages) {
            const std::string& source = passage.source;
            const std::string name = query.document;
            hit = hit || (source.size() >= name.size() &&
                          source.compare(source.size() - name.size(), name.size(), name) == 0);
        }
        if (!hit) {
            WARN("missed: " << query.words << " (" << query.document << ")");
        }
        found += hit ? 1 : 0;
    }
    const double recall = static_cast<double>(found) / static_cast<double>(std::size(kQueries));
    std::printf("recall@5 of BM25 over docs/ (%zu chunks): %.2f (%d of %zu queries)\n", report->chunks,
                recall, found, std::size(kQueries));
    CHECK(recall >= 0.85);
}
