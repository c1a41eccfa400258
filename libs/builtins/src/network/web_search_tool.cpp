// web-search: the Tavily search API. The key travels only in the Authorization header; every text that
// leaves this file is scrubbed of it.

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "network/network_common.hpp"
#include "reagent/builtins/network_tools.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace reagent::builtins {

namespace {

using nlohmann::json;
using tools::ToolError;
using tools::ToolResult;

// A search result's content beyond this is cut (bytes): results are summaries, not pages.
constexpr std::size_t kMaxContentBytes = 4000;

struct SearchState {
    NetworkToolOptions options;
    std::string key;
    http::HttpClient client;
};

std::string scrubbed(std::string text, const std::string& key) {
    if (key.empty()) return text;
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + 3))
        text.replace(at, key.size(), "***");
    return text;
}

ToolError statusError(const http::HttpResponse& response) {
    const int status = response.status;
    if (status == 401 || status == 403) {
        return ToolError::failure(
            "Tavily refused the API key (HTTP " + std::to_string(status) +
            "): the user must configure a valid TAVILY_API_KEY; do not retry web-search");
    }
    if (status == 429) return ToolError::failure(detail::rateLimited("Tavily", response));
    if (status == 432 || status == 433) {
        return ToolError::failure("the Tavily plan's usage limit is reached (HTTP " + std::to_string(status) +
                                  "); do not retry web-search, answer without it");
    }
    return ToolError::failure("Tavily answered HTTP " + std::to_string(status) + ": " +
                              detail::bodyExcerpt(response.body));
}

expected<json, ToolError> searchResults(const std::string& query, const std::string& body) {
    const json parsed = parseUntrustedJson(body).value_or(json());
    if (!parsed.is_object() || !parsed.contains("results") || !parsed["results"].is_array()) {
        return fail(
            ToolError::failure("Tavily sent an answer without a results list: " + detail::bodyExcerpt(body)));
    }
    json results = json::array();
    for (const auto& item : parsed["results"]) {
        if (!item.is_object()) continue;
        json result;
        for (const char* field : {"title", "url", "content"}) {
            const auto value = item.find(field);
            result[field] =
                value != item.end() && value->is_string() ? value->get<std::string>() : std::string();
        }
        auto& content = result["content"].get_ref<std::string&>();
        if (content.size() > kMaxContentBytes)
            content = std::string(reagent::detail::utf8Prefix(content, kMaxContentBytes)) + "...";
        results.push_back(std::move(result));
    }
    json out;
    out["query"] = query;
    out["results"] = std::move(results);
    return out;
}

Task<ToolResult> runSearch(std::shared_ptr<SearchState> state, json args) {
    if (state->key.empty()) {
        co_return fail(ToolError::failure(
            "web-search is inactive: no Tavily API key is configured (the user must set TAVILY_API_KEY). "
            "Do not call web-search again; answer without it or tell the user web search is unavailable."));
    }
    const std::string query = args.value("query", std::string());
    json body;
    body["query"] = query;
    body["max_results"] = std::clamp(args.value("maxResults", 5), 1, 20);
    body["search_depth"] = args.value("searchDepth", std::string("basic"));
    http::HttpRequest request;
    request.method = "POST";
    request.url = state->options.tavilyBaseUrl + "/search";
    request.headers.add("Content-Type", "application/json");
    request.headers.add("Accept", "application/json");
    request.headers.add("Authorization", "Bearer " + state->key);
    request.body = detail::jsonText(body);
    request.timeout = state->options.requestTimeout;
    auto sending = state->client.send(std::move(request));
    auto response = co_await std::move(sending);
    ToolResult result;
    if (!response) {
        result = fail(detail::httpFailure("Tavily", response.error()));
    } else if (!response->ok()) {
        result = fail(statusError(*response));
    } else {
        result =
            searchResults(query, response->body).map([](const json& out) { return detail::jsonText(out); });
    }
    if (!result) result.error().message = scrubbed(std::move(result.error().message), state->key);
    co_return result;
}

std::string keyFrom(const NetworkToolOptions& options) {
    if (options.tavilyApiKey) return *options.tavilyApiKey;
    const char* value = std::getenv("TAVILY_API_KEY");
    return value != nullptr ? value : "";
}

}  // namespace

expected<tools::Tool, ToolError> webSearchTool(const NetworkToolOptions& options) {
    auto state =
        std::make_shared<SearchState>(SearchState{options, keyFrom(options), http::HttpClient(options.http)});
    tools::ParamOptions query;
    query.required = true;
    tools::ParamOptions maxResults;
    maxResults.defaultValue = 5;
    tools::ParamOptions depth;
    depth.defaultValue = "basic";
    depth.enumValues = {"basic", "advanced"};
    auto builder = tools::ToolBuilder::create("web-search");
    builder
        .description(
            "Search the web (Tavily). Returns {query, results: [{title, url, content}]}, the most "
            "relevant first. Use http-get to read a result's page in full.")
        .param("query", "string", "What to search for.", query)
        .param("maxResults", "integer", "How many results (1 to 20; default 5).", maxResults)
        .param("searchDepth", "string", "basic (fast, the default) or advanced (slower, more thorough).",
               depth)
        .category("search")
        .timeout(options.callTimeout)
        .action([](const json& args) {
            return "Searching the web for \"" + args.value("query", std::string()) + "\"";
        })
        .handler([state](json args, tools::ToolContext) { return runSearch(state, std::move(args)); });
    return builder.build();
}

}  // namespace reagent::builtins
