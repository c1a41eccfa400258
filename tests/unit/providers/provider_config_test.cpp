// ProviderConfig from the environment, provider detection, OLLAMA_HOST parsing and makeProvider checks.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "reagent/agent/agent.hpp"
#include "reagent/providers/from_environment.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/umbrella/agent_builder.hpp"

using reagent::llm::ProviderErrc;
using reagent::providers::ProviderKind;
namespace providers = reagent::providers;

namespace {

// Sets (or, with nullptr, unsets) a variable for one scope, restoring the previous value.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            old_ = old;
            had_ = true;
        }
        if (value == nullptr) {
            ::unsetenv(name);
        } else {
            ::setenv(name, value, 1);
        }
    }
    ~ScopedEnv() {
        if (had_) {
            ::setenv(name_, old_.c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

struct CleanEnv {
    ScopedEnv a{"ANTHROPIC_API_KEY", nullptr};
    ScopedEnv ab{"ANTHROPIC_BASE_URL", nullptr};
    ScopedEnv o{"OPENAI_API_KEY", nullptr};
    ScopedEnv ob{"OPENAI_BASE_URL", nullptr};
    ScopedEnv g{"GEMINI_API_KEY", nullptr};
    ScopedEnv gb{"GEMINI_BASE_URL", nullptr};
    ScopedEnv h{"OLLAMA_HOST", nullptr};
    ScopedEnv k{"OLLAMA_API_KEY", nullptr};
};

}  // namespace

TEST_CASE("configFromEnvironment reads each provider's variables", "[providers][config]") {
    CleanEnv clean;
    SECTION("a missing key names the variable") {
        for (auto [kind, variable] : {std::pair{ProviderKind::anthropic, "ANTHROPIC_API_KEY"},
                                      std::pair{ProviderKind::openai, "OPENAI_API_KEY"},
                                      std::pair{ProviderKind::gemini, "GEMINI_API_KEY"}}) {
            const auto config = providers::configFromEnvironment(kind);
            REQUIRE_FALSE(config);
            CHECK(config.error().code == ProviderErrc::configuration);
            CHECK(config.error().message.find(variable) != std::string::npos);
        }
    }
    SECTION("key and base URL") {
        ScopedEnv key("OPENAI_API_KEY", " sk-test ");
        ScopedEnv base("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1");
        const auto config = providers::configFromEnvironment(ProviderKind::openai);
        REQUIRE(config);
        CHECK(config->apiKey == "sk-test");
        CHECK(config->baseUrl == "http://127.0.0.1:8080/v1");
        CHECK(config->stream);
        CHECK(config->retry.maxAttempts == 3);
    }
    SECTION("each variable keeps its own convention: what it leaves out of the base URL is appended") {
        ScopedEnv anthropicKey("ANTHROPIC_API_KEY", "a");
        ScopedEnv anthropicBase("ANTHROPIC_BASE_URL", "https://gateway.example/anthropic?x=1");
        CHECK(providers::configFromEnvironment(ProviderKind::anthropic)->baseUrl ==
              "https://gateway.example/anthropic/v1?x=1");
        ScopedEnv geminiKey("GEMINI_API_KEY", "g");
        ScopedEnv geminiBase("GEMINI_BASE_URL", "http://127.0.0.1:9000/v1beta");
        CHECK(providers::configFromEnvironment(ProviderKind::gemini)->baseUrl ==
              "http://127.0.0.1:9000/v1beta");
        ScopedEnv host("OLLAMA_HOST", "gpu-box:9999");
        CHECK(providers::configFromEnvironment(ProviderKind::ollama)->baseUrl == "http://gpu-box:9999/api");
        // Unset: empty, so the format's default applies.
        ScopedEnv noBase("ANTHROPIC_BASE_URL", nullptr);
        CHECK(providers::configFromEnvironment(ProviderKind::anthropic)->baseUrl.empty());
    }
    SECTION("ollama needs no key") {
        const auto config = providers::configFromEnvironment(ProviderKind::ollama);
        REQUIRE(config);
        CHECK(config->baseUrl == "http://127.0.0.1:11434/api");
    }
}

TEST_CASE("detectProvider takes the first configured provider", "[providers][config]") {
    CleanEnv clean;
    CHECK_FALSE(providers::detectProvider());
    {
        ScopedEnv host("OLLAMA_HOST", "gpu-box");
        const auto detected = providers::detectProvider();
        REQUIRE(detected);
        CHECK(detected->kind == ProviderKind::ollama);
        CHECK(detected->baseUrl == "http://gpu-box:11434/api");
    }
    ScopedEnv gemini("GEMINI_API_KEY", "g");
    ScopedEnv openai("OPENAI_API_KEY", "o");
    CHECK(providers::detectProvider()->kind == ProviderKind::openai);
    ScopedEnv anthropic("ANTHROPIC_API_KEY", "a");
    CHECK(providers::detectProvider()->kind == ProviderKind::anthropic);
}

TEST_CASE("OLLAMA_HOST is read as the ollama CLI reads it", "[providers][config]") {
    CHECK(providers::ollamaBaseUrl("") == "http://127.0.0.1:11434/api");
    CHECK(providers::ollamaBaseUrl("example.com") == "http://example.com:11434/api");
    CHECK(providers::ollamaBaseUrl("example.com:1234") == "http://example.com:1234/api");
    CHECK(providers::ollamaBaseUrl(":56789") == "http://127.0.0.1:56789/api");
    CHECK(providers::ollamaBaseUrl("http://example.com") == "http://example.com:80/api");
    CHECK(providers::ollamaBaseUrl("https://example.com/ollama/") == "https://example.com:443/ollama/api");
    CHECK(providers::ollamaBaseUrl("[::1]:9000") == "http://[::1]:9000/api");
    CHECK(providers::ollamaBaseUrl("  10.0.0.2  ") == "http://10.0.0.2:11434/api");
}

TEST_CASE("makeProvider checks the key and the base URL and fills in defaults", "[providers][config]") {
    providers::ProviderConfig config;
    config.kind = ProviderKind::gemini;
    auto missing = providers::makeProvider(config);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message.find("GEMINI_API_KEY") != std::string::npos);

    config.apiKey = "k";
    config.baseUrl = "ftp://example.com";
    auto badUrl = providers::makeProvider(config);
    REQUIRE_FALSE(badUrl);
    CHECK(badUrl.error().code == ProviderErrc::configuration);

    config.baseUrl = "";
    auto made = providers::makeProvider(config);
    REQUIRE(made);
    CHECK((*made)->name() == "gemini");
    const auto* http = dynamic_cast<const providers::HttpProvider*>(made->get());
    REQUIRE(http != nullptr);
    CHECK(http->config().model == "gemini-2.5-flash");
    CHECK(http->config().baseUrl == "https://generativelanguage.googleapis.com/v1beta");
    // The client exists from the start, bound to no executor; the timeouts are passed on.
    REQUIRE(http->client() != nullptr);
    CHECK(http->client()->connectionsOpened() == 0);
    CHECK(http->client()->config().requestTimeout == config.requestTimeout);
    CHECK(http->client()->config().connectTimeout == config.connectTimeout);
    CHECK(http->client()->config().readTimeout == std::chrono::seconds(120));

    for (auto kind :
         {ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama}) {
        CHECK(providers::parseProviderKind(providers::toString(kind)) == kind);
        CHECK(providers::wire::forKind(kind).name == providers::toString(kind));
    }
    CHECK_FALSE(providers::parseProviderKind("demo"));
}

TEST_CASE("fromEnvironment makes a provider named by kind, or says why not", "[providers][config]") {
    CleanEnv clean;
    auto missing = providers::fromEnvironment("openai");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ProviderErrc::configuration);
    CHECK(missing.error().message.find("OPENAI_API_KEY") != std::string::npos);

    auto unknown = providers::fromEnvironment("nope");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == ProviderErrc::configuration);
    CHECK(unknown.error().message ==
          "unknown provider 'nope' (known kinds: anthropic, openai, gemini, ollama)");

    auto ollama = providers::fromEnvironment("ollama");  // needs no key
    REQUIRE(ollama);
    CHECK((*ollama)->name() == "ollama");
}

TEST_CASE("a provider from a wire format of one's own", "[providers][config]") {
    providers::WireFormat format = providers::wire::openai();
    format.name = "mine";
    format.defaultBaseUrl = "https://api.example.com/v2";
    format.defaultModel = "example-large";
    format.authenticate = [](reagent::http::HttpHeaders& headers, const std::string& key) {
        headers.set("api-key", key);
    };
    providers::ProviderConfig config;  // no key: the format decides what it needs
    REQUIRE(providers::makeProvider(config, format));
    const providers::HttpProvider provider(config, format);
    CHECK(provider.name() == "mine");
    CHECK(provider.config().baseUrl == "https://api.example.com/v2");
    CHECK(provider.config().model == "example-large");

    config.baseUrl = "http://";
    auto badUrl = providers::makeProvider(config, format);
    REQUIRE_FALSE(badUrl);
    CHECK(badUrl.error().code == ProviderErrc::configuration);
    CHECK(badUrl.error().message == "mine: the base URL 'http://' has no host");

    config.baseUrl.clear();
    format.decodeReply = nullptr;
    auto incomplete = providers::makeProvider(config, format);
    REQUIRE_FALSE(incomplete);
    CHECK(incomplete.error().code == ProviderErrc::configuration);
}

TEST_CASE("AgentBuilder::withProvider(kind) reads the environment at build()", "[providers][config][agent]") {
    CleanEnv clean;
    auto missing = reagent::Agent::create().withProvider("openai").build();
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message.find("OPENAI_API_KEY") != std::string::npos);

    auto unknown = reagent::Agent::create().withProvider(std::string("nope")).build();
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message.find("unknown provider 'nope'") != std::string::npos);

    auto builder = reagent::Agent::create();
    builder.withProvider("anthropic");
    ScopedEnv key("ANTHROPIC_API_KEY", "a");  // set after the call: build() is when it is read
    auto built = builder.build();
    REQUIRE(built);
    CHECK(built->config().provider->name() == "anthropic");
}

TEST_CASE("AgentBuilder::withProvider takes what makeProvider and fromEnvironment return",
          "[providers][config][agent]") {
    CleanEnv clean;
    providers::ProviderConfig config;
    config.kind = ProviderKind::ollama;
    auto fromConfig = reagent::Agent::create().withProvider(providers::makeProvider(config)).build();
    REQUIRE(fromConfig);
    CHECK(fromConfig->config().provider->name() == "ollama");

    // The error is kept until build(), which reports it with the other problems.
    config.kind = ProviderKind::openai;
    auto failed =
        reagent::Agent::create().withProvider(providers::makeProvider(config)).withMaxIterations(0).build();
    REQUIRE_FALSE(failed);
    CHECK(failed.error().message.find("2 problems") != std::string::npos);
    CHECK(failed.error().message.find("OPENAI_API_KEY") != std::string::npos);

    // The last withProvider wins, whichever overload it was.
    auto replaced = reagent::Agent::create()
                        .withProvider(providers::fromEnvironment("openai"))
                        .withProvider(providers::fromEnvironment("ollama"))
                        .build();
    REQUIRE(replaced);
    CHECK(replaced->config().provider->name() == "ollama");
}

TEST_CASE("validateConfig names what is wrong with a base URL", "[providers][config]") {
    using reagent::providers::validateConfig;
    reagent::providers::ProviderConfig config;
    config.apiKey = "k";
    const auto problem = [&](const std::string& url) {
        config.baseUrl = url;
        const auto valid = validateConfig(config);
        REQUIRE_FALSE(valid);
        CHECK(valid.error().code == reagent::llm::ProviderErrc::configuration);
        return valid.error().message;
    };
    CHECK(problem("http://").find("has no host") != std::string::npos);
    CHECK(problem("http://[::1").find("is not an absolute URL") != std::string::npos);
    CHECK(problem("ftp://example.com").find("is not an http:// or https:// URL") != std::string::npos);
    CHECK(problem("example.com/v1").find("is not an absolute URL") != std::string::npos);
    CHECK(problem("http://h:99999/v1").find("port") != std::string::npos);
    CHECK(problem("http://h/v1#x").find("fragment") != std::string::npos);
    const std::string masked = problem("http://u:secret-pw@[::1?key=secret-key");
    CHECK(masked.find("secret") == std::string::npos);

    for (const char* good : {"http://127.0.0.1:8080", "https://api.openai.com/v1/", "http://[::1]:11434",
                             "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21"}) {
        config.baseUrl = good;
        CAPTURE(good);
        CHECK(validateConfig(config));
    }
    config.baseUrl.clear();
    CHECK(validateConfig(config));
    config.apiKey.clear();
    CHECK_FALSE(validateConfig(config));
}

TEST_CASE("joinUrl keeps a base URL's query string after the path", "[providers][config]") {
    using reagent::providers::joinUrl;
    CHECK(joinUrl("https://x/openai/deployments/d?api-version=2024-10-21", "/chat/completions") ==
          "https://x/openai/deployments/d/chat/completions?api-version=2024-10-21");
    CHECK(joinUrl("https://api.openai.com/v1/", "/chat/completions") ==
          "https://api.openai.com/v1/chat/completions");
    CHECK(joinUrl("https://g/v1beta?x=1", "/models/m:streamGenerateContent?alt=sse") ==
          "https://g/v1beta/models/m:streamGenerateContent?x=1&alt=sse");
    CHECK(joinUrl("https://g/v1beta", "/models/m:streamGenerateContent?alt=sse") ==
          "https://g/v1beta/models/m:streamGenerateContent?alt=sse");
    CHECK(joinUrl("http://h/?", "/api/chat") == "http://h/api/chat");
}
