// rag-ingest: the model's way to add files (under the allowed roots) and notes to the documents.

#include "reagent/documents/rag_ingest_tool.hpp"

#include <utility>

#include "reagent/tools/tool_builder.hpp"

namespace reagent::documents {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

tools::ToolError refused(std::string message) {
    return tools::ToolError{tools::ToolErrc::invalid_arguments, std::move(message)};
}

// `path` resolved under one of `roots` (relative paths under the first), links followed; or why not.
expected<fs::path, tools::ToolError> confined(const std::string& path, const std::vector<fs::path>& roots) {
    if (roots.empty()) {
        return fail(refused("this agent may not ingest files (no folder is allowed): give the text itself"));
    }
    std::error_code error;
    const fs::path given = fs::path(path).is_absolute() ? fs::path(path) : roots.front() / path;
    const fs::path resolved = fs::weakly_canonical(given, error);
    if (error) {
        return fail(refused("cannot resolve " + path + ": " + error.message()));
    }
    for (const fs::path& root : roots) {
        const fs::path base = fs::weakly_canonical(root, error);
        const auto [end, at] = std::mismatch(base.begin(), base.end(), resolved.begin(), resolved.end());
        if (!error && end == base.end()) {
            return resolved;
        }
    }
    return fail(refused(path + " is outside the folders this agent may ingest from"));
}

std::string describe(const IngestReport& report) {
    std::string text = "ingested: " + std::to_string(report.added) + " added, " +
                       std::to_string(report.replaced) + " replaced, " + std::to_string(report.unchanged) +
                       " unchanged, " + std::to_string(report.removed) + " removed; " +
                       std::to_string(report.chunks) + " chunks written";
    for (const SkippedFile& skipped : report.skipped) {
        text += "\nskipped " + skipped.path + ": " + skipped.error.message;
    }
    if (report.added + report.replaced + report.unchanged > 0) {
        text += "\nSearch them with find (kinds: [\"documents\"]).";
    }
    return text;
}

tools::ToolError asToolError(const DocumentError& error) {
    return tools::ToolError::failure(std::string(toString(error.code)) + ": " + error.message);
}

Task<tools::ToolResult> ingestCall(std::shared_ptr<Documents> documents,
                                   std::shared_ptr<const RagIngestOptions> options, json args) {
    IngestReport total;
    if (const auto text = args.find("text"); text != args.end() && text->is_string()) {
        const std::string source = args.value("source", std::string());
        if (source.empty()) {
            co_return fail(refused("a text needs \"source\": the name its passages will be cited by"));
        }
        auto ingest = documents->ingestText(source, text->get<std::string>());
        auto done = co_await std::move(ingest);
        if (!done) {
            co_return fail(asToolError(done.error()));
        }
        total = std::move(*done);
    }
    std::vector<fs::path> paths;
    if (const auto list = args.find("paths"); list != args.end() && list->is_array()) {
        for (const json& path : *list) {
            auto resolved = confined(path.get<std::string>(), options->roots);
            if (!resolved) {
                co_return fail(std::move(resolved.error()));
            }
            paths.push_back(std::move(*resolved));
        }
    }
    if (paths.empty() && !args.contains("text")) {
        co_return fail(refused("give \"paths\" (files or folders) or a \"text\" with its \"source\""));
    }
    if (!paths.empty()) {
        // Cited relative to the first folder, as the model named them.
        std::error_code error;
        auto ingest =
            documents->ingest(std::move(paths), fs::weakly_canonical(options->roots.front(), error));
        auto done = co_await std::move(ingest);
        if (!done) {
            co_return fail(asToolError(done.error()));
        }
        total.added += done->added;
        total.replaced += done->replaced;
        total.unchanged += done->unchanged;
        total.removed += done->removed;
        total.chunks += done->chunks;
        total.skipped.insert(total.skipped.end(), done->skipped.begin(), done->skipped.end());
    }
    co_return describe(total);
}

}  // namespace

expected<tools::Tool, tools::ToolError> ragIngestTool(std::shared_ptr<Documents> documents,
                                                      RagIngestOptions options) {
    if (!documents) {
        return fail(
            tools::ToolError{tools::ToolErrc::invalid_definition, "rag-ingest needs documents (null given)"});
    }
    auto shared = std::make_shared<const RagIngestOptions>(std::move(options));
    std::string where = "Files must be under ";
    for (const fs::path& root : shared->roots) {
        where += (&root == &shared->roots.front() ? "" : ", ") + root.string();
    }
    const std::string description =
        "Add documents to the searchable collection: files and folders (Markdown, text, HTML, PDF, code; "
        "folders walked recursively), or a text you give with a source name. Unchanged files are skipped; "
        "changed ones replace their old passages. " +
        (shared->roots.empty() ? std::string("Only texts can be added here.")
                               : where + " (relative paths are under the first).") +
        " Find what was added with find.";
    return tools::ToolBuilder::create("rag-ingest")
        .description(description)
        .schema(
            json{{"type", "object"},
                 {"properties",
                  {{"paths",
                    {{"type", "array"},
                     {"items", {{"type", "string"}}},
                     {"description", "Files or folders to ingest."}}},
                   {"text", {{"type", "string"}, {"description", "A text to ingest (Markdown allowed)."}}},
                   {"source", {{"type", "string"}, {"description", "The name a text is cited by."}}}}},
                 {"additionalProperties", false}})
        .category("documents")
        .sideEffect()
        .action([](const json& args) {
            return args.contains("paths") ? std::string("Ingesting documents")
                                          : "Ingesting " + args.value("source", std::string("a text"));
        })
        .handler([documents = std::move(documents), shared](json args, tools::ToolContext) {
            return ingestCall(documents, shared, std::move(args));
        })
        .build();
}

}  // namespace reagent::documents
