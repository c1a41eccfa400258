// The CLI tests check the offline demo: the `reagent` processes they start must not pick up a provider
// configured in the developer's environment (nor a server token), so those variables are cleared before any
// test runs.
#include <cstdlib>
#include <initializer_list>

namespace {

const bool kCleared = [] {
    for (const char* name : {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST",
                             "REAGENT_MCP_SERVE_TOKEN", "REAGENT_A2A_SERVE_TOKEN"}) {
        ::unsetenv(name);
    }
    return true;
}();

}  // namespace
