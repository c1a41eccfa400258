#include "documents_source.hpp"

#include <utility>

namespace reagent::umbrella {

namespace {

class DocumentsSource final : public agent::FindSource {
  public:
    explicit DocumentsSource(std::shared_ptr<documents::Documents> documents)
        : documents_(std::move(documents)) {}

    [[nodiscard]] std::string kind() const override { return "documents"; }

    Task<expected<std::vector<agent::FindHit>, tools::ToolError>> find(std::string query,
                                                                       std::size_t limit) override {
        auto search = documents_->search(std::move(query), limit);
        auto passages = co_await std::move(search);
        if (!passages) {
            co_return fail(tools::ToolError::failure(std::string(documents::toString(passages.error().code)) +
                                                     ": " + passages.error().message));
        }
        std::vector<agent::FindHit> hits;
        hits.reserve(passages->size());
        for (documents::Passage& passage : *passages) {
            nlohmann::json detail = {{"source", passage.source},
                                     {"lineStart", passage.lineStart},
                                     {"lineEnd", passage.lineEnd},
                                     {"chunk", passage.chunk}};
            if (passage.page > 0) {
                detail["page"] = passage.page;
            }
            hits.push_back(agent::FindHit{passage.citation(), std::move(passage.text), passage.score,
                                          std::move(detail)});
        }
        co_return hits;
    }

  private:
    std::shared_ptr<documents::Documents> documents_;
};

}  // namespace

std::shared_ptr<agent::FindSource> documentsFindSource(std::shared_ptr<documents::Documents> documents) {
    return std::make_shared<DocumentsSource>(std::move(documents));
}

}  // namespace reagent::umbrella
