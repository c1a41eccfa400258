#pragma once
// Private to libs/umbrella: an agent's documents as a source `find` searches.

#include <memory>

#include "reagent/agent/find_source.hpp"
#include "reagent/documents/documents.hpp"

namespace reagent::umbrella {

/// `find`'s "documents": the passages of `documents`, cited by source and lines (or page).
[[nodiscard]] std::shared_ptr<agent::FindSource> documentsFindSource(
    std::shared_ptr<documents::Documents> documents);

}  // namespace reagent::umbrella
