#pragma once
/// \file
/// \brief `ragIngestTool`: the tool through which a model adds files and notes to an agent's documents.

#include <filesystem>
#include <memory>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/documents/documents.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::documents {

/// \brief Where `rag-ingest` may read.
struct RagIngestOptions {
    /// The folders whose files the model may ingest (a path is taken relative to the first); a path that
    /// resolves outside all of them, through `..` or a link, is refused. Empty: the model can only ingest
    /// texts it gives.
    std::vector<std::filesystem::path> roots;
};

/// \brief `rag-ingest {paths?, text?, source?}`: ingests files and folders under `options.roots`, or a text
/// under a source name, into `documents`, and reports what changed (added, replaced, unchanged, skipped
/// with why). The documents are then found by `find` (`kinds: ["documents"]`). A side-effect tool: it runs
/// alone in its step.
[[nodiscard]] expected<tools::Tool, tools::ToolError> ragIngestTool(std::shared_ptr<Documents> documents,
                                                                    RagIngestOptions options = {});

}  // namespace reagent::documents
