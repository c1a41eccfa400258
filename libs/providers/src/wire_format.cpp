#include "reagent/providers/wire_format.hpp"

namespace reagent::providers::wire {

const WireFormat& forKind(ProviderKind kind) noexcept {
    switch (kind) {
        case ProviderKind::anthropic:
            return anthropic();
        case ProviderKind::gemini:
            return gemini();
        case ProviderKind::ollama:
            return ollama();
        case ProviderKind::openai:
            break;
    }
    return openai();
}

}  // namespace reagent::providers::wire
