#include "docs_embedder.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "reagent/documents/documents.hpp"
#include "reagent/llm/hashed_embedder.hpp"
#include "reagent/providers/embedder_factory.hpp"
#include "reagent/providers/from_environment.hpp"

namespace reagent::cli {

namespace {

// The index's remembered embedder: its property, read on a short-lived io_context (a SQLite read).
std::string rememberedSpec(documents::DocumentIndex& index) {
    boost::asio::io_context io;
    std::string spec;
    boost::asio::co_spawn(
        io, index.property(std::string(documents::kEmbedderProperty)),
        [&](std::exception_ptr error, expected<std::string, documents::DocumentError> value) {
            if (!error && value) {
                spec = std::move(*value);
            }
        });
    io.run();
    return spec;
}

}  // namespace

expected<std::shared_ptr<llm::Embedder>, std::string> embedderFromSpec(const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    const std::string model = colon == std::string::npos ? std::string() : spec.substr(colon + 1);
    if (kind == "hashed") {
        std::size_t dimensions = llm::HashedEmbedder::kDefaultDimensions;
        const std::string prefix = "hashed-words-";
        if (!model.empty()) {
            if (model.rfind(prefix, 0) != 0 || model.size() == prefix.size() ||
                model.find_first_not_of("0123456789", prefix.size()) != std::string::npos) {
                return fail("--embedder " + spec +
                            ": the hashed embedder's model is hashed-words-N (N dimensions)");
            }
            dimensions = std::stoul(model.substr(prefix.size()));
        }
        return std::shared_ptr<llm::Embedder>(std::make_shared<llm::HashedEmbedder>(dimensions));
    }
    const auto parsed = providers::parseProviderKind(kind);
    if (!parsed) {
        return fail("--embedder " + spec + ": unknown embedder '" + kind +
                    "' (openai, gemini, ollama, hashed)");
    }
    auto config = providers::configFromEnvironment(*parsed);
    if (!config) {
        return fail("embedder " + spec + ": " + config.error().message);
    }
    config->model = model;  // empty: the API's default embedding model
    auto made = providers::makeEmbedder(std::move(*config));
    if (!made) {
        return fail("embedder " + spec + ": " + made.error().message);
    }
    return std::move(*made);
}

expected<std::shared_ptr<llm::Embedder>, std::string> embedderFor(const std::string& spec,
                                                                  documents::DocumentIndex& index,
                                                                  std::string& warning) {
    if (!spec.empty()) {
        return embedderFromSpec(spec);
    }
    const std::string remembered = rememberedSpec(index);
    if (remembered.empty()) {
        return std::shared_ptr<llm::Embedder>();
    }
    auto made = embedderFromSpec(remembered);
    if (!made) {
        warning = "the index was embedded with " + remembered + ", which cannot be used here (" +
                  made.error() + "): ranking by text only";
        return std::shared_ptr<llm::Embedder>();
    }
    return made;
}

}  // namespace reagent::cli
