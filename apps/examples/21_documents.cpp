// 21 — Documents: an agent that answers from your files, citing them.
//
// `Documents` keeps files cut into chunks in an index (SQLite with FTS5 here; ":memory:" or a file).
// Ingesting is incremental: unchanged files are skipped, changed ones replace their chunks. With
// `withDocuments`, the agent's `find` tool searches the passages (kind "documents"), each with its citation
// (file, lines, Markdown heading), and `rag-ingest` lets the model add files from the folders you allow.
// Tools on demand (`withToolSearch`) go through the same `find`: one tool to search everything.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

namespace {

// The scripted model: it searches the documents, then answers with the passage's citation.
expected<llm::ModelReply, llm::ProviderError> reader(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    const llm::Message& last = request.messages.back();
    if (last.role == llm::Role::user) {
        reply.toolCalls.push_back(
            {"call_1", "find", json{{"query", "on-call rotation handover"}, {"kinds", {"documents"}}}});
    } else {
        const auto open = last.text.find("[1] ");
        const std::string citation = last.text.substr(open + 4, last.text.find('\n', open) - open - 4);
        reply.text = "The handover is on Monday at 10:00 [" + citation + "].";
    }
    return reply;
}

}  // namespace

int main() {
    const auto folder = std::filesystem::temp_directory_path() / "reagent-example-documents";
    std::filesystem::remove_all(folder);
    examples::writeFile(
        folder / "handbook" / "oncall.md",
        "# On-call\n\n## Rotation\n\nEach engineer is on call for one week.\n\n## Handover\n\n"
        "The handover is on Monday at 10:00, in the incident channel.\n");
    examples::writeFile(folder / "handbook" / "holidays.md", "# Holidays\n\nAsk two weeks ahead.\n");

    auto index = documents::SqliteDocumentIndex::open((folder / "index.db").string());
    if (!index) {
        std::cerr << index.error().describe() << "\n";
        return 1;
    }
    auto docs = std::make_shared<documents::Documents>(*index);
    const auto first = examples::runTask(docs->ingest({folder / "handbook"}, folder));
    const auto second = examples::runTask(docs->ingest({folder / "handbook"}, folder));
    examples::check(first && first->added == 2, "both files were indexed");
    examples::check(second && second->unchanged == 2, "re-ingesting unchanged files did nothing");

    auto model = std::make_shared<llm::ScriptedProvider>();
    model->then(llm::ScriptedTurn::respond(reader)).loop(true);
    auto agent = Agent::create().withProvider(model).withDocuments(docs).build();
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 1;
    }
    const agent::RunResult result = examples::runTask(agent->run("When is the on-call handover?"));
    std::cout << result.output << "\n";
    examples::check(result.success(), "the run succeeded");
    examples::check(result.output.find("[handbook/oncall.md:") != std::string::npos &&
                        result.output.find("(On-call > Handover)]") != std::string::npos,
                    "the answer cites the file, its lines and its heading");
    std::filesystem::remove_all(folder);
    return 0;
}
