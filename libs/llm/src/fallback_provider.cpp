#include "reagent/llm/fallback_provider.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace reagent::llm {

namespace {

bool containsNoCase(std::string_view text, std::string_view part) {
    return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           }) != text.end();
}

}  // namespace

bool isContextLengthExceeded(const ProviderError& error) noexcept {
    if (error.code != ProviderErrc::invalid_request) {
        return false;
    }
    for (const std::string_view phrase :
         {"context_length_exceeded", "context length", "context window", "prompt is too long",
          "exceeds the maximum number of tokens", "input is too long", "too many tokens"}) {
        if (containsNoCase(error.message, phrase) || containsNoCase(error.providerType, phrase)) {
            return true;
        }
    }
    return false;
}

std::string describeProvider(const Provider& provider) {
    std::string text(provider.name());
    if (const std::string_view model = provider.model(); !model.empty()) {
        text.append(":").append(model);
    }
    return text;
}

FallbackProvider::FallbackProvider(std::vector<std::shared_ptr<Provider>> chain, FallbackPolicy policy)
    : chain_(std::move(chain)), policy_(std::move(policy)) {}

expected<std::shared_ptr<FallbackProvider>, ProviderError> FallbackProvider::make(
    std::vector<std::shared_ptr<Provider>> chain, FallbackPolicy policy) {
    ProviderError error;
    error.code = ProviderErrc::configuration;
    if (chain.empty()) {
        error.message = "a fallback chain needs at least one provider";
        return fail(std::move(error));
    }
    for (std::size_t i = 0; i < chain.size(); ++i) {
        if (!chain[i]) {
            error.message = "provider " + std::to_string(i + 1) + " of the fallback chain is null";
            return fail(std::move(error));
        }
    }
    return std::make_shared<FallbackProvider>(std::move(chain), std::move(policy));
}

bool FallbackProvider::movesOn(const ProviderError& error) const noexcept {
    if (error.code == ProviderErrc::cancelled) {
        return false;
    }
    if (policy_.onContextLength && isContextLengthExceeded(error)) {
        return true;
    }
    return std::find(policy_.on.begin(), policy_.on.end(), error.code) != policy_.on.end();
}

Task<expected<ModelReply, ProviderError>> FallbackProvider::complete(ModelRequest request) {
    // Deltas pass through; once one has, the reply belongs to that provider.
    auto delivered = std::make_shared<bool>(false);
    auto onDelta = std::move(request.onDelta);
    const auto onFallback = std::move(request.onFallback);
    Usage spent;
    for (std::size_t i = 0;; ++i) {
        // The last provider may take the request itself; the others get a copy (the next one needs it).
        ModelRequest attempt;
        if (i + 1 < chain_.size()) {
            attempt = request;
        } else {
            attempt = std::move(request);
        }
        if (onDelta) {
            attempt.onDelta = [onDelta, delivered](const StreamDelta& delta) {
                *delivered = true;
                onDelta(delta);
            };
        }
        attempt.onFallback = onFallback;  // a nested chain tells its own moves
        auto reply = co_await chain_[i]->complete(std::move(attempt));
        if (reply) {
            reply->usage += spent;
            if (reply->model.empty()) {
                reply->model = std::string(chain_[i]->model());  // so the answer names who gave it
            }
            co_return reply;
        }
        spent += reply.error().usage;
        if (i + 1 == chain_.size() || *delivered || !movesOn(reply.error())) {
            reply.error().usage = spent;
            co_return reply;
        }
        if (onFallback) {
            onFallback(FallbackNotice{describeProvider(*chain_[i]), describeProvider(*chain_[i + 1]),
                                      reply.error()});
        }
    }
}

Task<expected<std::int64_t, ProviderError>> FallbackProvider::countTokens(ModelRequest request) {
    auto counting = chain_.front()->countTokens(std::move(request));
    co_return co_await std::move(counting);
}

}  // namespace reagent::llm
