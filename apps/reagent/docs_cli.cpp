// `reagent docs ingest|search|list`: its command line.

#include <memory>

#include "cli_options.hpp"
#include "docs_command.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

struct DocsCommandLine {
    DocsOptions options;
    CLI::App* ingestCmd = nullptr;
    CLI::App* searchCmd = nullptr;
};

}  // namespace

Subcommand addDocsCommand(CLI::App& app) {
    auto line = std::make_shared<DocsCommandLine>();
    DocsOptions& options = line->options;
    CLI::App* docsCmd = app.add_subcommand(
        "docs", "A document index (SQLite FTS5) for `run --docs`: ingest files and folders, search, list");
    docsCmd->require_subcommand(1);
    const auto addCommon = [&options](CLI::App* command) {
        command->add_option("--index", options.index, "The index file (SQLite; created by ingest)")
            ->required()
            ->check(nonEmpty("a file path"));
        command->add_flag("--json", options.json, "Print the result as JSON");
        command
            ->add_option(
                "--embedder", options.embedder,
                "Embed chunks and queries: openai, gemini, ollama (each with :MODEL if you like; keys "
                "from the provider's variables) or hashed (offline); default: the index's own")
            ->type_name("KIND[:MODEL]");
    };
    line->ingestCmd = docsCmd->add_subcommand(
        "ingest",
        "Index files and folders (Markdown, text, HTML, PDF, code); unchanged files are skipped, changed "
        "ones replace their chunks, files gone from an ingested folder are removed");
    line->ingestCmd->add_option("paths", options.paths, "Files and folders")->required();
    line->ingestCmd
        ->add_option("--include", options.include,
                     "Only a folder's files matching this glob (relative to it, `**/*.md`); "
                     "repeatable; default: the known text formats")
        ->type_name("GLOB")
        ->allow_extra_args(false);
    line->ingestCmd
        ->add_option("--exclude", options.exclude,
                     "Leave out a folder's files and folders matching this glob; repeatable")
        ->type_name("GLOB")
        ->allow_extra_args(false);
    line->ingestCmd->add_option("--chunk-chars", options.chunkChars, "Most characters of a chunk")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    line->ingestCmd
        ->add_option("--overlap-chars", options.overlapChars,
                     "Characters a chunk repeats from the previous one")
        ->check(CLI::Range(0, 100'000))
        ->capture_default_str();
    line->ingestCmd
        ->add_option("--max-file-bytes", options.maxFileBytes, "Larger files are skipped without being read")
        ->check(wholeNumber(1ull << 40))
        ->capture_default_str();
    addCommon(line->ingestCmd);
    line->searchCmd = docsCmd->add_subcommand("search", "The passages that best match the words, best first");
    line->searchCmd->add_option("query", options.query, "The words to look for")->required();
    line->searchCmd
        ->add_option(
            "--ranking", options.ranking,
            "text (BM25), embeddings, or hybrid (both, fused); default hybrid with an embedder, else text")
        ->check(CLI::IsMember({"text", "embeddings", "hybrid"}));
    line->searchCmd->add_option("--limit", options.limit, "Most passages shown")
        ->check(wholeNumber(1000))
        ->capture_default_str();
    addCommon(line->searchCmd);
    CLI::App* listCmd = docsCmd->add_subcommand("list", "The indexed documents and their chunks");
    addCommon(listCmd);
    return {docsCmd, [line](boost::asio::io_context& io) {
                line->options.action = *line->ingestCmd ? "ingest" : *line->searchCmd ? "search" : "list";
                return docsCommand(io, line->options);
            }};
}

}  // namespace reagent::cli
